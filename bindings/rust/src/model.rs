//! `ai00_model`: weights, tokenizer and kernels; immutable and shared.
use crate::convert::{progress_trampoline, ProgressCtx};
use crate::{c_path, check, copy_cstr, static_str, sys, two_call, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Activations of the matrix products on quantized and BF16 weights (`ai00_activations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Activations {
    /// int8 / bf16 dot products where the weights allow (the default): logits within about
    /// 0.05 of `Exact`, so greedy tokens can differ where the top two logits are that close.
    #[default]
    Dot,
    /// fp32 activations everywhere: the reference computation's logits, slower.
    Exact,
}

/// Load options (`ai00_model_params`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelParams {
    /// Threads of the model's pool (>= 1); results do not depend on it.
    pub n_threads: i32,
    /// ISA to force ("scalar", "sse2", "avx2", "avx512", "neon64"), or `None` for the best.
    pub forced_isa: Option<String>,
    /// An RWKV World vocabulary file for a weight file that carries none.
    pub vocab_path: Option<PathBuf>,
    /// Activations of every evaluation on the model (`Activations::Dot` by default).
    pub activations: Activations,
}

impl Default for ModelParams {
    fn default() -> Self {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_model_params>::zeroed();
        let raw = unsafe {
            sys::ai00_model_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        let activations = if raw.activations == sys::AI00_ACTIVATIONS_EXACT {
            Activations::Exact
        } else {
            Activations::Dot
        };
        ModelParams { n_threads: raw.n_threads, forced_isa: None, vocab_path: None, activations }
    }
}

/// The shape of a loaded model (`ai00_model_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelInfo {
    pub n_layer: u32,
    pub n_embd: u32,
    pub n_head: u32,
    pub head_size: u32,
    pub n_vocab: u32,
    pub n_tokens: u32,
    pub n_threads: u32,
    pub state_bytes: u64,
}

pub(crate) struct ModelHandle(pub(crate) *mut sys::ai00_model);

// An ai00_model is immutable and may be used by any number of threads at once (header rule 10).
unsafe impl Send for ModelHandle {}
unsafe impl Sync for ModelHandle {}

impl Drop for ModelHandle {
    fn drop(&mut self) {
        // Runs once the last Model clone and the last State of it are gone (they hold the Arc).
        unsafe { sys::ai00_model_free(self.0) };
    }
}

/// A loaded model. Cloning is cheap (one shared handle); [`crate::State`]s keep it alive, as the
/// header requires ("free it once no State ... made from it is in use"). `Send + Sync`.
#[derive(Clone)]
pub struct Model {
    pub(crate) handle: Arc<ModelHandle>,
}

impl Model {
    /// Loads a weight file (GGUF, safetensors/.st, rwkv.cpp .bin, PyTorch .pth) with defaults.
    pub fn load(path: impl AsRef<Path>) -> Result<Model> {
        Model::load_with(path, &ModelParams::default())
    }

    /// Loads a weight file with options.
    pub fn load_with(path: impl AsRef<Path>, params: &ModelParams) -> Result<Model> {
        Model::load_impl(path.as_ref(), params, None)
    }

    /// [`Model::load_with`] reporting progress `(done, total)` in bytes of tensor data on the
    /// calling thread: `done` never decreases and the last call, on success only, is
    /// `(total, total)`. Return `false` to cancel ([`crate::Status::Cancelled`]); a panic in
    /// the closure cancels the load and is resumed once the library has returned.
    pub fn load_with_progress(path: impl AsRef<Path>, params: &ModelParams,
                              mut progress: impl FnMut(u64, u64) -> bool) -> Result<Model> {
        Model::load_impl(path.as_ref(), params, Some(&mut progress))
    }

    fn load_impl(path: &Path, params: &ModelParams,
                 progress: Option<&mut dyn FnMut(u64, u64) -> bool>) -> Result<Model> {
        let path = c_path(path)?;
        let isa = params.forced_isa.as_deref().map(std::ffi::CString::new).transpose()
            .map_err(|_| crate::invalid("forced_isa contains a NUL byte"))?;
        let vocab = params.vocab_path.as_deref().map(c_path).transpose()?;
        let mut raw = std::mem::MaybeUninit::<sys::ai00_model_params>::zeroed();
        let mut raw = unsafe {
            sys::ai00_model_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        raw.n_threads = params.n_threads;
        raw.forced_isa = isa.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        raw.vocab_path = vocab.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        raw.activations = match params.activations {
            Activations::Dot => sys::AI00_ACTIVATIONS_DOT,
            Activations::Exact => sys::AI00_ACTIVATIONS_EXACT,
        };
        let mut ctx = progress.map(|f| ProgressCtx { f, panic: None });
        if let Some(ctx) = ctx.as_mut() {
            raw.progress = Some(progress_trampoline);
            raw.progress_user_data = ctx as *mut ProgressCtx as *mut std::ffi::c_void;
        }
        let mut model = std::ptr::null_mut();
        let status = unsafe {
            sys::ai00_model_load(&mut model, path.as_ptr(), sys::AI00_NUL_TERMINATED, &raw)
        };
        if let Some(p) = ctx.and_then(|c| c.panic) {
            if !model.is_null() {
                unsafe { sys::ai00_model_free(model) };
            }
            std::panic::resume_unwind(p);
        }
        check(status)?;
        Ok(Model { handle: Arc::new(ModelHandle(model)) })
    }

    pub(crate) fn raw(&self) -> *const sys::ai00_model {
        self.handle.0
    }

    /// The model's shape.
    pub fn info(&self) -> Result<ModelInfo> {
        let mut i = sys::ai00_model_info {
            struct_size: std::mem::size_of::<sys::ai00_model_info>() as u32,
            ..Default::default()
        };
        check(unsafe { sys::ai00_model_get_info(&mut i, self.raw()) })?;
        Ok(ModelInfo {
            n_layer: i.n_layer,
            n_embd: i.n_embd,
            n_head: i.n_head,
            head_size: i.head_size,
            n_vocab: i.n_vocab,
            n_tokens: i.n_tokens,
            n_threads: i.n_threads,
            state_bytes: i.state_bytes,
        })
    }

    /// The kernel ISA chosen at load ("avx2", ...).
    pub fn isa_name(&self) -> Result<&'static str> {
        let mut p = std::ptr::null();
        check(unsafe { sys::ai00_model_isa_name(&mut p, self.raw()) })?;
        Ok(unsafe { static_str(p) })
    }

    /// The model described as one JSON object (what `ai00 info` prints).
    pub fn info_json(&self) -> Result<String> {
        let bytes = two_call::<u8>(|len, buf, cap| unsafe {
            sys::ai00_model_info_json(len, buf as *mut _, cap, self.raw())
        })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Encodes text into token ids with the model's tokenizer.
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>> {
        two_call::<u32>(|count, buf, cap| unsafe {
            sys::ai00_model_tokenize(count, buf, cap, self.raw(), text.as_ptr() as *const _,
                                     text.len())
        })
    }

    /// Decodes ids into valid UTF-8, stopping at id 0.
    pub fn detokenize(&self, tokens: &[u32]) -> Result<String> {
        let bytes = two_call::<u8>(|len, buf, cap| unsafe {
            sys::ai00_model_detokenize(len, buf as *mut _, cap, self.raw(), tokens.as_ptr(),
                                       tokens.len())
        })?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The message of the last failed call on this model (`ai00_model_last_error`); with
    /// several threads prefer the [`crate::Error`] each call returns.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_model_last_error(self.raw())) }
    }
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model").field("handle", &self.handle.0).finish()
    }
}
