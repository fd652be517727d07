//! `ai00_state`: one sequence (recurrent state + sampler state).
use crate::model::{Model, ModelHandle};
use crate::{c_path, check, copy_cstr, sys, two_call, Result, SamplerParams, Status};
use std::path::Path;
use std::sync::Arc;

/// One sequence of one model: the recurrent state plus the sampler's seed, RNG and penalties.
///
/// `Send` but not `Sync`: a State belongs to one thread at a time (header rule 10). It keeps
/// its model alive. A [`crate::Generator`] borrows it mutably for the turn.
pub struct State {
    raw: *mut sys::ai00_state,
    model: Arc<ModelHandle>,
}

// One thread at a time: moving a State to another thread is allowed, sharing it is not.
unsafe impl Send for State {}

impl State {
    pub(crate) fn wrap(raw: *mut sys::ai00_state, model: &Model) -> State {
        State { raw, model: model.handle.clone() }
    }

    /// A fresh State (zeros, seed 0) for `model`.
    pub fn new(model: &Model) -> Result<State> {
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::ai00_state_new(&mut raw, model.raw()) })?;
        Ok(State::wrap(raw, model))
    }

    /// An independent copy (branching a dialogue, retries).
    pub fn try_clone(&self) -> Result<State> {
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::ai00_state_clone(&mut raw, self.raw) })?;
        Ok(State { raw, model: self.model.clone() })
    }

    /// Back to the fresh state; the RNG restarts from the current seed.
    pub fn reset(&mut self) -> Result<()> {
        check(unsafe { sys::ai00_state_reset(self.raw) })
    }

    /// Sets the sampler seed and restarts the RNG from it.
    pub fn set_seed(&mut self, seed: u64) -> Result<()> {
        check(unsafe { sys::ai00_state_set_seed(self.raw, seed) })
    }

    /// Runs tokens through this State's model and returns the logits after the last one.
    pub fn eval(&mut self, tokens: &[u32]) -> Result<Vec<f32>> {
        let mut n = 0usize;
        let mut logits = vec![0f32; self.n_vocab()?];
        check(unsafe {
            sys::ai00_state_eval(&mut n, logits.as_mut_ptr(), logits.len(), self.model.0,
                                 self.raw, tokens.as_ptr(), tokens.len())
        })?;
        Ok(logits)
    }

    /// Runs tokens through the model without computing logits (pure prefill, cheaper).
    pub fn prefill(&mut self, tokens: &[u32]) -> Result<()> {
        check(unsafe {
            sys::ai00_state_eval(std::ptr::null_mut(), std::ptr::null_mut(), 0, self.model.0,
                                 self.raw, tokens.as_ptr(), tokens.len())
        })
    }

    /// Runs tokens and returns one row of n_vocab logits per token (scoring a text).
    pub fn eval_all(&mut self, tokens: &[u32]) -> Result<Vec<Vec<f32>>> {
        let v = self.n_vocab()?;
        let mut n = 0usize;
        let mut logits = vec![0f32; v * tokens.len()];
        check(unsafe {
            sys::ai00_state_eval_all(&mut n, logits.as_mut_ptr(), logits.len(), self.model.0,
                                     self.raw, tokens.as_ptr(), tokens.len())
        })?;
        Ok(logits.chunks(v.max(1)).map(|row| row.to_vec()).collect())
    }

    /// Draws one token from `logits` with this State's RNG and penalty table.
    pub fn sample(&mut self, params: &SamplerParams, logits: &[f32]) -> Result<u32> {
        let (raw, _bias) = params.to_raw();
        let mut token = 0u32;
        check(unsafe {
            sys::ai00_state_sample(&mut token, self.raw, &raw, logits.as_ptr(), logits.len())
        })?;
        Ok(token)
    }

    /// Serializes the State (recurrent and sampler parts) into bytes.
    pub fn save(&self) -> Result<Vec<u8>> {
        two_call::<u8>(|size, buf, cap| unsafe {
            sys::ai00_state_save(size, buf as *mut _, cap, self.raw)
        })
    }

    /// The size in bytes of [`State::save`]'s output.
    pub fn size(&self) -> Result<usize> {
        let mut size = 0usize;
        let status = unsafe { sys::ai00_state_save(&mut size, std::ptr::null_mut(), 0, self.raw) };
        if status == 0 || Status::from_raw(status) == Status::BufferTooSmall {
            Ok(size)
        } else {
            check(status).map(|_| 0)
        }
    }

    /// A new State of `model` from bytes written by [`State::save`].
    pub fn load(model: &Model, bytes: &[u8]) -> Result<State> {
        let mut raw = std::ptr::null_mut();
        check(unsafe {
            sys::ai00_state_load(&mut raw, model.raw(), bytes.as_ptr() as *const _, bytes.len())
        })?;
        Ok(State::wrap(raw, model))
    }

    /// Writes [`State::save`]'s bytes to a file.
    pub fn save_file(&self, path: impl AsRef<Path>) -> Result<()> {
        let p = c_path(path.as_ref())?;
        check(unsafe { sys::ai00_state_save_file(self.raw, p.as_ptr(), sys::AI00_NUL_TERMINATED) })
    }

    /// A new State of `model` from a file written by [`State::save_file`].
    pub fn load_file(model: &Model, path: impl AsRef<Path>) -> Result<State> {
        let p = c_path(path.as_ref())?;
        let mut raw = std::ptr::null_mut();
        check(unsafe {
            sys::ai00_state_load_file(&mut raw, model.raw(), p.as_ptr(), sys::AI00_NUL_TERMINATED)
        })?;
        Ok(State::wrap(raw, model))
    }

    /// A new State from an ai00 `.state` file (a state-tuned initial state).
    pub fn load_initial(model: &Model, path: impl AsRef<Path>) -> Result<State> {
        let p = c_path(path.as_ref())?;
        let mut raw = std::ptr::null_mut();
        check(unsafe {
            sys::ai00_state_load_initial(&mut raw, model.raw(), p.as_ptr(),
                                         sys::AI00_NUL_TERMINATED)
        })?;
        Ok(State::wrap(raw, model))
    }

    /// The message of the last failed call on this State.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_state_last_error(self.raw)) }
    }

    pub(crate) fn raw_mut(&mut self) -> *mut sys::ai00_state {
        self.raw
    }

    pub(crate) fn raw(&self) -> *const sys::ai00_state {
        self.raw
    }

    fn n_vocab(&self) -> Result<usize> {
        let mut i = sys::ai00_model_info {
            struct_size: std::mem::size_of::<sys::ai00_model_info>() as u32,
            ..Default::default()
        };
        check(unsafe { sys::ai00_model_get_info(&mut i, self.model.0) })?;
        Ok(i.n_vocab as usize)
    }
}

impl Drop for State {
    fn drop(&mut self) {
        unsafe { sys::ai00_state_free(self.raw) };
    }
}
