//! `ai00_output_parser`: parse a reply produced elsewhere into deltas and a message.
use crate::{check, copy_cstr, opt_str, owned_text, sys, ChatTemplate, Delta, FinishReason,
            Result, Thinking};

/// Parser options (`ai00_parse_options`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptions {
    /// The thinking level the prompt was rendered with.
    pub thinking: Thinking,
    /// JSON array of the tools the prompt offered.
    pub tools_json: Option<String>,
    /// Tool call ids are "call_<8 hex>" of (id_seed, position).
    pub id_seed: u64,
    /// Also emit [`Delta::ToolCallStart`] and [`Delta::ToolCallArguments`] as each call
    /// streams (OpenAI-style); default false.
    pub stream_tool_calls: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_parse_options>::zeroed();
        let raw = unsafe {
            sys::ai00_parse_options_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        ParseOptions { thinking: Thinking::Off, tools_json: None, id_seed: raw.id_seed,
                       stream_tool_calls: raw.stream_tool_calls != 0 }
    }
}

/// The incremental output parser of a chat format. `Send`, not `Sync` (one thread at a time).
/// It keeps its own reference to the template's format, so it does not borrow the template.
pub struct OutputParser {
    raw: *mut sys::ai00_output_parser,
}

unsafe impl Send for OutputParser {}

impl OutputParser {
    /// A parser for replies in `template`'s format.
    pub fn new(template: &ChatTemplate, options: &ParseOptions) -> Result<OutputParser> {
        let mut o = std::mem::MaybeUninit::<sys::ai00_parse_options>::zeroed();
        let mut o = unsafe {
            sys::ai00_parse_options_default(o.as_mut_ptr());
            o.assume_init()
        };
        o.thinking = options.thinking as i32;
        (o.tools_json, o.tools_json_len) = opt_str(&options.tools_json);
        o.id_seed = options.id_seed;
        o.stream_tool_calls = options.stream_tool_calls as i32;
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::ai00_output_parser_new(&mut raw, template.raw(), &o) })?;
        Ok(OutputParser { raw })
    }

    /// Feeds output text (chunks of any size); returns the number of queued deltas.
    pub fn push(&mut self, text: &str) -> Result<usize> {
        let mut pending = 0usize;
        check(unsafe {
            sys::ai00_output_parser_push(&mut pending, self.raw, text.as_ptr() as *const _,
                                         text.len())
        })?;
        Ok(pending)
    }

    /// Ends the output; the last queued delta is `Finish`.
    pub fn finish(&mut self, reason: FinishReason) -> Result<()> {
        check(unsafe { sys::ai00_output_parser_finish(self.raw, reason as i32) })
    }

    /// The number of queued deltas.
    pub fn pending(&self) -> Result<usize> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_output_parser_pending(&mut n, self.raw) })?;
        Ok(n)
    }

    /// Takes the oldest queued delta, or `None` when none is queued.
    pub fn next_delta(&mut self) -> Result<Option<Delta>> {
        if self.pending()? == 0 {
            return Ok(None);
        }
        let mut d = Delta::empty_raw();
        check(unsafe { sys::ai00_output_parser_next(&mut d, self.raw) })?;
        Ok(Some(Delta::from_raw(&d)))
    }

    /// Takes every queued delta.
    pub fn drain(&mut self) -> Result<Vec<Delta>> {
        let mut out = Vec::new();
        while let Some(d) = self.next_delta()? {
            out.push(d);
        }
        Ok(out)
    }

    /// The finish reason, `None` before [`OutputParser::finish`].
    pub fn finish_reason(&self) -> Result<Option<FinishReason>> {
        let mut r = -1i32;
        check(unsafe { sys::ai00_output_parser_finish_reason(&mut r, self.raw) })?;
        Ok(FinishReason::from_raw(r))
    }

    /// The parsed message as seed 004 JSON (only after finish).
    pub fn message_json(&mut self) -> Result<String> {
        owned_text(|p, len| unsafe { sys::ai00_output_parser_message_json(p, len, self.raw) })
    }

    /// Warnings of the parse (known after finish).
    pub fn warnings(&self) -> Result<Vec<String>> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_output_parser_warning_count(&mut n, self.raw) })?;
        (0..n).map(|i| owned_text(|p, len| unsafe {
            sys::ai00_output_parser_warning(p, len, self.raw, i)
        })).collect()
    }

    /// The message of the last failed call on this parser.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_output_parser_last_error(self.raw)) }
    }
}

impl Drop for OutputParser {
    fn drop(&mut self) {
        unsafe { sys::ai00_output_parser_free(self.raw) };
    }
}
