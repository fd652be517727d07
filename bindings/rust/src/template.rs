//! `ai00_chat_template`: a chat format and its last rendered prompt.
use crate::{check, copy_cstr, opt_str, owned_text, sys, Result, SamplerParams};

/// The chat formats the library knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Ai00V1,
    Ai00V0,
    Goose,
    OpenChatML,
}

impl Format {
    /// The format's name in the ABI ("ai00-v1", ...).
    pub fn name(self) -> &'static str {
        match self {
            Format::Ai00V1 => "ai00-v1",
            Format::Ai00V0 => "ai00-v0",
            Format::Goose => "goose",
            Format::OpenChatML => "openchatml",
        }
    }

    /// Every format.
    pub const ALL: [Format; 4] = [Format::Ai00V1, Format::Ai00V0, Format::Goose,
                                  Format::OpenChatML];
}

/// Thinking effort (`ai00_thinking`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thinking {
    Off = 0,
    On = 1,
    ABit = 2,
    ALot = 3,
}

/// Render options (`ai00_render_options`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    /// End with the assistant prefix (default true).
    pub add_generation_prompt: bool,
    pub thinking: Thinking,
    /// JSON array of tools ({name, description?, parameters}).
    pub tools_json: Option<String>,
    /// Speaker name of the generated turn.
    pub assistant_name: Option<String>,
    /// OpenChatML `<|reflect|>` flag in the system message (other formats refuse it).
    pub reflect: bool,
    /// OpenChatML `<|introspect|>` flag in the system message (other formats refuse it).
    pub introspect: bool,
    /// Feed token 0 before the prompt: `Some(true)` / `Some(false)`, or `None` (default) for
    /// the template's own setting.
    pub prepend_token0: Option<bool>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_render_options>::zeroed();
        let raw = unsafe {
            sys::ai00_render_options_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        RenderOptions {
            add_generation_prompt: raw.add_generation_prompt != 0,
            thinking: Thinking::Off,
            tools_json: None,
            assistant_name: None,
            reflect: raw.reflect != 0,
            introspect: raw.introspect != 0,
            prepend_token0: match raw.prepend_token0 {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            },
        }
    }
}

impl RenderOptions {
    /// The C struct; its strings borrow `self`.
    pub(crate) fn to_raw(&self) -> sys::ai00_render_options {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_render_options>::zeroed();
        let mut raw = unsafe {
            sys::ai00_render_options_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        raw.add_generation_prompt = self.add_generation_prompt as i32;
        raw.thinking = self.thinking as i32;
        (raw.tools_json, raw.tools_json_len) = opt_str(&self.tools_json);
        (raw.assistant_name, raw.assistant_name_len) = opt_str(&self.assistant_name);
        raw.reflect = self.reflect as i32;
        raw.introspect = self.introspect as i32;
        raw.prepend_token0 = match self.prepend_token0 {
            Some(true) => 1,
            Some(false) => 0,
            None => -1,
        };
        raw
    }
}

/// A chat format plus its last render. `Send`, not `Sync` (one thread at a time; make one per
/// thread, they are cheap).
pub struct ChatTemplate {
    raw: *mut sys::ai00_chat_template,
}

unsafe impl Send for ChatTemplate {}

impl ChatTemplate {
    /// A template for one of the formats.
    pub fn new(format: Format) -> Result<ChatTemplate> {
        ChatTemplate::by_name(format.name())
    }

    /// A template by format name; an unknown name is an error listing the known ones.
    pub fn by_name(name: &str) -> Result<ChatTemplate> {
        let mut raw = std::ptr::null_mut();
        check(unsafe {
            sys::ai00_chat_template_new(&mut raw, name.as_ptr() as *const _, name.len())
        })?;
        Ok(ChatTemplate { raw })
    }

    /// A template configured by TOML text (docs/chat-formats.md "Configuration"); a TOML error
    /// is [`crate::Status::Format`] with "config:LINE:COLUMN: ...".
    pub fn with_config(format: Format, config_toml: &str) -> Result<ChatTemplate> {
        ChatTemplate::by_name_with_config(format.name(), config_toml)
    }

