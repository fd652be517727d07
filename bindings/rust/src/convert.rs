//! `ai00_model_convert`: rewrite a weight file as GGUF or ai00 safetensors, and the
//! process-wide resource limits (`ai00_limits`).
use crate::{c_path, check, sys, Result};
use std::any::Any;
use std::os::raw::c_void;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Weight type of a converted file (`ai00_weight_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightType {
    F32 = 0,
    F16 = 1,
    BF16 = 2,
    Q8_0 = 3,
    Q4_0 = 4,
    Q4_1 = 5,
    Q5_0 = 6,
    Q5_1 = 7,
}

/// Container of a converted file (`ai00_file_format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    Gguf = 0,
    /// F32, F16 and BF16 only.
    Safetensors = 1,
}

/// Conversion options (`ai00_convert_params`); the progress callback is an argument of
/// [`convert_with_progress`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertParams {
    pub weight_type: WeightType,
    pub file_format: FileFormat,
    /// Replace an existing output file (default false: refuse with [`crate::Status::Io`]).
    pub overwrite: bool,
    /// A vocabulary for a source without one.
    pub vocab_path: Option<PathBuf>,
}

impl Default for ConvertParams {
    fn default() -> Self {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_convert_params>::zeroed();
        let raw = unsafe {
            sys::ai00_convert_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        ConvertParams {
            weight_type: match raw.weight_type {
                0 => WeightType::F32,
                2 => WeightType::BF16,
                3 => WeightType::Q8_0,
                4 => WeightType::Q4_0,
                5 => WeightType::Q4_1,
                6 => WeightType::Q5_0,
                7 => WeightType::Q5_1,
                _ => WeightType::F16,
            },
            file_format: if raw.file_format == 1 { FileFormat::Safetensors } else { FileFormat::Gguf },
            overwrite: raw.overwrite != 0,
            vocab_path: None,
        }
    }
}

/// Converts the weight file `path_in` into `path_out` (written to a temporary file and renamed
/// into place, so `path_out` never holds a partial file).
pub fn convert(path_in: impl AsRef<Path>, path_out: impl AsRef<Path>, params: &ConvertParams)
               -> Result<()> {
    convert_impl(path_in.as_ref(), path_out.as_ref(), params, None)
}

/// [`convert`] with a progress callback `(done, total)` in bytes of tensor data, called on
/// this thread; returning false stops the conversion ([`crate::Status::Cancelled`], nothing
/// written). A panic in the callback stops the conversion and is re-raised here.
pub fn convert_with_progress(path_in: impl AsRef<Path>, path_out: impl AsRef<Path>,
                             params: &ConvertParams,
                             mut progress: impl FnMut(u64, u64) -> bool) -> Result<()> {
    convert_impl(path_in.as_ref(), path_out.as_ref(), params, Some(&mut progress))
}

pub(crate) struct ProgressCtx<'a> {
    pub(crate) f: &'a mut dyn FnMut(u64, u64) -> bool,
    pub(crate) panic: Option<Box<dyn Any + Send>>,
}

// Shared by convert_with_progress and Model::load_with_progress (one ai00_progress_callback).
pub(crate) unsafe extern "C" fn progress_trampoline(done: u64, total: u64, user_data: *mut c_void) -> i32 {
    let ctx = &mut *(user_data as *mut ProgressCtx);
    if ctx.panic.is_some() {
        return 1;
    }
    // A panic must not unwind through the library: stop and re-raise after the call.
    match catch_unwind(AssertUnwindSafe(|| (ctx.f)(done, total))) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(p) => {
            ctx.panic = Some(p);
            1
        }
    }
}

