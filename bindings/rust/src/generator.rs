//! `ai00_generator`: one turn on one State, streamed as deltas (pull, push or step).
use crate::prefix_cache::CacheHandle;
use crate::{check, copy_bytes, copy_cstr, owned_text, static_str, sys, ChatTemplate, Grammar,
            Model, PrefixCache, RenderOptions, Result, SamplerParams, State};
use std::any::Any;
use std::ffi::CString;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_void};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// Why a turn ended (`ai00_finish_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FinishReason {
    Stop = 0,
    Length = 1,
    ToolCalls = 2,
    Cancelled = 3,
    GrammarDone = 4,
    Error = 5,
}

impl FinishReason {
    /// `None` for `AI00_FINISH_NONE` (not finished) or an unknown value.
    pub fn from_raw(raw: i32) -> Option<FinishReason> {
        Some(match raw {
            0 => FinishReason::Stop,
            1 => FinishReason::Length,
            2 => FinishReason::ToolCalls,
            3 => FinishReason::Cancelled,
            4 => FinishReason::GrammarDone,
            5 => FinishReason::Error,
            _ => return None,
        })
    }

    /// The library's name: "stop", "length", "tool_calls", "cancelled", "grammar_done", "error".
    pub fn name(self) -> &'static str {
        let mut p: *const c_char = std::ptr::null();
        unsafe {
            sys::ai00_finish_reason_name(&mut p, self as i32);
            static_str(p)
        }
    }
}

/// A tool call as the output parser delivers it (one whole delta per call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// 0-based position of the call in the message.
    pub index: u32,
    /// "call_<8 hex>", assigned by the library.
    pub id: String,
    pub name: String,
    /// The complete `arguments` JSON text.
    pub arguments: String,
    /// False when the call turned out malformed (its raw text is then content).
    pub valid: bool,
}

/// One streamed piece of a reply (`ai00_delta`), copied out of the library. Delta kinds are
/// only ever appended to the ABI, so the enum is `#[non_exhaustive]`: match with a `_` arm.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Delta {
    Text(String),
    Reasoning(String),
    ToolCall(ToolCall),
    /// With [`crate::ParseOptions::stream_tool_calls`]: a call starts (its name is parsed);
    /// the [`Delta::ToolCall`] of the same `index` follows and stays authoritative.
    ToolCallStart { index: u32, id: String, name: String },
    /// With [`crate::ParseOptions::stream_tool_calls`]: the next piece of call `index`'s
    /// arguments JSON text; the pieces concatenate to the call's arguments.
    ToolCallArguments { index: u32, text: String },
    /// The last delta of a turn.
    Finish(FinishReason),
}

impl Delta {
    pub(crate) fn from_raw(d: &sys::ai00_delta) -> Delta {
        unsafe {
            match d.kind {
                0 => Delta::Text(copy_bytes(d.text, d.text_len)),
                1 => Delta::Reasoning(copy_bytes(d.text, d.text_len)),
                2 => Delta::ToolCall(ToolCall {
                    index: d.call,
                    id: copy_bytes(d.id, d.id_len),
                    name: copy_bytes(d.name, d.name_len),
                    arguments: copy_bytes(d.text, d.text_len),
                    valid: d.valid != 0,
                }),
                4 => Delta::ToolCallStart {
                    index: d.call,
                    id: copy_bytes(d.id, d.id_len),
                    name: copy_bytes(d.name, d.name_len),
                },
                5 => Delta::ToolCallArguments { index: d.call, text: copy_bytes(d.text, d.text_len) },
                _ => Delta::Finish(FinishReason::from_raw(d.finish_reason)
                    .unwrap_or(FinishReason::Error)),
            }
        }
    }

    pub(crate) fn empty_raw() -> sys::ai00_delta {
        let mut d: sys::ai00_delta = unsafe { std::mem::zeroed() };
        d.struct_size = std::mem::size_of::<sys::ai00_delta>() as u32;
        d
    }
}

