#include "scheduler.h"

#include <algorithm>

#include "api_error.h"
#include "json_reader.h"
#include "library_error.h"

namespace ai00::serve {

Turn::~Turn() {
  if (joined_) {
    // The engine may still step the generator (run() left early, by an exception): cancel it
    // and wait until the engine has removed it from the batch, so that freeing it is ours.
    generator_->cancel();
    std::unique_lock<std::mutex> lock(channel_.mutex);
    channel_.cv.wait(lock, [&] { return channel_.done; });
  }
  generator_.reset();  // before the State it borrows
  owner_.release_slot(outcome_);
}

TurnResult Turn::run(const DeltaSink& on_delta, const TurnTick& tick) {
  using Clock = std::chrono::steady_clock;
  channel_.generator = generator_.get();
  owner_.engine_.join(channel_);
  joined_ = true;
  bool stopped = false;  // on_delta or the tick said stop: the rest of the deltas are dropped
  std::deque<ai00::Delta> got;
  Clock::time_point next_tick = Clock::now() + tick.interval;
  for (;;) {
    bool done = false;
    {
      std::unique_lock<std::mutex> lock(channel_.mutex);
      const auto ready = [&] { return channel_.done || !channel_.deltas.empty(); };
      if (tick.fn && !stopped)
        channel_.cv.wait_until(lock, next_tick, ready);
      else
        channel_.cv.wait(lock, ready);
      got.swap(channel_.deltas);
      done = channel_.done;  // every delta of the turn is queued before done
    }
    if (tick.fn && !stopped && !done && Clock::now() >= next_tick) {
      next_tick = Clock::now() + tick.interval;
      if (!tick.fn()) {
        generator_->cancel();
        stopped = true;
      }
    }
    for (const ai00::Delta& d : got) {
      if (stopped || !on_delta || on_delta(d)) continue;
      generator_->cancel();  // any thread; the engine ends the turn at its next step
      stopped = true;
    }
    got.clear();
    if (done) break;
  }
  // done: the engine has removed the generator from the batch and will not touch it again.
  TurnResult r;
  r.finish = channel_.finish;
  outcome_ = r.finish == ai00::FinishReason::cancelled ? Outcome::cancelled : Outcome::completed;
  r.message = std::move(channel_.message);
  r.prompt_tokens = prompt_tokens_;
  r.completion_tokens = channel_.completion_tokens;
  if (r.finish == ai00::FinishReason::error) r.error = channel_.error;
  return r;
}

namespace {

std::optional<ai00::PrefixCache> make_prefix_cache(uint64_t bytes) {
  if (bytes == 0) return std::nullopt;
  ai00::PrefixCacheParams p;
  p.max_bytes = bytes;  // fp32 States: a hit is bitwise the full prefill
  return ai00::PrefixCache(p);
}

}  // namespace

GenerationScheduler::GenerationScheduler(ai00::Model model, std::string config_toml,
                                         SchedulerLimits limits)
    : model_(std::move(model)),
      config_toml_(std::move(config_toml)),
      limits_(limits),
      prefix_cache_(make_prefix_cache(limits.prefix_cache_bytes)),
      engine_(model_) {}

std::optional<ai00_prefix_cache_stats> GenerationScheduler::prefix_cache_stats() const {
  if (!prefix_cache_) return std::nullopt;
  return prefix_cache_->stats();
}

ai00::ChatTemplate GenerationScheduler::make_template(const std::string& format) const {
  if (config_toml_.empty()) return ai00::ChatTemplate(format);
  return ai00::ChatTemplate::with_config(format, config_toml_);
}

void GenerationScheduler::acquire_slot() {
  std::unique_lock<std::mutex> lock(mutex_);
  const bool slot_now = waiting_.empty() && stats_.active < limits_.parallel;
  if (!slot_now && waiting_.size() >= limits_.queue) {
    ++stats_.rejected;
    throw ApiError(503,
                   "the server is busy: all " + std::to_string(limits_.parallel) +
                       " generation slots are taken and " + std::to_string(waiting_.size()) +
                       " requests wait (--queue " + std::to_string(limits_.queue) + ")",
                   "", "server_error", "queue_full");
  }
  const uint64_t ticket = next_ticket_++;
  waiting_.push_back(ticket);
  stats_.queued = static_cast<unsigned>(waiting_.size());
  // First come, first served: a ticket proceeds when it heads the line and a slot is free.
  const bool got = slot_free_.wait_for(lock, limits_.queue_timeout, [&] {
    return waiting_.front() == ticket && stats_.active < limits_.parallel;
  });
  if (!got) {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), ticket));
    stats_.queued = static_cast<unsigned>(waiting_.size());
    ++stats_.rejected;
    slot_free_.notify_all();  // the next ticket may head the line now
    throw ApiError(503, "the server is busy: no generation slot became free in time", "",
                   "server_error", "queue_timeout");
  }
  waiting_.pop_front();
  stats_.queued = static_cast<unsigned>(waiting_.size());
  ++stats_.active;
  slot_free_.notify_all();
}

