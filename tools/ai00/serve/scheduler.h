// GenerationScheduler: the one component through which every generation of the server runs.
//
// submit(request) waits for a slot (at most `parallel` turns generate at once; at most `queue`
// requests wait, first come first served; more is a 503), then builds the turn on the caller's
// thread: chat template, grammar, a fresh State and a Generator on the shared Model, with the
// server's prefix-state cache in its options. Turn::run(on_delta) hands the Generator to the
// BatchEngine (batch_engine.h), whose one thread decodes every turn as a member of ONE
// ai00::Batch, and waits on the turn's channel for the deltas; on_delta returning false cancels
// the turn (ai00_generator_cancel from this thread: it finishes at the engine's next step), and
// so does an optional periodic tick returning false.
// Destroying the Turn waits for the engine to let go of the Generator, frees it, then the slot.
#pragma once

#include <ai00/ai00.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "batch_engine.h"
#include "request.h"

namespace ai00::serve {

struct SchedulerLimits {
  unsigned parallel = 4;                            // turns generating at once (--parallel)
  unsigned queue = 64;                              // requests waiting for a slot (--queue)
  std::chrono::milliseconds queue_timeout{120000};  // longest wait for a slot (then 503)
  uint64_t prefix_cache_bytes = 0;                  // the shared prefix-state cache; 0 = none
};

struct SchedulerStats {
  unsigned active = 0;     // turns holding a slot
  unsigned queued = 0;     // requests waiting for one
  uint64_t completed = 0;  // turns that ran to a finish of their own
  uint64_t cancelled = 0;  // turns stopped because the client went away
  uint64_t rejected = 0;   // requests refused because the queue was full or the wait too long
};

struct TurnResult {
  ai00::FinishReason finish = ai00::FinishReason::none;
  ai00::Message message;
  size_t prompt_tokens = 0;
  size_t completion_tokens = 0;
  std::string error;  // why, when finish is error
};

class GenerationScheduler;

// Called every `interval` while a turn runs, whatever the engine produces; false cancels the
// turn like a delta sink's false (the non-streamed path's disconnect check).
struct TurnTick {
  std::function<bool()> fn;
  std::chrono::milliseconds interval{1000};
};

class Turn {
 public:
  using DeltaSink = std::function<bool(const ai00::Delta&)>;
  ~Turn();
  Turn(const Turn&) = delete;
  Turn& operator=(const Turn&) = delete;

  // Runs the turn to its end, handing every delta to `on_delta` (the last is the finish) and,
  // if `tick.fn` is set, calling it every `tick.interval` on this thread.
  TurnResult run(const DeltaSink& on_delta, const TurnTick& tick = {});

 private:
  friend class GenerationScheduler;
  Turn(GenerationScheduler& owner, ai00::State state) : owner_(owner), state_(std::move(state)) {}
  GenerationScheduler& owner_;
  ai00::State state_;  // declared before the generator, which borrows it
  std::unique_ptr<ai00::Generator> generator_;
  size_t prompt_tokens_ = 0;
  TurnChannel channel_;  // with the engine, from run() until channel_.done
  bool joined_ = false;
  enum class Outcome { not_run, completed, cancelled } outcome_ = Outcome::not_run;
};

class GenerationScheduler {
 public:
  GenerationScheduler(ai00::Model model, std::string config_toml, SchedulerLimits limits);

  // Waits for a slot and builds the turn. Throws ApiError: 503 when the queue is full or the
  // wait times out, 400 when the library refuses the request (pointer of the field at fault).
  std::unique_ptr<Turn> submit(const GenerationRequest& request);

  SchedulerStats stats() const;
  EngineStats engine_stats() const { return engine_.stats(); }
  // The shared prefix-state cache's counters; nullopt when it is off (--prefix-cache-mb 0).
  std::optional<ai00_prefix_cache_stats> prefix_cache_stats() const;
  const ai00::Model& model() const noexcept { return model_; }
  // A chat template of `format` with the server's --config (one per request: templates keep
  // their last render and belong to one thread).
  ai00::ChatTemplate make_template(const std::string& format) const;

 private:
  friend class Turn;
  void acquire_slot();
  void release_slot(Turn::Outcome outcome);
  void build_turn(Turn& turn, const GenerationRequest& request);

  ai00::Model model_;
  std::string config_toml_;
  SchedulerLimits limits_;
  mutable std::mutex mutex_;
  std::condition_variable slot_free_;
  std::deque<uint64_t> waiting_;  // tickets in arrival order
  uint64_t next_ticket_ = 0;
  SchedulerStats stats_;
  std::optional<ai00::PrefixCache> prefix_cache_;  // outlives every Turn, so every Generator
  BatchEngine engine_;                             // last: its thread stops first
};

}  // namespace ai00::serve
