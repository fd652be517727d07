//! `ai00_grammar`: KBNF, JSON Schema and tool-call grammars.
use crate::{check, copy_cstr, opt_str, owned_text, sys, ChatTemplate, GrammarMode, Model, Result,
            Tokenizer};

/// Compile options (`ai00_grammar_params`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GrammarParams {
    /// The start rule, or `None` for "start".
    pub start_rule: Option<String>,
}

/// JSON Schema conversion options (`ai00_schema_options`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaOptions {
    /// Unsupported keywords become warnings instead of errors.
    pub lenient: bool,
    /// No keys beyond `properties` unless additionalProperties says so (default false: JSON
    /// Schema allows any).
    pub strict_properties: bool,
    /// JSON whitespace wherever JSON allows it, as validators read it (default true); false:
    /// one canonical layout.
    pub flexible_whitespace: bool,
    /// Longest whitespace run with flexible_whitespace (<= 64; default 0 = unbounded).
    pub max_whitespace: u32,
    /// With `flexible_whitespace` false: the canonical layout without spaces,
    /// `{"a":1,"b":[1,2]}` (default false).
    pub compact: bool,
}

impl Default for SchemaOptions {
    fn default() -> Self {
        let mut raw = sys::ai00_schema_options::default();
        unsafe { sys::ai00_schema_options_default(&mut raw) };
        SchemaOptions {
            lenient: raw.lenient != 0,
            strict_properties: raw.strict_properties != 0,
            flexible_whitespace: raw.flexible_whitespace != 0,
            max_whitespace: raw.max_whitespace,
            compact: raw.compact != 0,
        }
    }
}

impl SchemaOptions {
    fn to_raw(self) -> sys::ai00_schema_options {
        let mut raw = sys::ai00_schema_options::default();
        unsafe { sys::ai00_schema_options_default(&mut raw) };
        raw.lenient = self.lenient as i32;
        raw.strict_properties = self.strict_properties as i32;
        raw.flexible_whitespace = self.flexible_whitespace as i32;
        raw.max_whitespace = self.max_whitespace;
        raw.compact = self.compact as i32;
        raw
    }
}

/// Where a reply starts relative to a thinking block (`ai00_thinking_start`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingStart {
    Optional = 0,
    Forced = 1,
    ForcedPartial = 2,
}

/// Tool-call grammar options (`ai00_tool_grammar_params`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolGrammarParams {
    /// [`GrammarMode::Structural`] (default) or [`GrammarMode::SchemaAware`].
    pub level: GrammarMode,
    pub thinking_start: ThinkingStart,
    /// A text answer may also end at end of text.
    pub allow_eos_end: bool,
    /// Argument schema options (schema_aware); `None` = defaults.
    pub schema: Option<SchemaOptions>,
}

impl Default for ToolGrammarParams {
    fn default() -> Self {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_tool_grammar_params>::zeroed();
        let raw = unsafe {
            sys::ai00_tool_grammar_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        ToolGrammarParams {
            level: GrammarMode::from_raw(raw.level),
            thinking_start: ThinkingStart::Optional,
            allow_eos_end: raw.allow_eos_end != 0,
            schema: None,
        }
    }
}

/// Why [`Grammar::check`] rejected a text (`ai00_check_verdict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckVerdict {
    Accepted,
    /// `byte_offset` bytes are a valid prefix; the next byte or the end is not accepted.
    Bytes,
    /// Token `token_index` (id `token_id`, starting at `byte_offset`) is not in the mask.
    Token,
    /// Every token passed but end of text is not allowed.
    EndToken,
}

/// The outcome of [`Grammar::check`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckResult {
    pub verdict: CheckVerdict,
    pub byte_offset: u64,
    pub token_index: u64,
    pub token_id: u32,
}

/// A compiled grammar. Immutable: `Send + Sync`, shareable by any number of generators.
pub struct Grammar {
    raw: *mut sys::ai00_grammar,
}

// The header: "Immutable: any number of threads and generators may share it."
unsafe impl Send for Grammar {}
unsafe impl Sync for Grammar {}

fn tok_ptr(t: Option<&Tokenizer>) -> *const sys::ai00_tokenizer {
    t.map_or(std::ptr::null(), |t| t.raw())
}

impl Grammar {
    fn build(f: impl FnOnce(*mut *mut sys::ai00_grammar) -> sys::ai00_status) -> Result<Grammar> {
        let mut raw = std::ptr::null_mut();
        check(f(&mut raw))?;
        Ok(Grammar { raw })
    }

    /// Compiles KBNF against `model`'s vocabulary (start rule `start`), for generation.
    pub fn compile(model: &Model, kbnf: &str) -> Result<Grammar> {
        Grammar::build(|g| unsafe {
            sys::ai00_grammar_compile(g, model.raw(), kbnf.as_ptr() as *const _, kbnf.len())
        })
    }