/// How the output is constrained (`ai00_grammar_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrammarMode {
    /// Structural when tools or thinking are present.
    Automatic = 0,
    None = 1,
    Structural = 2,
    SchemaAware = 3,
}

impl GrammarMode {
    pub(crate) fn from_raw(raw: i32) -> GrammarMode {
        match raw {
            1 => GrammarMode::None,
            2 => GrammarMode::Structural,
            3 => GrammarMode::SchemaAware,
            _ => GrammarMode::Automatic,
        }
    }
}

/// Which tool calls a chat turn's tool grammar allows (`ai00_tool_choice`, OpenAI's
/// `tool_choice`). Anything but `Auto` needs tools and a grammar mode other than `None`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// The model chooses between text and tool calls (the default).
    #[default]
    Auto,
    /// No tool call: the reply is text.
    None,
    /// At least one tool call (of any of the turn's tools).
    Required,
    /// As `Required`, every call to the named tool; a name not among the turn's tools is an
    /// `InvalidArgument` error naming it.
    Named(String),
}

/// Settings of one turn (`ai00_generate_params`).
#[derive(Clone)]
pub struct GenerateParams<'g> {
    /// New tokens at most (>= 1; default 256).
    pub max_tokens: u32,
    /// Prompt tokens per forward call; cancel is checked between chunks.
    pub prefill_chunk: u32,
    /// Set the State's seed first; `None` continues the State's RNG.
    pub seed: Option<u64>,
    /// Ignored when `grammar` is set.
    pub grammar_mode: GrammarMode,
    /// A custom grammar for the reply (made from the same model).
    pub grammar: Option<&'g Grammar>,
    /// Extra stop strings, never emitted.
    pub stop_sequences: Vec<String>,
    /// A prefix-state cache: with a pristine State the turn starts from the longest cached
    /// prefix of its prompt and stores States at its end (docs/prefix-cache.md). The generator
    /// keeps the cache alive (it holds a clone of the cache's `Arc`).
    pub prefix_cache: Option<&'g PrefixCache>,
    /// Chat turns: stream each tool call as [`Delta::ToolCallStart`] and
    /// [`Delta::ToolCallArguments`] pieces before its whole [`Delta::ToolCall`]. Default false.
    pub stream_tool_calls: bool,
    /// Chat turns with tools: which tool calls the tool grammar allows. Default `Auto`.
    pub tool_choice: ToolChoice,
    /// Chat turns with tools: false allows at most one call per reply. Default true.
    pub parallel_tool_calls: bool,
}

impl Default for GenerateParams<'_> {
    fn default() -> Self {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_generate_params>::zeroed();
        let raw = unsafe {
            sys::ai00_generate_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        GenerateParams {
            max_tokens: raw.max_tokens,
            prefill_chunk: raw.prefill_chunk,
            seed: if raw.set_seed != 0 { Some(raw.seed) } else { None },
            grammar_mode: GrammarMode::from_raw(raw.grammar_mode),
            grammar: None,
            stop_sequences: Vec::new(),
            prefix_cache: None,
            stream_tool_calls: raw.stream_tool_calls != 0,
            tool_choice: ToolChoice::Auto,
            parallel_tool_calls: raw.parallel_tool_calls != 0,
        }
    }
}

struct RawGenerateParams {
    raw: sys::ai00_generate_params,
    _stops: Vec<CString>,
    _stop_ptrs: Vec<*const c_char>,
    // The named tool; the library copies it during the creation call.
    _tool_name: Option<Vec<u8>>,
}

