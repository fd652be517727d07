// ai00 C++ API — Batch: many Generators of one Model advanced together, one pass over the
// weights per step (header-only RAII over ai00.h "Batch"; docs/batching.md).
//
// Every member produces exactly the tokens, deltas and State it would produce stepped alone;
// the batch only shares the matrix products. Members join (add) and leave (remove) between
// steps; step() runs batched steps within a token and a time budget and returns what happened
// to each member. The deltas of a member's events are also accumulated into its message() and
// finished(), as if the Generator had handed them out itself.
// Ownership: unique (movable). The Batch BORROWS its Generators: remove a Generator (or destroy
// the Batch) before destroying or moving it, and do not run/next/step it while it is a member
// (that throws ai00::Error with AI00_ERR_INVALID_ARGUMENT). Threading: one thread at a time;
// Generator::cancel() of a member from any thread (it finishes cancelled at the next step, the
// others continue). Errors: ai00::Error (AI00_ERR_MISMATCH for a Generator of another Model).
//
// Usage (a frame loop over many NPCs):
//
//   ai00::Batch batch(model);
//   for (auto& npc : npcs) batch.add(npc.generator);
//   while (game_running) {
//     for (const ai00::BatchEvent& e : batch.step(1, 4000)) {  // <= 1 token each, ~4 ms
//       if (e.kind == ai00::BatchEventKind::delta) show(e.generator, e.delta.text);
//     }
//   }
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/error.hpp"
#include "ai00/generator.hpp"
#include "ai00/model.hpp"

namespace ai00 {
inline namespace api {

enum class BatchEventKind : int32_t {
  delta = AI00_BATCH_EVENT_DELTA,
  finished = AI00_BATCH_EVENT_FINISHED,
  error = AI00_BATCH_EVENT_ERROR
};

// One thing that happened to a member: its next delta, or its end (finished / error).
struct BatchEvent {
  Generator* generator = nullptr;
  BatchEventKind kind = BatchEventKind::delta;
  Delta delta;                                      // delta
  FinishReason finish_reason = FinishReason::none;  // finished / error
  std::string error;                                // error: why
};

// Summary of one step() call (ai00_batch_step_result).
struct BatchStepSummary {
  uint32_t steps = 0;
  uint64_t tokens_sampled = 0;
  uint64_t prompt_tokens = 0;
  bool time_limited = false;
  uint32_t unfinished = 0;
};

class Batch {
 public:
  // pass_rows: rows per forward pass (0 = 128).
  explicit Batch(const Model& model, uint32_t pass_rows = 0) {
    ai00_batch_params p{};
    p.struct_size = sizeof p;  // this header's size (docs/abi.md "Versioned structs")
    detail::check(ai00_batch_params_default(&p));
    if (pass_rows != 0) p.pass_rows = pass_rows;
    ai00_batch* b = nullptr;
    detail::check(ai00_batch_new(&b, model.get(), &p));
    handle_.reset(b);
  }

  void add(Generator& g) {
    check(ai00_batch_add(get(), g.get()));
    members_.push_back(&g);
  }
  void remove(Generator& g) {
    check(ai00_batch_remove(get(), g.get()));
    for (size_t i = 0; i < members_.size(); ++i) {
      if (members_[i] == &g) {
        members_.erase(members_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
  }
  size_t size() const {
    size_t n = 0;
    check(ai00_batch_size(&n, get()));
    return n;
  }

  // Advances the batch within the budgets (ai00_batch_step: at least one step when a member
  // is active; time_budget_us 0 = none; whole_batch: the first step advances every active member
  // even when they do not all fit the time budget) and returns the events in order.
  std::vector<BatchEvent> step(uint32_t max_tokens, uint64_t time_budget_us = 0,
                               BatchStepSummary* summary = nullptr, bool whole_batch = false) {
    ai00_batch_step_params p{};
    p.struct_size = sizeof p;
    detail::check(ai00_batch_step_params_default(&p));
    p.max_tokens = max_tokens;
    p.time_budget_us = time_budget_us;
    p.whole_batch = whole_batch ? 1 : 0;
    Sink sink{this, {}, nullptr};
    ai00_batch_step_result r{};
    r.struct_size = sizeof r;
    const ai00_status s = ai00_batch_step(&r, get(), &p, &Sink::call, &sink);
    if (sink.error) std::rethrow_exception(sink.error);
    check(s);
    if (summary != nullptr) {
      *summary = BatchStepSummary{r.steps, r.tokens_sampled, r.prompt_tokens, r.time_limited != 0,
                                  r.unfinished};
    }
    return std::move(sink.events);
  }

  std::string last_error() const { return ai00_batch_last_error(get()); }
  ai00_batch* get() const noexcept { return handle_.get(); }

 private:
  // Trampoline from the C callback; exceptions stop at this frame.
  struct Sink {
    Batch* self;
    std::vector<BatchEvent> events;
    std::exception_ptr error;
    static int32_t call(const ai00_batch_event* e, void* user_data) noexcept {
      Sink* s = static_cast<Sink*>(user_data);
      try {
        BatchEvent ev;
        ev.generator = s->self->member(e->generator);
        ev.kind = static_cast<BatchEventKind>(e->kind);
        ev.finish_reason = static_cast<FinishReason>(e->finish_reason);
        if (ev.kind == BatchEventKind::delta) {
          ev.delta = Delta::from_c(e->delta);
          if (ev.generator != nullptr) ev.generator->take(ev.delta);
        }
        ev.error.assign(e->error ? e->error : "", e->error ? e->error_len : 0);
        s->events.push_back(std::move(ev));
        return 0;
      } catch (...) {
        s->error = std::current_exception();
        return 0;
      }
    }
  };

  Generator* member(const ai00_generator* g) const noexcept {
    for (Generator* m : members_)
      if (m->get() == g) return m;
    return nullptr;
  }
  // Like detail::check, with this batch's message.
  void check(ai00_status status) const {
    if (status == AI00_OK) return;
    const char* message = ai00_batch_last_error(get());
    throw Error(status, (message != nullptr && message[0] != '\0') ? std::string(message)
                                                                   : ai00_status_string(status));
  }

  struct Free {
    void operator()(ai00_batch* b) const noexcept { ai00_batch_free(b); }
  };
  std::unique_ptr<ai00_batch, Free> handle_;
  std::vector<Generator*> members_;
};

}  // namespace api
}  // namespace ai00