    /// [`ChatTemplate::with_config`] by format name.
    pub fn by_name_with_config(name: &str, config_toml: &str) -> Result<ChatTemplate> {
        let mut raw = std::ptr::null_mut();
        check(unsafe {
            sys::ai00_chat_template_new_with_config(&mut raw, name.as_ptr() as *const _,
                                                    name.len(),
                                                    config_toml.as_ptr() as *const _,
                                                    config_toml.len())
        })?;
        Ok(ChatTemplate { raw })
    }

    /// The sampling preset `name` of the template's configuration ("math", "chat",
    /// "creative", or a `[presets.NAME]` it adds); an unknown name is an error listing them.
    pub fn sampler_preset(&self, name: &str) -> Result<SamplerParams> {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_sampler_params>::zeroed();
        check(unsafe {
            sys::ai00_chat_template_sampler_preset(raw.as_mut_ptr(), self.raw,
                                                   name.as_ptr() as *const _, name.len())
        })?;
        Ok(SamplerParams::from_raw(unsafe { &raw.assume_init() }))
    }

    /// A fill-in-the-middle prompt: the model writes the middle between `prefix` and `suffix`.
    pub fn render_fim(&mut self, prefix: &str, suffix: &str) -> Result<String> {
        owned_text(|p, len| unsafe {
            sys::ai00_chat_template_render_fim(p, len, self.raw, prefix.as_ptr() as *const _,
                                               prefix.len(), suffix.as_ptr() as *const _,
                                               suffix.len())
        })
    }

    /// A multi-file sequence: the files joined by file separators, starting with one when
    /// `leading_separator` is true.
    pub fn render_files<S: AsRef<str>>(&mut self, files: &[S], leading_separator: bool)
                                       -> Result<String> {
        let ptrs: Vec<*const std::os::raw::c_char> =
            files.iter().map(|f| f.as_ref().as_ptr() as *const _).collect();
        let lens: Vec<usize> = files.iter().map(|f| f.as_ref().len()).collect();
        owned_text(|p, len| unsafe {
            sys::ai00_chat_template_render_files(p, len, self.raw, ptrs.as_ptr(), lens.as_ptr(),
                                                 files.len(), leading_separator as i32)
        })
    }

    /// A rendered conversation read back into a JSON array of seed 004 messages.
    pub fn parse_transcript(&mut self, text: &str) -> Result<String> {
        owned_text(|p, len| unsafe {
            sys::ai00_chat_template_parse_transcript(p, len, self.raw, text.as_ptr() as *const _,
                                                     text.len())
        })
    }

    /// Renders a conversation (JSON array of seed 004 messages) into a prompt.
    pub fn render(&mut self, conversation_json: &str, options: &RenderOptions) -> Result<String> {
        let opts = options.to_raw();
        owned_text(|p, len| unsafe {
            sys::ai00_chat_template_render(p, len, self.raw, conversation_json.as_ptr() as *const _,
                                           conversation_json.len(), &opts)
        })
    }

    /// The stop strings of the last render.
    pub fn stop_sequences(&self) -> Result<Vec<String>> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_chat_template_stop_count(&mut n, self.raw) })?;
        (0..n).map(|i| owned_text(|p, len| unsafe {
            sys::ai00_chat_template_stop(p, len, self.raw, i)
        })).collect()
    }

    /// The last render with the hints a constrained decoder needs, as JSON.
    pub fn last_render_json(&mut self) -> Result<String> {
        owned_text(|p, len| unsafe { sys::ai00_chat_template_last_render_json(p, len, self.raw) })
    }

    /// The message of the last failed call on this template.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_chat_template_last_error(self.raw)) }
    }

    pub(crate) fn raw(&self) -> *const sys::ai00_chat_template {
        self.raw
    }
}

impl Drop for ChatTemplate {
    fn drop(&mut self) {
        unsafe { sys::ai00_chat_template_free(self.raw) };
    }
}
