//! `ai00_batch`: many generators of one model advanced together (docs/batching.md).
use crate::model::ModelHandle;
use crate::{check, copy_bytes, copy_cstr, sys, Delta, Error, FinishReason, Generator, Model,
            Result};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Identifies a member of a [`Batch`] in its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemberId(u64);

/// Settings of a batch (`ai00_batch_params`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchParams {
    /// Rows (tokens of all members) per forward pass; 0 means the default (128).
    pub pass_rows: u32,
}

impl Default for BatchParams {
    fn default() -> Self {
        let mut p = sys::ai00_batch_params {
            struct_size: std::mem::size_of::<sys::ai00_batch_params>() as u32,
            pass_rows: 0,
        };
        unsafe { sys::ai00_batch_params_default(&mut p) };
        BatchParams { pass_rows: p.pass_rows }
    }
}

/// Budgets of one [`Batch::step`] (`ai00_batch_step_params`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepBudget {
    /// Tokens sampled per member at most in this call (0 counts as 1); default 1.
    pub max_tokens: u32,
    /// Wall-clock budget of the call; `None` means only the token budget bounds it.
    pub time: Option<Duration>,
    /// The first step advances every active member even when one row each does not fit `time`
    /// (throughput first, as a server wants); default false: only the members that fit, those
    /// advanced least recently first (a frame loop).
    pub whole_batch: bool,
}

impl Default for StepBudget {
    fn default() -> Self {
        let mut p: sys::ai00_batch_step_params = unsafe { std::mem::zeroed() };
        p.struct_size = std::mem::size_of::<sys::ai00_batch_step_params>() as u32;
        unsafe { sys::ai00_batch_step_params_default(&mut p) };
        StepBudget { max_tokens: p.max_tokens,
                     time: (p.time_budget_us != 0).then(|| Duration::from_micros(p.time_budget_us)),
                     whole_batch: p.whole_batch != 0 }
    }
}

/// What happened to a member in a step. Per member, in order: its deltas (the last being
/// `Finish`), then one `Finished` or `Error`. Event kinds are only ever appended to the ABI, so
/// the enum is `#[non_exhaustive]` (a kind this binding does not know is skipped).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchEvent {
    Delta { member: MemberId, delta: Delta },
    Finished { member: MemberId, reason: FinishReason },
    /// The member finished with [`FinishReason::Error`]; `message` says why.
    Error { member: MemberId, message: String },
}

impl BatchEvent {
    /// The member the event is about.
    pub fn member(&self) -> MemberId {
        match self {
            BatchEvent::Delta { member, .. } | BatchEvent::Finished { member, .. }
            | BatchEvent::Error { member, .. } => *member,
        }
    }
}

/// What one [`Batch::step`] did, with its events.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StepOutcome {
    /// Batched forwards run (0: no member was active).
    pub steps: u32,
    pub tokens_sampled: u64,
    pub prompt_tokens: u64,
    /// Stopped because the next step was predicted not to fit the time budget.
    pub time_limited: bool,
    /// Members not finished after the call.
    pub unfinished: u32,
    pub events: Vec<BatchEvent>,
}

/// A generator the batch refused ([`Batch::add`]), handed back with the error.
pub struct Rejected<'s> {
    pub error: Error,
    pub generator: Generator<'s>,
}

impl fmt::Debug for Rejected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rejected").field("error", &self.error).finish_non_exhaustive()
    }
}

impl fmt::Display for Rejected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Rejected<'_> {}

impl From<Rejected<'_>> for Error {
    fn from(r: Rejected<'_>) -> Error {
        r.error
    }
}

/// Many [`Generator`]s of ONE model advanced together, one pass over the weights per step;
/// every member produces exactly the tokens it produces alone. `Send` (one thread at a time),
/// not `Sync`; cancel a member from any thread with its [`crate::Canceller`] (take one with
/// `batch.member(id).unwrap().canceller()`).
///
/// Ownership: the header says a batch BORROWS its generators and "a generator must be removed
/// or the batch freed before the generator is freed". This binding models that with ownership
/// and lifetimes, not `Arc`: [`Batch::add`] takes the [`Generator`] by value and
/// [`Batch::remove`] gives it back, so a member cannot be dropped, stepped alone or added twice
/// while in the batch (the compiler refuses it), and dropping the batch frees the C batch first
/// and its members after. `Batch<'s>` carries the generators' State borrow `'s`, so the States
/// outlive the batch too.
///
/// ```compile_fail,E0382
/// # fn f(model: &ai00::Model, state: &mut ai00::State) -> ai00::Result<()> {
/// let mut batch = ai00::Batch::new(model, &Default::default())?;
/// let gen = ai00::Generator::raw(model, state, "Hi", &Default::default(), &Default::default())?;
/// batch.add(gen)?;
/// batch.add(gen)?; // the same generator twice: it was moved into the batch
/// # Ok(()) }
/// ```
pub struct Batch<'s> {
    raw: *mut sys::ai00_batch,
    members: Vec<(MemberId, Generator<'s>)>,
    next_id: u64,
    _model: Arc<ModelHandle>,
}

// One thread at a time calls a batch and its members (header); it may move between threads.
unsafe impl Send for Batch<'_> {}

