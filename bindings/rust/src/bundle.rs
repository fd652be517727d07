//! `ai00_state_bundle`: many named States in one buffer or file.
use crate::{c_path, check, copy_bytes, copy_cstr, sys, two_call, Model, Result, State};
use std::os::raw::{c_char, c_void};
use std::path::Path;

/// An opened State bundle. Immutable after opening, so `Send + Sync` (header: any number of
/// threads may read it). States loaded from it stay valid after it is dropped.
pub struct StateBundle {
    raw: *mut sys::ai00_state_bundle,
}

unsafe impl Send for StateBundle {}
unsafe impl Sync for StateBundle {}

struct Args {
    states: Vec<*const sys::ai00_state>,
    names: Vec<*const c_char>,
    lens: Vec<usize>,
}

fn args(entries: &[(&str, &State)]) -> Args {
    Args {
        states: entries.iter().map(|(_, s)| s.raw()).collect(),
        names: entries.iter().map(|(n, _)| n.as_ptr() as *const c_char).collect(),
        lens: entries.iter().map(|(n, _)| n.len()).collect(),
    }
}

impl StateBundle {
    /// The bundle bytes of named States (names unique, 1..4096 UTF-8 bytes; a bad one is
    /// `InvalidArgument` naming its index).
    pub fn save(entries: &[(&str, &State)]) -> Result<Vec<u8>> {
        let a = args(entries);
        two_call::<u8>(|n, buf, cap| unsafe {
            sys::ai00_state_bundle_save(n, buf as *mut c_void, cap, a.states.as_ptr(),
                                        a.names.as_ptr(), a.lens.as_ptr(), a.states.len())
        })
    }

    /// The same bytes written to `path` (through a temporary file renamed into place).
    pub fn save_file(entries: &[(&str, &State)], path: impl AsRef<Path>) -> Result<()> {
        let a = args(entries);
        let p = c_path(path.as_ref())?;
        check(unsafe {
            sys::ai00_state_bundle_save_file(a.states.as_ptr(), a.names.as_ptr(), a.lens.as_ptr(),
                                             a.states.len(), p.as_ptr(),
                                             sys::AI00_NUL_TERMINATED)
        })
    }

    /// Opens bundle bytes (copied), checking every entry: truncated or corrupt data is
    /// `ModelFile` naming the entry and byte offset.
    pub fn open(data: &[u8]) -> Result<StateBundle> {
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::ai00_state_bundle_open(&mut raw, data.as_ptr() as *const c_void, data.len()) })?;
        Ok(StateBundle { raw })
    }

    /// Opens a bundle file.
    pub fn open_file(path: impl AsRef<Path>) -> Result<StateBundle> {
        let p = c_path(path.as_ref())?;
        let mut raw = std::ptr::null_mut();
        check(unsafe {
            sys::ai00_state_bundle_open_file(&mut raw, p.as_ptr(), sys::AI00_NUL_TERMINATED)
        })?;
        Ok(StateBundle { raw })
    }

    /// The number of entries.
    pub fn len(&self) -> Result<usize> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_state_bundle_count(&mut n, self.raw) })?;
        Ok(n)
    }

    /// Whether the bundle has no entry.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Entry `index`'s name.
    pub fn name(&self, index: usize) -> Result<String> {
        let mut p: *const c_char = std::ptr::null();
        let mut n = 0usize;
        check(unsafe { sys::ai00_state_bundle_name(&mut p, &mut n, self.raw, index) })?;
        Ok(unsafe { copy_bytes(p, n) })
    }

    /// The entries' names in order.
    pub fn names(&self) -> Result<Vec<String>> {
        (0..self.len()?).map(|i| self.name(i)).collect()
    }

    /// The index of the entry named `name` (none is `InvalidArgument`).
    pub fn find(&self, name: &str) -> Result<usize> {
        let mut i = 0usize;
        check(unsafe {
            sys::ai00_state_bundle_find(&mut i, self.raw, name.as_ptr() as *const c_char, name.len())
        })?;
        Ok(i)
    }

    /// A new State of `model` from entry `index` (a State of another model is `Mismatch`).
    pub fn load(&self, model: &Model, index: usize) -> Result<State> {
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::ai00_state_bundle_load(&mut raw, self.raw, model.raw(), index) })?;
        Ok(State::wrap(raw, model))
    }

    /// The message of the last failed call on the bundle.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_state_bundle_last_error(self.raw)) }
    }
}

impl Drop for StateBundle {
    fn drop(&mut self) {
        unsafe { sys::ai00_state_bundle_free(self.raw) };
    }
}
