// Batch: prepare all members in parallel, one forward_batch, complete all (batch.h).
#include "core/pipeline/batch.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <limits>
#include <new>
#include <utility>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"

namespace ai00::internal {

namespace {

constexpr size_t kDefaultPassRows = 128;
constexpr double kDecay = 0.7;  // weight of the older steps in the cost fit, per new step
// Weight of the older overruns in the margin, per new step: about the last ten steps count.
constexpr double kMarginDecay = 0.9;

double elapsed_us(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - since)
      .count();
}

// Whether a member's prompt is not consumed yet (it advances by prompt chunks, not tokens).
bool prefilling(const Generator& g) {
  return g.prompt_tokens_processed() < g.prompt_tokens().size();
}

}  // namespace

// Weighted least squares of t = fixed + per_row * R. With one distinct row count the line is
// undetermined: then the whole time is charged per row (fixed 0), which over-predicts larger
// steps — the safe side for a budget. The overrun is taken against the fit before this step.
void StepCostModel::observe(size_t rows, double us) {
  // A residual needs a prediction to trust: the line, or without one (all time per row) a step of
  // the size measured so far (a steady batch), not a smaller one it would under-predict, or the
  // probe one row past the reach (predict_us), whose overrun the margin must see.
  const double x = static_cast<double>(std::max<size_t>(rows, 1));
  const bool probe = n_ > 0 && std::max<size_t>(rows, 1) == reach().rows + 1;
  if (line_ || probe || (n_ > 0 && std::abs(x - sx_ / s1_) < 0.5)) {
    const double predicted = predict_us(rows);
    const double over = predicted > 0 && us > predicted ? std::log(us / predicted) : 0.0;
    ow_ = ow_ * kMarginDecay + 1, oss_ = oss_ * kMarginDecay + over * over;
  }
  recent_rows_[n_ % kRecent] = std::max<size_t>(rows, 1);
  recent_us_[n_ % kRecent] = us;
  s1_ = s1_ * kDecay + 1, sx_ = sx_ * kDecay + x, sxx_ = sxx_ * kDecay + x * x;
  sy_ = sy_ * kDecay + us, sxy_ = sxy_ * kDecay + x * us;
  ++n_;
  const double det = s1_ * sxx_ - sx_ * sx_;
  line_ = det > 1e-6 * s1_ * sxx_;
  if (line_) {
    per_row_ = (s1_ * sxy_ - sx_ * sy_) / det;
    fixed_ = (sy_ - per_row_ * sx_) / s1_;
  }
  if (!line_ || per_row_ <= 0 || fixed_ < 0) {
    per_row_ = sy_ / sx_, fixed_ = 0, line_ = false;
  }
}

StepCostModel::Reach StepCostModel::reach() const {
  Reach r;
  double sum = 0;
  size_t count = 0;
  for (size_t i = 0; i < std::min(n_, kRecent); ++i) {
    if (recent_rows_[i] > r.rows) r.rows = recent_rows_[i], sum = 0, count = 0;
    if (recent_rows_[i] == r.rows) sum += recent_us_[i], ++count;
  }
  if (count > 0) r.us_per_row = sum / static_cast<double>(count) / static_cast<double>(r.rows);
  return r;
}

double StepCostModel::predict_us(size_t rows) const {
  const double line = line_us(static_cast<double>(rows));
  const Reach most = reach();
  if (rows <= most.rows) return line;
  if (rows == most.rows + 1) {  // the probe row (batch.h): without a line, the fit is the reach
    const double probe = most.us_per_row * (static_cast<double>(most.rows) + 0.5);
    return line_ ? std::max(line, probe) : probe;
  }
  return std::max(line, most.us_per_row * static_cast<double>(rows));
}

double StepCostModel::margin() const {
  if (ow_ <= 0) return 1.0;
  return std::min(kMaxMargin, std::exp(2.0 * std::sqrt(oss_ / ow_)));
}