void GenerationScheduler::release_slot(Turn::Outcome outcome) {
  std::lock_guard<std::mutex> lock(mutex_);
  --stats_.active;
  if (outcome == Turn::Outcome::completed) ++stats_.completed;
  if (outcome == Turn::Outcome::cancelled) ++stats_.cancelled;
  slot_free_.notify_all();
}

SchedulerStats GenerationScheduler::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::unique_ptr<Turn> GenerationScheduler::submit(const GenerationRequest& request) {
  acquire_slot();
  std::unique_ptr<Turn> turn;
  try {
    turn.reset(new Turn(*this, ai00::State(model_)));
  } catch (...) {
    release_slot(Turn::Outcome::not_run);
    throw;
  }
  build_turn(*turn, request);  // a throw destroys the Turn, which frees the slot
  return turn;
}

namespace {

// The compiled grammar of the request's constraint, if any.
std::optional<ai00::Grammar> constraint_grammar(const ai00::Model& model,
                                                const GenerationRequest& req) {
  const Constraint& c = req.constraint;
  try {
    switch (c.kind) {
      case ConstraintKind::none:
      case ConstraintKind::tool_call:  // options.tool_choice: the library's tool grammar
        return std::nullopt;
      case ConstraintKind::kbnf:
        return ai00::Grammar::kbnf(model, c.text);
      case ConstraintKind::json_schema: {
        // The compact canonical layout: a generated value has no run of whitespace to get lost in.
        ai00_schema_options o;
        ai00::detail::check(ai00_schema_options_default(&o));
        o.flexible_whitespace = 0;
        o.compact = 1;
        return ai00::Grammar::json_schema(model, c.text, &o);
      }
    }
  } catch (const ai00::Error& e) {
    throw library_error(e, c.param);
  }
  return std::nullopt;
}

}  // namespace

void GenerationScheduler::build_turn(Turn& turn, const GenerationRequest& req) {
  ai00::GenerateOptions options = req.options;
  options.prefix_cache = prefix_cache_;  // a fresh State is pristine: the cache applies
  if (!req.chat) {
    options.grammar = constraint_grammar(model_, req);
    try {
      turn.prompt_tokens_ = model_.tokenize(req.prompt).size();
      turn.generator_ = std::make_unique<ai00::Generator>(
          ai00::Generator::raw(model_, turn.state_, req.prompt, options));
    } catch (const ai00::Error& e) {
      throw library_error(e, "/prompt");
    }
    return;
  }
  std::optional<ai00::ChatTemplate> tmpl;
  try {
    tmpl.emplace(make_template(req.chat_format));
  } catch (const ai00::Error& e) {
    throw library_error(e, "/chat_format");
  }
  options.grammar = constraint_grammar(model_, req);
  // A stream sends tool-call arguments as the library parses them (OpenAI's fragments).
  options.stream_tool_calls = req.stream;
  ai00::RenderOptions render;
  render.thinking = req.thinking;
  render.tools_json = req.tools_json;
  try {
    // The prompt is rendered once here to count its tokens for `usage` (the generator renders
    // it again; rendering is cheap next to the prefill).
    turn.prompt_tokens_ =
        model_.tokenize(tmpl->render_json(req.messages_json, render).prompt).size();
    turn.generator_ = std::make_unique<ai00::Generator>(
        ai00::Generator::chat_json(model_, turn.state_, *tmpl, req.messages_json, render, options));
  } catch (const ai00::Error& e) {
    // The library's tool-choice refusals (a format without tool syntax) are the field's.
    const bool tool_choice = req.constraint.kind == ConstraintKind::tool_call &&
                             std::string(e.what()).find("tool_choice") != std::string::npos;
    throw library_error(e, tool_choice ? req.constraint.param : "/messages");
  }
}

}  // namespace ai00::serve