impl<'s> Batch<'s> {
    /// A new, empty batch on `model`.
    pub fn new(model: &Model, params: &BatchParams) -> Result<Batch<'s>> {
        let p = sys::ai00_batch_params {
            struct_size: std::mem::size_of::<sys::ai00_batch_params>() as u32,
            pass_rows: params.pass_rows,
        };
        let mut raw = std::ptr::null_mut();
        check(unsafe { sys::ai00_batch_new(&mut raw, model.raw(), &p) })?;
        Ok(Batch { raw, members: Vec::new(), next_id: 0, _model: model.handle.clone() })
    }

    /// Moves a generator into the batch. A generator of another model is refused with
    /// `Mismatch` (and handed back in the [`Rejected`]).
    pub fn add(&mut self, generator: Generator<'s>) -> std::result::Result<MemberId, Rejected<'s>> {
        if let Err(error) = check(unsafe { sys::ai00_batch_add(self.raw, generator.raw_ptr()) }) {
            return Err(Rejected { error, generator });
        }
        let id = MemberId(self.next_id);
        self.next_id += 1;
        self.members.push((id, generator));
        Ok(id)
    }

    /// Takes a member out and gives it back; it may then be stepped alone and continues exactly.
    /// An unknown id is `InvalidArgument`.
    pub fn remove(&mut self, member: MemberId) -> Result<Generator<'s>> {
        let i = self.members.iter().position(|(id, _)| *id == member).ok_or_else(|| {
            crate::invalid(format!("member {} is not in this batch", member.0))
        })?;
        check(unsafe { sys::ai00_batch_remove(self.raw, self.members[i].1.raw_ptr()) })?;
        Ok(self.members.remove(i).1)
    }

    /// A member, for its accessors (finish reason, tokens, canceller).
    pub fn member(&self, member: MemberId) -> Option<&Generator<'s>> {
        self.members.iter().find(|(id, _)| *id == member).map(|(_, g)| g)
    }

    /// A member, mutably (e.g. for its message JSON).
    pub fn member_mut(&mut self, member: MemberId) -> Option<&mut Generator<'s>> {
        self.members.iter_mut().find(|(id, _)| *id == member).map(|(_, g)| g)
    }

    /// The members' ids in the order they joined.
    pub fn members(&self) -> Vec<MemberId> {
        self.members.iter().map(|(id, _)| *id).collect()
    }

    /// The number of members (finished ones included), as the library counts them.
    pub fn len(&self) -> Result<usize> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_batch_size(&mut n, self.raw) })?;
        Ok(n)
    }

    /// Whether the batch has no member.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Advances the batch within `budget` and returns the events in order. The first step
    /// always runs when a member is active, so every call makes progress.
    pub fn step(&mut self, budget: &StepBudget) -> Result<StepOutcome> {
        let mut p: sys::ai00_batch_step_params = unsafe { std::mem::zeroed() };
        p.struct_size = std::mem::size_of::<sys::ai00_batch_step_params>() as u32;
        check(unsafe { sys::ai00_batch_step_params_default(&mut p) })?;
        p.max_tokens = budget.max_tokens;
        p.time_budget_us = budget.time.map_or(0, |t| t.as_micros().max(1) as u64);
        p.whole_batch = budget.whole_batch as i32;
        let mut r = sys::ai00_batch_step_result {
            struct_size: std::mem::size_of::<sys::ai00_batch_step_result>() as u32,
            ..Default::default()
        };
        check(unsafe { sys::ai00_batch_step(&mut r, self.raw, &p, None, std::ptr::null_mut()) })?;
        let mut n = 0usize;
        check(unsafe { sys::ai00_batch_pending(&mut n, self.raw) })?;
        let mut events = Vec::with_capacity(n);
        for _ in 0..n {
            let mut e: sys::ai00_batch_event = unsafe { std::mem::zeroed() };
            e.struct_size = std::mem::size_of::<sys::ai00_batch_event>() as u32;
            let mut has = 0i32;
            check(unsafe { sys::ai00_batch_next_event(&mut has, &mut e, self.raw) })?;
            if has == 0 {
                break;
            }
            let member = self.members.iter().find(|(_, g)| g.raw_ptr() == e.generator)
                .map(|(id, _)| *id)
                .ok_or_else(|| crate::invalid("an event of an unknown member"))?;
            events.push(match e.kind {
                sys::AI00_BATCH_EVENT_DELTA => BatchEvent::Delta { member, delta: Delta::from_raw(&e.delta) },
                sys::AI00_BATCH_EVENT_ERROR => BatchEvent::Error {
                    member,
                    message: unsafe { copy_bytes(e.error, e.error_len) },
                },
                sys::AI00_BATCH_EVENT_FINISHED => BatchEvent::Finished {
                    member,
                    reason: FinishReason::from_raw(e.finish_reason).unwrap_or(FinishReason::Error),
                },
                _ => continue,
            });
        }
        Ok(StepOutcome { steps: r.steps, tokens_sampled: r.tokens_sampled,
                         prompt_tokens: r.prompt_tokens, time_limited: r.time_limited != 0,
                         unfinished: r.unfinished, events })
    }

    /// The message of the last failed call on the batch.
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_batch_last_error(self.raw)) }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        // The batch first; the member generators are dropped after this (field drop order).
        unsafe { sys::ai00_batch_free(self.raw) };
    }
}