size_t StepCostModel::rows_within(double us) const {
  us /= margin();
  if (us <= fixed_) return 0;
  size_t by_line = std::numeric_limits<size_t>::max();
  if (per_row_ > 0) {
    const double r = (us - fixed_) / per_row_ + 1e-9;  // 9.9999999 rows is 10
    if (r < 1e15) by_line = static_cast<size_t>(r);
  }
  const Reach most = reach();
  size_t rows = by_line;
  if (by_line > most.rows) {
    // Past the reach, predict_us is also bounded by the reach's time per row.
    if (most.us_per_row <= 0) return by_line;
    const double r = us / most.us_per_row + 1e-9;
    const size_t by_reach = r >= 1e15 ? by_line : static_cast<size_t>(r);
    rows = std::max(most.rows, std::min(by_line, by_reach));
  }
  // Held at the reach: one row more when the probe's price fits (predict_us, batch.h).
  if (most.rows > 0 && rows == most.rows && predict_us(rows + 1) <= us) return rows + 1;
  return rows;
}

StepPlan plan_step(const std::vector<StepCandidate>& cands, const StepCostModel& cost,
                   double remaining_us, bool first, bool whole_batch) {
  StepPlan plan;
  const size_t n = cands.size();
  if (remaining_us < 0 || !cost.ready()) {
    for (size_t i = 0; i < n; ++i) plan.members.push_back(i);
    plan.cap = remaining_us < 0 ? 0 : 1;  // cold: the smallest step, to measure one
    return plan;
  }
  const size_t fit = cost.rows_within(remaining_us);
  if (fit >= n) {
    size_t prefilling = 0;
    for (const StepCandidate& c : cands) prefilling += c.prefilling ? 1 : 0;
    for (size_t i = 0; i < n; ++i) plan.members.push_back(i);
    if (prefilling > 0) plan.cap = std::max<size_t>(1, (fit - (n - prefilling)) / prefilling);
    return plan;
  }
  if (!first) return plan;
  plan.cap = 1;
  if (whole_batch) {
    for (size_t i = 0; i < n; ++i) plan.members.push_back(i);
    return plan;
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  const size_t k = std::max<size_t>(fit, 1);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](size_t a, size_t b) {
                      if (cands[a].last_step != cands[b].last_step) {
                        return cands[a].last_step < cands[b].last_step;
                      }
                      return a < b;
                    });
  plan.members.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
  std::sort(plan.members.begin(), plan.members.end());
  return plan;
}

Batch::Batch(std::shared_ptr<const Model> model, const BatchOptions& options)
    : model_(std::move(model)), options_(options) {
  if (!model_) throw InvalidArgument("Batch: model is null");
  if (options_.pass_rows == 0) options_.pass_rows = kDefaultPassRows;
}

bool Batch::contains(const Generator& g) const {
  return std::any_of(members_.begin(), members_.end(),
                     [&](const Member& m) { return m.gen == &g; });
}

void Batch::add(Generator& g) {
  if (&g.model() != model_.get()) {
    throw MismatchError("Batch::add: the generator runs on another model than the batch");
  }
  for (size_t i = 0; i < members_.size(); ++i) {
    if (members_[i].gen == &g) {
      throw InvalidArgument("Batch::add: the generator is already member " + std::to_string(i));
    }
    if (&members_[i].gen->state() == &g.state()) {
      throw InvalidArgument("Batch::add: member " + std::to_string(i) +
                            " already runs on this generator's State");
    }
  }
  members_.push_back({&g});
}

void Batch::remove(Generator& g) {
  auto it =
      std::find_if(members_.begin(), members_.end(), [&](const Member& m) { return m.gen == &g; });
  if (it == members_.end()) throw InvalidArgument("Batch::remove: the generator is not a member");
  members_.erase(it);
}

// Members that take part in the next step: not finished, and below the token budget when
// decoding (a prefilling member has sampled nothing yet in this turn's remaining prompt).
std::vector<size_t> Batch::active(size_t budget) const {
  std::vector<size_t> act;
  for (size_t i = 0; i < members_.size(); ++i) {
    const Member& m = members_[i];
    if (m.gen->finished()) continue;
    if (prefilling(*m.gen) || m.sampled < budget || m.gen->cancel_requested()) act.push_back(i);
  }
  return act;
}

