// BatchEngine: the one thread that decodes every generation of `ai00 serve`, all of them members
// of ONE ai00::Batch on the shared Model (docs/batching.md, docs/server.md "Scheduler").
//
// A handler thread builds its Generator (no forward runs there), fills a TurnChannel with it and
// join()s; the engine thread adds the Generator to the batch between steps, steps the batch
// within a small budget (kStepTokens tokens per member, kStepTimeUs of wall time) and routes each
// event to its channel: deltas are queued for the handler (which writes SSE or waits for the
// end), and a member's end removes it from the batch, records its result and marks the channel
// done. The handler frees the Generator only after that (remove, then free).
//
// Threading (ai00.h "Batch", rule: one thread calls a batch, its members are not called meanwhile
// except ai00_generator_cancel): the engine thread is the only one that touches the Batch and,
// from join() until `done`, the Generator. The handler thread may only call Generator::cancel()
// meanwhile (any thread, any time while the Generator is alive); it reads the result fields, and
// uses the Generator again, only after `done`, which the engine sets under the channel's mutex
// after ai00_batch_remove.
#pragma once

#include <ai00/ai00.hpp>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace ai00::serve {

// The mailbox between one turn's handler thread and the engine thread.
struct TurnChannel {
  ai00::Generator* generator = nullptr;  // owned by the turn; set before join()

  std::mutex mutex;
  std::condition_variable cv;
  // Guarded by `mutex`: deltas not yet taken by the handler, then the end.
  std::deque<ai00::Delta> deltas;
  bool done = false;
  // Written by the engine before `done` is set; read by the handler after it.
  ai00::FinishReason finish = ai00::FinishReason::none;
  ai00::Message message;
  size_t completion_tokens = 0;
  std::string error;
};

struct EngineStats {
  unsigned members = 0;         // generators in the batch now
  unsigned max_members = 0;     // the most generators one batch step has advanced together
  uint64_t step_calls = 0;      // ai00_batch_step calls that advanced a member
  uint64_t steps = 0;           // batched forwards they ran
  uint64_t tokens_sampled = 0;  // over all members
  uint64_t prompt_tokens = 0;   // prompt tokens prefilled (not those a prefix-cache hit skipped)
};

class BatchEngine {
 public:
  // Budgets of one ai00_batch_step: at most this many tokens per member, and later batched steps
  // only while predicted to end within this much wall time (the first always runs, with every
  // member: whole_batch, so a big model's slow step still batches all requests). Deltas reach
  // the handlers after each call, and joins and cancels wait for its end at most.
  static constexpr uint32_t kStepTokens = 4;
  static constexpr uint64_t kStepTimeUs = 50000;

  explicit BatchEngine(const ai00::Model& model);
  // Stops the thread. Members still in the batch (there are none once every turn ended) are
  // removed and their channels finished as cancelled.
  ~BatchEngine();
  BatchEngine(const BatchEngine&) = delete;
  BatchEngine& operator=(const BatchEngine&) = delete;

  // Any thread: hands channel.generator to the engine. The channel (and the Generator) must stay
  // alive until channel.done.
  void join(TurnChannel& channel);

  EngineStats stats() const;

 private:
  void loop();
  void admit(const std::vector<TurnChannel*>& joins);
  void route(std::vector<ai00::BatchEvent>& events);
  // Removes a member from the batch and hands its result to its channel.
  void finish_member(TurnChannel& ch, ai00::FinishReason reason, const std::string& error);
  void fail_all(const std::string& error);

  ai00::Batch batch_;                                           // engine thread only
  std::unordered_map<ai00::Generator*, TurnChannel*> members_;  // engine thread only

  mutable std::mutex mutex_;  // guards what follows
  std::condition_variable wake_;
  std::vector<TurnChannel*> joining_;
  bool stopping_ = false;
  EngineStats stats_;

  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace ai00::serve
