//! Safe Rust binding of libai00 — RWKV-7 on the CPU with the whole chat pipeline — over its C
//! ABI (`include/ai00/ai00.h`, whose comments are the reference for every call).
//!
//! ```no_run
//! use ai00::{ChatTemplate, Delta, Format, GenerateParams, Generator, Model, State};
//! let model = Model::load("model.gguf")?;
//! let mut state = State::new(&model)?;
//! let template = ChatTemplate::new(Format::Goose)?;
//! let conversation = r#"[{"role":"user","content":"Hi!"}]"#;
//! let mut gen = Generator::chat(&model, &mut state, &template, conversation, &Default::default(),
//!                               &Default::default(), &GenerateParams::default())?;
//! for delta in gen.deltas() {
//!     if let Delta::Text(text) = delta? { print!("{text}"); }
//! }
//! # Ok::<(), ai00::Error>(())
//! ```
//!
//! Ownership follows the header: every handle type frees its handle in `Drop`, exactly once.
//! Library-owned strings are copied into Rust `String`s before the next call on their handle.
//!
//! Threads (header rule 10): [`Model`], [`Grammar`] and [`Tokenizer`] are immutable and are
//! `Send + Sync`. [`State`], [`ChatTemplate`], [`OutputParser`] and [`Generator`] belong to one
//! thread at a time: they are `Send` but not `Sync`. [`Canceller`] (from
//! [`Generator::canceller`]) is `Send + Sync` because `ai00_generator_cancel` may be called from
//! any thread. [`PrefixCache`] is `Send + Sync` (every function on it is thread-safe) and so is
//! an opened [`StateBundle`] (immutable). A [`Batch`] is `Send`, not `Sync`, and owns its member
//! generators while they are in it (see [`Batch`]).
//!
//! These rules are checked by the compiler:
//!
//! ```compile_fail,E0277
//! fn shared<T: Sync>() {}
//! shared::<ai00::State>(); // a State belongs to one thread at a time
//! ```
//! ```compile_fail,E0277
//! fn shared<T: Sync>() {}
//! shared::<ai00::Generator<'static>>(); // so does a Generator
//! ```
//! ```compile_fail,E0277
//! fn shared<T: Sync>() {}
//! shared::<ai00::Batch<'static>>(); // and a Batch
//! ```
//! ```compile_fail,E0499
//! # fn f(model: &ai00::Model, template: &ai00::ChatTemplate) -> ai00::Result<()> {
//! let mut state = ai00::State::new(model)?;
//! let gen = ai00::Generator::raw(model, &mut state, "Hi", &Default::default(),
//!                                &Default::default())?;
//! state.reset()?; // the generator borrows the State until it is dropped
//! drop(gen);
//! # Ok(()) }
//! ```
//! ```
//! fn shared<T: Send + Sync>() {}
//! fn movable<T: Send>() {}
//! shared::<ai00::Model>();
//! shared::<ai00::Grammar>();
//! shared::<ai00::Tokenizer>();
//! shared::<ai00::Canceller>();
//! shared::<ai00::PrefixCache>();
//! shared::<ai00::StateBundle>();
//! movable::<ai00::Batch<'static>>();
//! movable::<ai00::State>();
//! movable::<ai00::ChatTemplate>();
//! movable::<ai00::OutputParser>();
//! movable::<ai00::Generator<'static>>();
//! ```

pub mod sys;

mod batch;
mod bundle;
mod convert;
mod generator;
mod grammar;
mod model;
mod parser;
mod prefix_cache;
mod sampler;
mod score;
mod state;
mod template;
mod tokenizer;

pub use batch::{Batch, BatchEvent, BatchParams, MemberId, Rejected, StepBudget, StepOutcome};
pub use bundle::StateBundle;
pub use prefix_cache::{PrefixCache, PrefixCacheParams, PrefixCacheStats};
pub use score::{Score, ScoreFrom};
pub use convert::{convert, convert_with_progress, ConvertParams, FileFormat, Limits,
                  WeightType};
pub use generator::{Canceller, Deltas, Delta, FinishReason, GenerateParams, Generator, ToolChoice,
                    GrammarMode, ToolCall};
pub use grammar::{CheckResult, CheckVerdict, Grammar, GrammarParams, SchemaOptions,
                  ThinkingStart, ToolGrammarParams};
pub use model::{Activations, Model, ModelInfo, ModelParams};
pub use parser::{OutputParser, ParseOptions};
pub use sampler::{SamplerMethod, SamplerParams, SamplerPreset};
pub use state::State;
pub use template::{ChatTemplate, Format, RenderOptions, Thinking};
pub use tokenizer::Tokenizer;

use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_char;

/// The library's status codes (`ai00_status`); values are never renumbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    InvalidArgument,
    Io,
    ModelFile,
    Format,
    Grammar,
    Mismatch,
    Unsupported,
    Cancelled,
    BufferTooSmall,
    OutOfMemory,
    Internal,
    /// A value this binding does not know (a newer library).
    Other(i32),
}

impl Status {
    /// The status for an `ai00_status` value that is not `AI00_OK`.
    pub fn from_raw(code: i32) -> Status {
        match code {
            -1 => Status::InvalidArgument,
            -2 => Status::Io,
            -3 => Status::ModelFile,
            -4 => Status::Format,
            -5 => Status::Grammar,
            -6 => Status::Mismatch,
            -7 => Status::Unsupported,
            -8 => Status::Cancelled,
            -9 => Status::BufferTooSmall,
            -10 => Status::OutOfMemory,
            -99 => Status::Internal,
            other => Status::Other(other),
        }
    }

