//! `ai00_tokenizer`: the RWKV World tokenizer as its own handle.
use crate::{c_path, check, copy_cstr, sys, two_call, Model, Result};
use std::path::Path;

/// An RWKV World tokenizer. Immutable: `Send + Sync`.
pub struct Tokenizer {
    raw: *mut sys::ai00_tokenizer,
}

// The header: "Immutable: any number of threads may use one at once."
unsafe impl Send for Tokenizer {}
unsafe impl Sync for Tokenizer {}

impl Tokenizer {
    /// Loads an RWKV World vocabulary file (rwkv_vocab_v20230424.txt format).
    pub fn load(path: impl AsRef<Path>) -> Result<Tokenizer> {
        let p = c_path(path.as_ref())?;
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::ai00_tokenizer_load(&mut raw, p.as_ptr(), sys::AI00_NUL_TERMINATED) })?;
        Ok(Tokenizer { raw })
    }

    /// The model's tokenizer; it stays valid after the model is dropped.
    pub fn from_model(model: &Model) -> Result<Tokenizer> {
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::ai00_tokenizer_from_model(&mut raw, model.raw()) })?;
        Ok(Tokenizer { raw })
    }

    /// The number of ids it knows (id 0 included).
    pub fn vocab_size(&self) -> Result<u32> {
        let mut n = 0u32;
        check(unsafe { sys::ai00_tokenizer_vocab_size(&mut n, self.raw) })?;
        Ok(n)
    }

    /// Encodes any bytes into ids (greedy longest match).
    pub fn encode(&self, bytes: impl AsRef<[u8]>) -> Result<Vec<u32>> {
        let b = bytes.as_ref();
        two_call::<u32>(|count, buf, cap| unsafe {
            sys::ai00_tokenizer_encode(count, buf, cap, self.raw, b.as_ptr() as *const _, b.len())
        })
    }

    /// Decodes ids into the exact bytes they stand for (possibly not UTF-8), stopping at id 0.
    pub fn decode(&self, tokens: &[u32]) -> Result<Vec<u8>> {
        two_call::<u8>(|len, buf, cap| unsafe {
            sys::ai00_tokenizer_decode(len, buf as *mut _, cap, self.raw, tokens.as_ptr(),
                                       tokens.len())
        })
    }

    /// The message of the last failed call on this tokenizer.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_tokenizer_last_error(self.raw)) }
    }

    pub(crate) fn raw(&self) -> *const sys::ai00_tokenizer {
        self.raw
    }
}

impl Drop for Tokenizer {
    fn drop(&mut self) {
        unsafe { sys::ai00_tokenizer_free(self.raw) };
    }
}
