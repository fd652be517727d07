// Batch: many Generators on one Model advanced together, one batched forward per step
// (docs/batching.md "The frame loop").
//
// A step prepares every active member (grammar mask and sampling, or its next prompt chunk) in
// parallel on the Model's arena, runs ONE forward_batch over all of them (a decoding member feeds
// its one sampled token, a prefilling member a prompt chunk: continuous batching), then completes
// each member (text, stop strings, output parser, finish checks). Every member's tokens, deltas
// and State are exactly those of the same Generator run alone (bitwise: forward_batch equals
// forward per State, and sampling never depends on the other members), whoever joins, leaves or
// is cancelled meanwhile.
//
// Ownership: the Batch BORROWS its Generators. A Generator must be removed (or the Batch
// destroyed) before it is destroyed, and must not be driven directly (run/next/step) while it is
// a member. The Batch keeps the Model alive.
//
// Threading: one thread at a time calls add/remove/step/size. Generator::cancel() of a member may
// be called from any thread at any time: that member finishes cancelled at the next step (before
// its next token or chunk), the others continue.
//
// Errors: add() throws MismatchError (a Generator of another Model) and InvalidArgument (a
// Generator already in the batch, or one whose State a member already uses); remove() throws
// InvalidArgument (not a member). step() does not throw except std::bad_alloc: a member's failure
// finishes that member (reason error) and becomes its error event; a failed forward finishes
// every member of that forward with the error.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/pipeline/generator.h"
#include "format/delta.h"

namespace ai00::internal {

class Model;

struct BatchOptions {
  // Rows (tokens of all members) per forward pass; more rows go through in several passes.
  // Bounds scratch memory: about (20 C + F) * 4 bytes per row. 0 = 128.
  size_t pass_rows = 0;
};

// One thing that happened to a member during step(), in order per member. A member's deltas
// are exactly what Generator::step() would return (the last one carries the finish reason);
// when the member finishes, one `finished` event follows its deltas (`error` instead when it
// finished with reason error: `error` holds Generator::error_message()).
struct BatchEvent {
  enum class Kind { delta, finished, error };
  Generator* member = nullptr;
  Kind kind = Kind::delta;
  format::MessageDelta delta;                                // kind delta
  format::FinishReason reason = format::FinishReason::stop;  // finished / error
  std::string error;                                         // kind error
};

struct BatchStepResult {
  std::vector<BatchEvent> events;
  size_t steps = 0;           // batched forwards run by this call (each: one pass or more)
  size_t tokens_sampled = 0;  // over all members
  size_t prompt_tokens = 0;   // prefilled over all members
  bool time_limited = false;  // stopped because the next step was predicted not to fit
};

// Predicts the time of a batched step from its rows: t(R) = fixed + per_row * R, fitted by least
// squares over the recent steps (older ones weigh less), so a step of the next size can be
// refused before it runs. Plain value; measured on this machine and Model as it runs.
//
// The fit is a mean, so half the steps would run past a budget planned on it alone: planning
// (rows_within) divides the budget by margin(), exp(2 u) where u is the recent root mean square of
// how far steps ran OVER their prediction (log of measured / predicted, only the part above 0,
// out of sample: each step against the fit before it). Steps that run under their prediction
// add nothing, so a steady machine plans on the fit; a noisy one keeps about two deviations
// spare. A step counts once the fit is a line (two row counts seen), or before that when it has
// the size of the steps measured so far (not a smaller one, which a fit of one size
// under-predicts).
//
// Past the largest step of the last kRecent, the line is not trusted alone: a step of more rows
// is predicted at no less per row than that step measured. Small steps are bound by the weight
// read, so their line is nearly flat, and a prompt chunk planned on it ran 2.7 times its
// prediction (62 rows after steps of 1 and 6); growing a step past what was measured costs a few
// frames of smaller chunks instead of a frame over the budget. One row past that step (the
// probe) is predicted at its time plus half its time per row (or the line, if higher): where one
// row takes more than half the budget (a slow machine, a large model) the full rate would keep
// every step at the size first measured, one row, and a prompt would be prefilled a row a frame
// (docs/batching.md "On a machine with AVX2 only"). Time per row does not grow with the rows, so
// the probe runs over its prediction by at most half a row's time, and the overrun enters the
// margin like any other.
class StepCostModel {
 public:
  void observe(size_t rows, double us);
  bool ready() const { return n_ > 0; }
  double predict_us(size_t rows) const;
  // The most rows a step may have so that predict_us(rows) * margin() <= us (0 when not even one
  // row fits).
  size_t rows_within(double us) const;
  double margin() const;  // >= 1, at most kMaxMargin

  static constexpr double kMaxMargin = 4.0;
  static constexpr size_t kRecent = 16;  // steps that bound the extrapolation