    /// The `ai00_status` value.
    pub fn code(self) -> i32 {
        match self {
            Status::InvalidArgument => -1,
            Status::Io => -2,
            Status::ModelFile => -3,
            Status::Format => -4,
            Status::Grammar => -5,
            Status::Mismatch => -6,
            Status::Unsupported => -7,
            Status::Cancelled => -8,
            Status::BufferTooSmall => -9,
            Status::OutOfMemory => -10,
            Status::Internal => -99,
            Status::Other(code) => code,
        }
    }

    /// The library's English description (`ai00_status_string`).
    pub fn description(self) -> &'static str {
        // Static text owned by the library, never NULL.
        unsafe { static_str(sys::ai00_status_string(self.code())) }
    }
}

/// A failed call: the status and the library's message (what and where: path, line:column,
/// JSON pointer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub status: Status,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.status.description(), self.status.code(), self.message)
    }
}

impl std::error::Error for Error {}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// The message of the calling thread's last failed call (`ai00_last_error`).
pub fn last_error() -> String {
    unsafe { copy_cstr(sys::ai00_last_error()) }
}

/// What this build can do on this CPU as one JSON object (`ai00_capabilities_json`): the ISA a
/// load would choose, the ISAs compiled in and runnable here, native int8/bf16 dot products,
/// hardware threads, weight types, containers, chat formats and grammar inputs.
pub fn capabilities_json() -> Result<String> {
    let bytes = two_call::<u8>(|len, buf, cap| unsafe {
        sys::ai00_capabilities_json(len, buf as *mut _, cap)
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The library's version, `major * 10000 + minor * 100 + patch` (`ai00_version_number`).
pub fn version() -> u32 {
    let mut v = 0u32;
    let status = unsafe { sys::ai00_version_number(&mut v) };
    debug_assert_eq!(status, 0);
    v
}

/// The library's ABI version, its SOVERSION (`ai00_abi_version`).
pub fn abi_version() -> u32 {
    let mut v = 0u32;
    let status = unsafe { sys::ai00_abi_version(&mut v) };
    debug_assert_eq!(status, 0);
    v
}

/// The header version this binding was written against (`AI00_VERSION_NUMBER`).
pub const BINDING_VERSION: u32 = 500;
/// The ABI version this binding was written against (`AI00_ABI_VERSION`).
pub const BINDING_ABI_VERSION: u32 = 0;

/// Turns a status into a `Result`; the message comes from the calling thread's slot, which the
/// failed call has just filled.
pub(crate) fn check(status: sys::ai00_status) -> Result<()> {
    if status == 0 {
        Ok(())
    } else {
        Err(Error { status: Status::from_raw(status), message: last_error() })
    }
}

/// An error raised by the binding itself (e.g. a string with an interior NUL for a C path).
pub(crate) fn invalid(message: impl Into<String>) -> Error {
    Error { status: Status::InvalidArgument, message: message.into() }
}

pub(crate) unsafe fn copy_cstr(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

pub(crate) unsafe fn static_str(p: *const c_char) -> &'static str {
    if p.is_null() {
        ""
    } else {
        CStr::from_ptr(p).to_str().unwrap_or("")
    }
}

pub(crate) unsafe fn copy_bytes(p: *const c_char, len: usize) -> String {
    if p.is_null() || len == 0 {
        String::new()
    } else {
        let bytes = std::slice::from_raw_parts(p as *const u8, len);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// A NUL-terminated copy of a path for the C side.
pub(crate) fn c_path(path: &std::path::Path) -> Result<std::ffi::CString> {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| invalid(format!("path {:?} contains a NUL byte", path)))
}

/// Optional text as (pointer, length) for a borrowed ABI string field.
pub(crate) fn opt_str(s: &Option<String>) -> (*const c_char, usize) {
    match s {
        Some(s) => (s.as_ptr() as *const c_char, s.len()),
        None => (std::ptr::null(), 0),
    }
}

/// Runs the two-call size idiom for a caller-owned buffer of `T`.
pub(crate) fn two_call<T: Copy + Default>(
    mut call: impl FnMut(*mut usize, *mut T, usize) -> sys::ai00_status,
) -> Result<Vec<T>> {
    let mut needed = 0usize;
    let status = call(&mut needed, std::ptr::null_mut(), 0);
    if status == 0 {
        return Ok(Vec::new());
    }
    if Status::from_raw(status) != Status::BufferTooSmall {
        return check(status).map(|_| Vec::new());
    }
    let mut buf = vec![T::default(); needed];
    let mut written = 0usize;
    check(call(&mut written, buf.as_mut_ptr(), buf.len()))?;
    buf.truncate(written);
    Ok(buf)
}

/// Reads a library-owned (pointer, length) string.
pub(crate) fn owned_text(
    call: impl FnOnce(*mut *const c_char, *mut usize) -> sys::ai00_status,
) -> Result<String> {
    let mut p: *const c_char = std::ptr::null();
    let mut len = 0usize;
    check(call(&mut p, &mut len))?;
    Ok(unsafe { copy_bytes(p, len) })
}
