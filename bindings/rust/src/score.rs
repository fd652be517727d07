//! Option scoring (`ai00_state_score_options`, `ai00_state_score_texts`).
use crate::{check, sys, Model, Result, State};
use std::os::raw::c_char;

/// Where the first candidate token's probabilities come from.
#[derive(Debug, Clone, Copy)]
pub enum ScoreFrom<'a> {
    /// Tokens fed to a copy of the State before the candidates (e.g. the player's line).
    Context(&'a [u32]),
    /// The State's last logits (n_vocab values, as [`State::eval`] returned them).
    Logits(&'a [f32]),
}

/// One candidate's score: natural-log probability of its tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    pub total_logprob: f64,
    pub mean_logprob: f64,
    pub n_tokens: u64,
}

fn params(from: ScoreFrom) -> sys::ai00_score_params {
    let mut p: sys::ai00_score_params = unsafe { std::mem::zeroed() };
    p.struct_size = std::mem::size_of::<sys::ai00_score_params>() as u32;
    unsafe { sys::ai00_score_params_default(&mut p) };
    match from {
        ScoreFrom::Context(c) => {
            p.context = c.as_ptr();
            p.n_context = c.len();
        }
        ScoreFrom::Logits(l) => {
            p.logits = l.as_ptr();
            p.n_logits = l.len();
        }
    }
    p
}

fn scores(out: Vec<sys::ai00_option_score>) -> Vec<Score> {
    out.into_iter().map(|o| Score { total_logprob: o.total_logprob, mean_logprob: o.mean_logprob,
                                    n_tokens: o.n_tokens }).collect()
}

impl State {
    /// How likely this State continues with each candidate token sequence: log-probabilities
    /// of the raw logits (no sampler setting or grammar applies). The State is not changed (it
    /// is borrowed shared). No candidates, an empty one or an id out of range is
    /// `InvalidArgument`; a State of another model `Mismatch`.
    pub fn score_options(&self, model: &Model, candidates: &[&[u32]], from: ScoreFrom)
                         -> Result<Vec<Score>> {
        let p = params(from);
        let ptrs: Vec<*const u32> = candidates.iter().map(|c| c.as_ptr()).collect();
        let lens: Vec<usize> = candidates.iter().map(|c| c.len()).collect();
        let mut out = vec![sys::ai00_option_score::default(); candidates.len()];
        check(unsafe {
            sys::ai00_state_score_options(out.as_mut_ptr(), out.len(), model.raw(), self.raw(),
                                          ptrs.as_ptr(), lens.as_ptr(), candidates.len(), &p)
        })?;
        Ok(scores(out))
    }

    /// [`State::score_options`] with texts, each encoded alone (a new word usually starts with
    /// a space).
    pub fn score_texts(&self, model: &Model, texts: &[&str], from: ScoreFrom)
                       -> Result<Vec<Score>> {
        let p = params(from);
        let ptrs: Vec<*const c_char> = texts.iter().map(|t| t.as_ptr() as *const c_char).collect();
        let lens: Vec<usize> = texts.iter().map(|t| t.len()).collect();
        let mut out = vec![sys::ai00_option_score::default(); texts.len()];
        check(unsafe {
            sys::ai00_state_score_texts(out.as_mut_ptr(), out.len(), model.raw(), self.raw(),
                                        ptrs.as_ptr(), lens.as_ptr(), texts.len(), &p)
        })?;
        Ok(scores(out))
    }
}