impl GenerateParams<'_> {
    fn to_raw(&self) -> Result<RawGenerateParams> {
        let stops = self.stop_sequences.iter().map(|s| CString::new(s.as_str()))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| crate::invalid("a stop sequence contains a NUL byte"))?;
        let ptrs: Vec<*const c_char> = stops.iter().map(|s| s.as_ptr()).collect();
        let mut raw = std::mem::MaybeUninit::<sys::ai00_generate_params>::zeroed();
        unsafe {
            (*raw.as_mut_ptr()).struct_size = std::mem::size_of::<sys::ai00_generate_params>() as u32
        };
        let mut raw = unsafe {
            sys::ai00_generate_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        raw.max_tokens = self.max_tokens;
        raw.prefill_chunk = self.prefill_chunk;
        raw.set_seed = self.seed.is_some() as i32;
        raw.seed = self.seed.unwrap_or(0);
        raw.grammar_mode = self.grammar_mode as i32;
        raw.grammar = self.grammar.map_or(std::ptr::null(), |g| g.raw());
        raw.stop_sequences = if ptrs.is_empty() { std::ptr::null() } else { ptrs.as_ptr() };
        raw.n_stop_sequences = ptrs.len();
        raw.prefix_cache = self.prefix_cache.map_or(std::ptr::null_mut(), |c| c.raw() as *mut c_void);
        raw.stream_tool_calls = self.stream_tool_calls as i32;
        raw.parallel_tool_calls = self.parallel_tool_calls as i32;
        let mut tool_name = None;
        raw.tool_choice = match &self.tool_choice {
            ToolChoice::Auto => sys::AI00_TOOL_CHOICE_AUTO,
            ToolChoice::None => sys::AI00_TOOL_CHOICE_NONE,
            ToolChoice::Required => sys::AI00_TOOL_CHOICE_REQUIRED,
            ToolChoice::Named(name) => {
                let bytes = name.as_bytes().to_vec();
                raw.tool_choice_name = bytes.as_ptr() as *const c_char;
                raw.tool_choice_name_len = bytes.len();
                tool_name = Some(bytes);
                sys::AI00_TOOL_CHOICE_NAMED
            }
        };
        Ok(RawGenerateParams { raw, _stops: stops, _stop_ptrs: ptrs, _tool_name: tool_name })
    }
}

/// The generator pointer shared with [`Canceller`]s; cleared (under the lock) before the
/// generator is freed, so a cancel never reaches a freed generator.
struct CancelCell(Mutex<*mut sys::ai00_generator>);

// ai00_generator_cancel may be called from any thread while the generator is alive; the mutex
// orders it against ai00_generator_free.
unsafe impl Send for CancelCell {}
unsafe impl Sync for CancelCell {}

/// Cancels a generation from any thread (`ai00_generator_cancel`). `Send + Sync + Clone`; once
/// the generator is dropped, `cancel` does nothing.
#[derive(Clone)]
pub struct Canceller(Arc<CancelCell>);

impl Canceller {
    /// Asks the turn to stop before the next token or prefill chunk (finish `Cancelled`).
    /// Returns false when the generator is already gone.
    pub fn cancel(&self) -> bool {
        let guard = self.0 .0.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_null() {
            return false;
        }
        unsafe { sys::ai00_generator_cancel(*guard) == 0 }
    }
}

/// One turn on a borrowed [`State`]. `Send` (one thread at a time), not `Sync`; cancel from
/// other threads through a [`Canceller`]. When it is dropped the State holds every token
/// consumed so far.
pub struct Generator<'s> {
    raw: *mut sys::ai00_generator,
    cell: Arc<CancelCell>,
    // The prefix cache must outlive the generator: it is kept alive here.
    _cache: Option<Arc<CacheHandle>>,
    _state: PhantomData<&'s mut State>,
}

// One thread at a time calls a generator; it may move between threads with its State borrow.
unsafe impl Send for Generator<'_> {}

struct CallbackCtx<'a> {
    f: &'a mut dyn FnMut(&Delta) -> bool,
    panic: Option<Box<dyn Any + Send>>,
}