// Prepare in parallel, one forward_batch, complete in parallel, then the members' events.
void Batch::run_step(const std::vector<size_t>& act, size_t cap, BatchStepResult& r) {
  std::vector<Generator::Work> work(act.size());
  const auto each = [&](const std::function<void(size_t)>& f) {
    model_->execute([&] {
      model_->parallel_blocks(static_cast<int64_t>(act.size()), 1, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) f(static_cast<size_t>(i));
      });
    });
  };
  // The whole step is timed (masks and sampling included), not only the forward: the budget
  // is wall-clock time of the caller's frame.
  const auto t0 = std::chrono::steady_clock::now();
  each([&](size_t i) { work[i] = members_[act[i]].gen->prepare(cap); });
  std::vector<BatchSegment> segs;
  std::vector<size_t> fed;  // indices into act of the members in segs
  for (size_t i = 0; i < act.size(); ++i) {
    const Generator::Work& w = work[i];
    members_[act[i]].sampled += w.sampled;
    r.tokens_sampled += w.sampled;
    if (w.n == 0) continue;
    if (w.prefill) r.prompt_tokens += w.n;
    segs.push_back({&members_[act[i]].gen->state(), w.tokens, w.n, w.logits, false});
    fed.push_back(i);
  }
  if (!segs.empty()) {
    ForwardOptions fo;
    fo.chunk = options_.pass_rows;
    bool ok = true;
    try {
      forward_batch(*model_, segs, fo);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      ok = false;
      for (size_t i : fed) members_[act[i]].gen->fail_work(e);
    }
    if (ok) each([&](size_t i) { members_[act[i]].gen->complete(work[i]); });
    size_t rows = 0;
    for (const BatchSegment& s : segs) rows += s.n;
    cost_.observe(rows, elapsed_us(t0));
  }
  ++r.steps;
  ++serial_;
  for (size_t i : act) {
    members_[i].last_step = serial_;
    collect(members_[i], r);
  }
}

void Batch::collect(Member& m, BatchStepResult& r) {
  for (format::MessageDelta& d : m.gen->take_deltas()) {
    BatchEvent ev;
    ev.member = m.gen;
    ev.delta = std::move(d);
    r.events.push_back(std::move(ev));
  }
  if (!m.gen->finished() || m.reported) return;
  m.reported = true;
  BatchEvent ev;
  ev.member = m.gen;
  ev.reason = m.gen->finish_reason();
  ev.kind = ev.reason == format::FinishReason::error ? BatchEvent::Kind::error
                                                     : BatchEvent::Kind::finished;
  if (ev.kind == BatchEvent::Kind::error) ev.error = m.gen->error_message();
  r.events.push_back(std::move(ev));
}

BatchStepResult Batch::step(size_t token_budget, uint64_t time_budget_us, bool whole_batch) {
  const auto start = std::chrono::steady_clock::now();
  const size_t budget = std::max<size_t>(1, token_budget);
  BatchStepResult r;
  for (Member& m : members_) {
    m.sampled = 0;
    collect(m, r);  // deltas queued before it joined, and an end not yet reported
  }
  while (true) {
    const std::vector<size_t> act = active(budget);
    if (act.empty()) break;
    const bool first = r.steps == 0;
    double remaining = -1.0;  // no time budget
    if (time_budget_us > 0) {
      remaining = std::max(0.0, static_cast<double>(time_budget_us) - elapsed_us(start));
      if (!first && remaining <= 0.0) {
        r.time_limited = true;
        break;
      }
    }
    std::vector<StepCandidate> cands(act.size());
    for (size_t i = 0; i < act.size(); ++i) {
      cands[i].prefilling = prefilling(*members_[act[i]].gen);
      cands[i].last_step = members_[act[i]].last_step;
    }
    const StepPlan plan = plan_step(cands, cost_, remaining, first, whole_batch);
    if (plan.members.empty()) {
      r.time_limited = true;
      break;
    }
    std::vector<size_t> run(plan.members.size());
    for (size_t i = 0; i < run.size(); ++i) run[i] = act[plan.members[i]];
    run_step(run, plan.cap, r);
  }
  return r;
}

}  // namespace ai00::internal
