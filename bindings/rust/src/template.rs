//! `ai00_chat_template`: a chat format and its last rendered prompt.
use crate::{check, copy_cstr, opt_str, owned_text, sys, Result};

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