unsafe extern "C" fn trampoline(d: *const sys::ai00_delta, user_data: *mut c_void) -> i32 {
    let ctx = &mut *(user_data as *mut CallbackCtx);
    if ctx.panic.is_some() || d.is_null() {
        return 1;
    }
    let delta = Delta::from_raw(&*d);
    // A panic must not unwind through the library: stop the turn and re-raise after the call.
    match catch_unwind(AssertUnwindSafe(|| (ctx.f)(&delta))) {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(p) => {
            ctx.panic = Some(p);
            1
        }
    }
}

impl<'s> Generator<'s> {
    fn wrap(raw: *mut sys::ai00_generator, params: &GenerateParams) -> Generator<'s> {
        Generator { raw, cell: Arc::new(CancelCell(Mutex::new(raw))),
                    _cache: params.prefix_cache.map(|c| c.handle.clone()), _state: PhantomData }
    }

    pub(crate) fn raw_ptr(&self) -> *mut sys::ai00_generator {
        self.raw
    }

    /// A chat turn: `template` renders `conversation_json` (with tools and thinking from
    /// `render`) and parses the reply into text, reasoning and tool calls.
    pub fn chat(model: &Model, state: &'s mut State, template: &ChatTemplate,
                conversation_json: &str, render: &RenderOptions, sampler: &SamplerParams,
                params: &GenerateParams) -> Result<Generator<'s>> {
        let r = render.to_raw();
        let (s, _bias) = sampler.to_raw();
        let p = params.to_raw()?;
        let mut raw = std::ptr::null_mut();
        check(unsafe {
            sys::ai00_generator_new_chat(&mut raw, model.raw(), state.raw_mut(), template.raw(),
                                         conversation_json.as_ptr() as *const _,
                                         conversation_json.len(), &r, &s, &p.raw)
        })?;
        Ok(Generator::wrap(raw, params))
    }

    /// A raw-text turn: the prompt is fed as is; the reply is text deltas only.
    pub fn raw(model: &Model, state: &'s mut State, prompt: &str, sampler: &SamplerParams,
               params: &GenerateParams) -> Result<Generator<'s>> {
        let (s, _bias) = sampler.to_raw();
        let p = params.to_raw()?;
        let mut raw = std::ptr::null_mut();
        check(unsafe {
            sys::ai00_generator_new_raw(&mut raw, model.raw(), state.raw_mut(),
                                        prompt.as_ptr() as *const _, prompt.len(), &s, &p.raw)
        })?;
        Ok(Generator::wrap(raw, params))
    }

    /// Pull: the next delta (generating as many tokens as it takes). After `Finish`, every
    /// further call returns `Finish` again.
    pub fn next_delta(&mut self) -> Result<Delta> {
        let mut d = Delta::empty_raw();
        check(unsafe { sys::ai00_generator_next(&mut d, self.raw) })?;
        Ok(Delta::from_raw(&d))
    }

    /// An iterator of the turn's deltas, the last being `Finish`.
    pub fn deltas(&mut self) -> Deltas<'_, 's> {
        Deltas { gen: self, done: false }
    }

    /// Push: runs the turn to its end, calling `on_delta` for each delta; returning false from
    /// it stops the turn (finish `Cancelled`). A panic in `on_delta` stops the turn and is
    /// re-raised here.
    pub fn run(&mut self, mut on_delta: impl FnMut(&Delta) -> bool) -> Result<FinishReason> {
        let mut ctx = CallbackCtx { f: &mut on_delta, panic: None };
        let mut reason = -1i32;
        let status = unsafe {
            sys::ai00_generator_run(&mut reason, self.raw, Some(trampoline),
                                    &mut ctx as *mut CallbackCtx as *mut c_void)
        };
        if let Some(p) = ctx.panic.take() {
            resume_unwind(p);
        }
        check(status)?;
        Ok(FinishReason::from_raw(reason).unwrap_or(FinishReason::Error))
    }

    /// Step: samples at most `max_tokens` tokens (or runs prefill chunks); the deltas are
    /// queued for [`Generator::next_delta`] ([`Generator::pending`] says how many). Returns
    /// true once the turn has ended.
    pub fn step(&mut self, max_tokens: u32) -> Result<bool> {
        let mut finished = 0i32;
        check(unsafe {
            sys::ai00_generator_step(&mut finished, self.raw, max_tokens, None,
                                     std::ptr::null_mut())
        })?;
        Ok(finished != 0)
    }

    /// Step with the deltas passed to `on_delta` instead of queued.
    pub fn step_with(&mut self, max_tokens: u32, mut on_delta: impl FnMut(&Delta) -> bool)
                     -> Result<bool> {
        let mut ctx = CallbackCtx { f: &mut on_delta, panic: None };
        let mut finished = 0i32;
        let status = unsafe {
            sys::ai00_generator_step(&mut finished, self.raw, max_tokens, Some(trampoline),
                                     &mut ctx as *mut CallbackCtx as *mut c_void)
        };
        if let Some(p) = ctx.panic.take() {
            resume_unwind(p);
        }
        check(status)?;
        Ok(finished != 0)
    }

    /// The number of deltas queued by [`Generator::step`] and not yet taken.
    pub fn pending(&self) -> Result<usize> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_generator_pending(&mut n, self.raw) })?;
        Ok(n)
    }

    /// Requests the turn to stop (from this thread; see [`Generator::canceller`]).
    pub fn cancel(&self) -> Result<()> {
        check(unsafe { sys::ai00_generator_cancel(self.raw) })
    }

    /// A handle that cancels this turn from any thread.
    pub fn canceller(&self) -> Canceller {
        Canceller(self.cell.clone())
    }

    /// The finish reason, `None` while running.
    pub fn finish_reason(&self) -> Result<Option<FinishReason>> {
        let mut r = -1i32;
        check(unsafe { sys::ai00_generator_finish_reason(&mut r, self.raw) })?;
        Ok(FinishReason::from_raw(r))
    }

    /// The reply so far as one seed 004 message in JSON; final once finished.
    pub fn message_json(&mut self) -> Result<String> {
        owned_text(|p, len| unsafe { sys::ai00_generator_message_json(p, len, self.raw) })
    }

    /// Warnings of this turn (grammar building, the output parser).
    pub fn warnings(&self) -> Result<Vec<String>> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_generator_warning_count(&mut n, self.raw) })?;
        (0..n).map(|i| owned_text(|p, len| unsafe {
            sys::ai00_generator_warning(p, len, self.raw, i)
        })).collect()
    }

    /// The token ids sampled this turn (a final token 0 included).
    pub fn tokens(&self) -> Result<Vec<u32>> {
        let mut p: *const u32 = std::ptr::null();
        let mut n = 0usize;
        check(unsafe { sys::ai00_generator_tokens(&mut p, &mut n, self.raw) })?;
        if p.is_null() || n == 0 {
            return Ok(Vec::new());
        }
        Ok(unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
    }

    /// The last failed call on this generator, or why the turn ended with `Error`.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_generator_last_error(self.raw)) }
    }
}

impl Drop for Generator<'_> {
    fn drop(&mut self) {
        let mut guard = self.cell.0.lock().unwrap_or_else(|e| e.into_inner());
        *guard = std::ptr::null_mut();
        unsafe { sys::ai00_generator_free(self.raw) };
    }
}

/// The deltas of a turn ([`Generator::deltas`]); ends after `Finish` or an error.
pub struct Deltas<'g, 's> {
    gen: &'g mut Generator<'s>,
    done: bool,
}

impl Iterator for Deltas<'_, '_> {
    type Item = Result<Delta>;
    fn next(&mut self) -> Option<Result<Delta>> {
        if self.done {
            return None;
        }
        let d = self.gen.next_delta();
        if matches!(d, Err(_) | Ok(Delta::Finish(_))) {
            self.done = true;
        }
        Some(d)
    }
}