fn convert_impl(path_in: &Path, path_out: &Path, params: &ConvertParams,
                progress: Option<&mut dyn FnMut(u64, u64) -> bool>) -> Result<()> {
    let cin = c_path(path_in)?;
    let cout = c_path(path_out)?;
    let vocab = params.vocab_path.as_deref().map(c_path).transpose()?;
    let mut raw = std::mem::MaybeUninit::<sys::ai00_convert_params>::zeroed();
    let mut raw = unsafe {
        sys::ai00_convert_params_default(raw.as_mut_ptr());
        raw.assume_init()
    };
    raw.weight_type = params.weight_type as i32;
    raw.file_format = params.file_format as i32;
    raw.overwrite = params.overwrite as i32;
    raw.vocab_path = vocab.as_ref().map_or(std::ptr::null(), |v| v.as_ptr());
    let mut ctx = progress.map(|f| ProgressCtx { f, panic: None });
    if let Some(ctx) = ctx.as_mut() {
        raw.progress = Some(progress_trampoline);
        raw.user_data = ctx as *mut ProgressCtx as *mut c_void;
    }
    let status = unsafe {
        sys::ai00_model_convert(cin.as_ptr(), sys::AI00_NUL_TERMINATED, cout.as_ptr(),
                                sys::AI00_NUL_TERMINATED, &raw)
    };
    if let Some(p) = ctx.and_then(|c| c.panic) {
        resume_unwind(p);
    }
    check(status)
}

/// The process-wide resource limits (`ai00_limits`): every parser, compiler and loader checks
/// them before the work they bound. Zero is never valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Nesting of grammar groups, JSON arrays/objects, pickle MARKs (default 256, <= 1000).
    pub max_nesting_depth: u32,
    /// Model threads (default 1024).
    pub max_threads: u32,
    /// DFA states of one grammar (default 50,000).
    pub max_grammar_states: u64,
    /// NFA states of one grammar terminal (default 200,000).
    pub max_nfa_states: u64,
    /// One text input (default 64 MiB).
    pub max_input_bytes: u64,
    /// One file the library opens (default 1 TiB).
    pub max_file_bytes: u64,
    /// One KBNF literal, regex or #substrs text (default 1 MiB).
    pub max_string_bytes: u64,
    /// Tokens of one prompt or generation (default 16 Mi).
    pub max_tokens: u64,
}

impl Limits {
    fn from_raw(r: &sys::ai00_limits) -> Limits {
        Limits {
            max_nesting_depth: r.max_nesting_depth,
            max_threads: r.max_threads,
            max_grammar_states: r.max_grammar_states,
            max_nfa_states: r.max_nfa_states,
            max_input_bytes: r.max_input_bytes,
            max_file_bytes: r.max_file_bytes,
            max_string_bytes: r.max_string_bytes,
            max_tokens: r.max_tokens,
        }
    }

    fn empty_raw() -> sys::ai00_limits {
        sys::ai00_limits {
            struct_size: std::mem::size_of::<sys::ai00_limits>() as u32,
            ..Default::default()
        }
    }

    /// The limits in force (`ai00_limits_get`).
    pub fn get() -> Result<Limits> {
        let mut raw = Limits::empty_raw();
        check(unsafe { sys::ai00_limits_get(&mut raw) })?;
        Ok(Limits::from_raw(&raw))
    }

    /// Replaces the process-wide limits for calls that start afterwards, on every thread
    /// (`ai00_limits_set`). A zero field or a nesting depth above 1000 is
    /// [`crate::Status::InvalidArgument`] and nothing changes.
    pub fn set(&self) -> Result<()> {
        let mut raw = Limits::empty_raw();
        check(unsafe { sys::ai00_limits_default(&mut raw) })?;
        raw.max_nesting_depth = self.max_nesting_depth;
        raw.max_threads = self.max_threads;
        raw.max_grammar_states = self.max_grammar_states;
        raw.max_nfa_states = self.max_nfa_states;
        raw.max_input_bytes = self.max_input_bytes;
        raw.max_file_bytes = self.max_file_bytes;
        raw.max_string_bytes = self.max_string_bytes;
        raw.max_tokens = self.max_tokens;
        check(unsafe { sys::ai00_limits_set(&raw) })
    }
}

impl Default for Limits {
    /// The documented defaults (`ai00_limits_default`).
    fn default() -> Self {
        let mut raw = Limits::empty_raw();
        unsafe { sys::ai00_limits_default(&mut raw) };
        Limits::from_raw(&raw)
    }
}