    /// [`Grammar::from_json_schema`] with conversion options (e.g. the compact layout and
    /// strict properties for generation); bad options are [`crate::Status::InvalidArgument`].
    pub fn from_json_schema_with_options(model: &Model, schema_json: &str,
                                         options: &SchemaOptions) -> Result<Grammar> {
        let o = options.to_raw();
        Grammar::build(|g| unsafe {
            sys::ai00_grammar_from_json_schema_with_options(g, model.raw(),
                                                            schema_json.as_ptr() as *const _,
                                                            schema_json.len(), &o)
        })
    }

    /// Compiles a JSON Schema against `model`'s vocabulary, for generation.
    pub fn from_json_schema(model: &Model, schema_json: &str) -> Result<Grammar> {
        Grammar::build(|g| unsafe {
            sys::ai00_grammar_from_json_schema(g, model.raw(), schema_json.as_ptr() as *const _,
                                               schema_json.len())
        })
    }

    /// Compiles KBNF at byte level (`tokenizer` None) or against a tokenizer, for checks.
    pub fn new(tokenizer: Option<&Tokenizer>, kbnf: &str, params: &GrammarParams)
               -> Result<Grammar> {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_grammar_params>::zeroed();
        let mut raw = unsafe {
            sys::ai00_grammar_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        (raw.start_rule, raw.start_rule_len) = opt_str(&params.start_rule);
        Grammar::build(|g| unsafe {
            sys::ai00_grammar_new(g, tok_ptr(tokenizer), kbnf.as_ptr() as *const _, kbnf.len(),
                                  &raw)
        })
    }

    /// Converts a JSON Schema to KBNF and compiles it, for checks.
    pub fn new_from_json_schema(tokenizer: Option<&Tokenizer>, schema_json: &str,
                                options: &SchemaOptions) -> Result<Grammar> {
        let raw = options.to_raw();
        Grammar::build(|g| unsafe {
            sys::ai00_grammar_new_from_json_schema(g, tok_ptr(tokenizer),
                                                   schema_json.as_ptr() as *const _,
                                                   schema_json.len(), &raw)
        })
    }

    /// The tool-call grammar of `template`'s format for the tools in `tools_json`.
    pub fn new_for_tools(tokenizer: Option<&Tokenizer>, template: &ChatTemplate,
                         tools_json: &str, params: &ToolGrammarParams) -> Result<Grammar> {
        let schema = params.schema.map(SchemaOptions::to_raw);
        let mut raw = std::mem::MaybeUninit::<sys::ai00_tool_grammar_params>::zeroed();
        let mut raw = unsafe {
            sys::ai00_tool_grammar_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        raw.level = params.level as i32;
        raw.thinking_start = params.thinking_start as i32;
        raw.allow_eos_end = params.allow_eos_end as i32;
        raw.schema = schema.as_ref().map_or(std::ptr::null(), |s| s as *const _);
        Grammar::build(|g| unsafe {
            sys::ai00_grammar_new_for_tools(g, tok_ptr(tokenizer), template.raw(),
                                            tools_json.as_ptr() as *const _, tools_json.len(),
                                            &raw)
        })
    }

    /// Whether `text` is a complete sentence of the grammar.
    pub fn accepts(&self, text: &str) -> Result<bool> {
        let mut ok = 0i32;
        check(unsafe {
            sys::ai00_grammar_accepts(&mut ok, self.raw, text.as_ptr() as *const _, text.len())
        })?;
        Ok(ok != 0)
    }

    /// Checks `text` and says where it is rejected.
    pub fn check(&self, text: &str) -> Result<CheckResult> {
        let mut r = sys::ai00_grammar_check_result {
            struct_size: std::mem::size_of::<sys::ai00_grammar_check_result>() as u32,
            ..Default::default()
        };
        check(unsafe {
            sys::ai00_grammar_check(&mut r, self.raw, text.as_ptr() as *const _, text.len())
        })?;
        Ok(CheckResult {
            verdict: match r.verdict {
                0 => CheckVerdict::Accepted,
                1 => CheckVerdict::Bytes,
                2 => CheckVerdict::Token,
                _ => CheckVerdict::EndToken,
            },
            byte_offset: r.byte_offset,
            token_index: r.token_index,
            token_id: r.token_id,
        })
    }

    /// The grammar's KBNF text (converted schemas and tool grammars included).
    pub fn kbnf(&self) -> Result<String> {
        owned_text(|p, len| unsafe { sys::ai00_grammar_kbnf(p, len, self.raw) })
    }

    /// Warnings of the construction (lenient schema conversion).
    pub fn warnings(&self) -> Result<Vec<String>> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_grammar_warning_count(&mut n, self.raw) })?;
        (0..n).map(|i| owned_text(|p, len| unsafe {
            sys::ai00_grammar_warning(p, len, self.raw, i)
        })).collect()
    }

    /// The message of the last failed call on this grammar.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_grammar_last_error(self.raw)) }
    }

    pub(crate) fn raw(&self) -> *const sys::ai00_grammar {
        self.raw
    }
}

impl Drop for Grammar {
    fn drop(&mut self) {
        // Generators using it keep their own reference.
        unsafe { sys::ai00_grammar_free(self.raw) };
    }
}
