//! `ai00_sampler_params`.
use crate::{check, sys, Result};

/// Sampling methods (`ai00_sampler_method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplerMethod {
    Nucleus = 0,
    Typical = 1,
    MirostatV2 = 2,
    Greedy = 3,
}

/// The Goose presets of seed 001 (`ai00_sampler_preset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplerPreset {
    Chat = 0,
    Math = 1,
    Creative = 2,
    Ai00Server = 3,
}

/// Sampler settings; ranges are checked by the library when used.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerParams {
    pub method: SamplerMethod,
    pub temperature: f32,
    pub top_k: u32,
    pub top_p: f32,
    pub min_p: f32,
    pub typical_tau: f32,
    pub mirostat_tau: f32,
    pub mirostat_rate: f32,
    pub presence_penalty: f32,
    pub frequency_penalty: f32,
    pub penalty_decay: f32,
    pub repetition_penalty: f32,
    /// Never draw token 0 (end of text).
    pub ban_eos: bool,
    /// (token, bias) added to the logit; `f32::NEG_INFINITY` bans the token.
    pub logit_bias: Vec<(u32, f32)>,
}

impl Default for SamplerParams {
    /// The library default (the Goose "chat" preset).
    fn default() -> Self {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_sampler_params>::zeroed();
        unsafe { sys::ai00_sampler_params_default(raw.as_mut_ptr()) };
        SamplerParams::from_raw(unsafe { &raw.assume_init() })
    }
}

impl SamplerParams {
    /// One of the presets.
    pub fn preset(preset: SamplerPreset) -> Result<SamplerParams> {
        let mut raw = std::mem::MaybeUninit::<sys::ai00_sampler_params>::zeroed();
        check(unsafe { sys::ai00_sampler_params_preset(raw.as_mut_ptr(), preset as i32) })?;
        Ok(SamplerParams::from_raw(unsafe { &raw.assume_init() }))
    }

    /// Greedy decoding (argmax after penalties, mask and bias).
    pub fn greedy() -> SamplerParams {
        SamplerParams { method: SamplerMethod::Greedy, ..SamplerParams::default() }
    }

    pub(crate) fn from_raw(r: &sys::ai00_sampler_params) -> SamplerParams {
        SamplerParams {
            method: match r.method {
                1 => SamplerMethod::Typical,
                2 => SamplerMethod::MirostatV2,
                3 => SamplerMethod::Greedy,
                _ => SamplerMethod::Nucleus,
            },
            temperature: r.temperature,
            top_k: r.top_k,
            top_p: r.top_p,
            min_p: r.min_p,
            typical_tau: r.typical_tau,
            mirostat_tau: r.mirostat_tau,
            mirostat_rate: r.mirostat_rate,
            presence_penalty: r.presence_penalty,
            frequency_penalty: r.frequency_penalty,
            penalty_decay: r.penalty_decay,
            repetition_penalty: r.repetition_penalty,
            ban_eos: r.ban_eos != 0,
            logit_bias: Vec::new(),
        }
    }

    /// The C struct plus the bias array it points into (keep both alive for the call).
    pub(crate) fn to_raw(&self) -> (sys::ai00_sampler_params, Vec<sys::ai00_logit_bias>) {
        let bias: Vec<sys::ai00_logit_bias> = self.logit_bias.iter()
            .map(|&(token, bias)| sys::ai00_logit_bias { token, bias })
            .collect();
        let mut raw = std::mem::MaybeUninit::<sys::ai00_sampler_params>::zeroed();
        let mut raw = unsafe {
            sys::ai00_sampler_params_default(raw.as_mut_ptr());
            raw.assume_init()
        };
        raw.method = self.method as i32;
        raw.temperature = self.temperature;
        raw.top_k = self.top_k;
        raw.top_p = self.top_p;
        raw.min_p = self.min_p;
        raw.typical_tau = self.typical_tau;
        raw.mirostat_tau = self.mirostat_tau;
        raw.mirostat_rate = self.mirostat_rate;
        raw.presence_penalty = self.presence_penalty;
        raw.frequency_penalty = self.frequency_penalty;
        raw.penalty_decay = self.penalty_decay;
        raw.repetition_penalty = self.repetition_penalty;
        raw.ban_eos = self.ban_eos as i32;
        raw.logit_bias = if bias.is_empty() { std::ptr::null() } else { bias.as_ptr() };
        raw.n_logit_bias = bias.len();
        (raw, bias)
    }
}
