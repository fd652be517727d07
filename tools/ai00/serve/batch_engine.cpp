#include "batch_engine.h"

#include <algorithm>
#include <exception>

namespace ai00::serve {

BatchEngine::BatchEngine(const ai00::Model& model) : batch_(model), thread_([this] { loop(); }) {}

BatchEngine::~BatchEngine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void BatchEngine::join(TurnChannel& channel) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    joining_.push_back(&channel);
  }
  wake_.notify_all();
}

EngineStats BatchEngine::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void BatchEngine::loop() {
  for (;;) {
    std::vector<TurnChannel*> joins;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !joining_.empty() || !members_.empty(); });
      if (stopping_) {
        joins.swap(joining_);
        lock.unlock();
        for (TurnChannel* ch : joins) {
          // Never added: its handler may free it as soon as it is done.
          std::lock_guard<std::mutex> l(ch->mutex);
          ch->finish = ai00::FinishReason::cancelled;
          ch->done = true;
          ch->cv.notify_all();
        }
        while (!members_.empty()) {
          TurnChannel* ch = members_.begin()->second;
          finish_member(*ch, ai00::FinishReason::cancelled, "");
        }
        return;
      }
      joins.swap(joining_);
    }
    admit(joins);
    if (members_.empty()) continue;
    const auto in_step = static_cast<unsigned>(members_.size());
    std::vector<ai00::BatchEvent> events;
    ai00::BatchStepSummary summary;
    try {
      events = batch_.step(kStepTokens, kStepTimeUs, &summary, true);
    } catch (const std::exception& e) {
      // A failure of the step itself (member failures are events): end every turn with it
      // rather than retrying a batch in an unknown state.
      fail_all(std::string("batch step failed: ") + e.what());
      continue;
    }
    route(events);
    std::lock_guard<std::mutex> lock(mutex_);
    if (summary.steps > 0) {
      ++stats_.step_calls;
      stats_.max_members = std::max(stats_.max_members, in_step);
    }
    stats_.steps += summary.steps;
    stats_.tokens_sampled += summary.tokens_sampled;
    stats_.prompt_tokens += summary.prompt_tokens;
    stats_.members = static_cast<unsigned>(members_.size());
  }
}

void BatchEngine::admit(const std::vector<TurnChannel*>& joins) {
  for (TurnChannel* ch : joins) {
    try {
      batch_.add(*ch->generator);
      members_.emplace(ch->generator, ch);
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> l(ch->mutex);
      ch->finish = ai00::FinishReason::error;
      ch->error = std::string("cannot join the batch: ") + e.what();
      ch->done = true;
      ch->cv.notify_all();
    }
  }
  if (!joins.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.members = static_cast<unsigned>(members_.size());
  }
}

void BatchEngine::route(std::vector<ai00::BatchEvent>& events) {
  for (ai00::BatchEvent& e : events) {
    const auto it = members_.find(e.generator);
    if (it == members_.end()) continue;  // not ours (cannot happen: every member is)
    TurnChannel& ch = *it->second;
    if (e.kind == ai00::BatchEventKind::delta) {
      std::lock_guard<std::mutex> l(ch.mutex);
      ch.deltas.push_back(std::move(e.delta));
      ch.cv.notify_all();
    } else {
      finish_member(ch, e.finish_reason, e.error);
    }
  }
}

void BatchEngine::finish_member(TurnChannel& ch, ai00::FinishReason reason,
                                const std::string& error) {
  ai00::Generator& gen = *ch.generator;
  members_.erase(&gen);
  {
    // Counted out before the turn is done, so /health never shows a member the client has
    // already had its reply from.
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.members = static_cast<unsigned>(members_.size());
  }
  std::string why = error;
  ai00::Message message;
  size_t tokens = 0;
  try {
    batch_.remove(gen);
    // Out of the batch: this thread is still the generator's only caller until `done`.
    message = gen.message();
    tokens = gen.tokens().size();
    if (reason == ai00::FinishReason::error && why.empty()) why = gen.error_message();
  } catch (const std::exception& e) {
    reason = ai00::FinishReason::error;
    why = e.what();
  }
  std::lock_guard<std::mutex> l(ch.mutex);
  ch.finish = reason;
  ch.message = std::move(message);
  ch.completion_tokens = tokens;
  ch.error = std::move(why);
  ch.done = true;
  ch.cv.notify_all();
}

void BatchEngine::fail_all(const std::string& error) {
  while (!members_.empty())
    finish_member(*members_.begin()->second, ai00::FinishReason::error, error);
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.members = 0;
}

}  // namespace ai00::serve