 private:
  double line_us(double rows) const { return fixed_ + per_row_ * rows; }
  // The largest step among the last kRecent: its rows and its mean measured time per row.
  struct Reach {
    size_t rows = 0;
    double us_per_row = 0;
  };
  Reach reach() const;

  size_t recent_rows_[kRecent] = {};  // ring of the last steps, newest at (n_ - 1) % kRecent
  double recent_us_[kRecent] = {};
  double s1_ = 0, sx_ = 0, sxx_ = 0, sy_ = 0, sxy_ = 0;  // decayed sums of 1, R, R^2, t, R t
  double fixed_ = 0, per_row_ = 0;
  bool line_ = false;        // the fit is a line (else all time per row)
  double ow_ = 0, oss_ = 0;  // decayed weight and sum of squared overruns (log ratio > 0)
  size_t n_ = 0;
};

// One member as the planner sees it (index into the caller's list).
struct StepCandidate {
  bool prefilling = false;  // its prompt is not consumed yet (else it decodes one token)
  uint64_t last_step = 0;   // serial of the step that last advanced it (0 = never)
};

// What the next batched step runs: the candidates chosen (indices, ascending) and the prompt
// chunk cap of the prefilling ones (0 = their own prefill_chunk). Empty `members`: nothing fits.
struct StepPlan {
  std::vector<size_t> members;
  size_t cap = 0;
};

// Plans the next step of Batch::step (docs/batching.md "The frame loop") for `remaining_us` of
// time budget (< 0: none). No budget: every candidate, cap 0. A budget and no measured step yet
// (cold): every candidate, one row each, which measures a step at the smallest size. Else `fit`
// = cost.rows_within(remaining_us): one row per candidate fits: all of them, the rows left split
// among the prefilling ones as their cap; it does not fit and `first`: the max(fit, 1)
// candidates advanced least recently (ties: lower index), one row each, so a frame that cannot
// hold everyone advances some and the others first in the next call; not first: nothing.
// whole_batch: a first step that cannot hold one row per candidate takes all of them anyway.
StepPlan plan_step(const std::vector<StepCandidate>& cands, const StepCostModel& cost,
                   double remaining_us, bool first, bool whole_batch = false);

class Batch {
 public:
  explicit Batch(std::shared_ptr<const Model> model, const BatchOptions& options = {});
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  void add(Generator& g);
  void remove(Generator& g);
  bool contains(const Generator& g) const;
  size_t size() const { return members_.size(); }
  const Model& model() const { return *model_; }

  // Advances the batch (docs/batching.md "The frame loop"). Repeats batched steps while some
  // member is active — not finished and, if decoding, has sampled fewer than
  // max(token_budget, 1) tokens in this call (a prefilling member is always active: its prompt
  // tokens do not count against the token budget) — and, when time_budget_us > 0, while the
  // next step is predicted to end within time_budget_us of the call's start.
  //
  // Guarantees (plan_step): (1) progress: the first step of a call always runs when a member is
  // active, even if it alone exceeds the budget — at least one member, one row; (2) every step is
  // planned to end within the budget (StepCostModel, from the steps measured so far, with its
  // margin): prefilling members get shorter chunks (never longer than their prefill_chunk) so the
  // step fits; when one row per member does not fit, the first step advances the members that
  // fit, those advanced least recently first (so over a few calls everyone advances), and a later
  // step does not start (time_limited); (3) the first step of a Batch under a time budget, before
  // any step was measured, gives every member one row; (4) with time_budget_us == 0 only the
  // token budget and the members' ends limit the call. The time is the wall clock of the whole
  // call; the prediction is an estimate, so a step can still overrun it (by more than the margin
  // allowed for, a probe one row past the largest recent step by up to half a row's time, or
  // when even one member's row does not fit).
  // whole_batch: the first step advances every active member even when one row each does not
  // fit the budget (throughput first: a server), instead of the members that fit.
  BatchStepResult step(size_t token_budget, uint64_t time_budget_us, bool whole_batch = false);

 private:
  struct Member {
    Generator* gen;
    size_t sampled = 0;      // tokens sampled in the current step() call
    bool reported = false;   // the finished/error event was emitted
    uint64_t last_step = 0;  // serial_ of the step that last advanced it (0 = never)
  };
  std::vector<size_t> active(size_t budget) const;
  void run_step(const std::vector<size_t>& act, size_t cap, BatchStepResult& r);
  void collect(Member& m, BatchStepResult& r);

  std::shared_ptr<const Model> model_;
  BatchOptions options_;
  std::vector<Member> members_;
  StepCostModel cost_;
  uint64_t serial_ = 0;  // batched steps run so far
};

}  // namespace ai00::internal
