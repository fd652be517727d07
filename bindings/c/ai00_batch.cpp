// Batch handle of the C ABI (ai00.h "Batch", docs/batching.md "The frame loop"): the core Batch
// over the members' core Generators, with the events flattened into ai00_batch_event records
// whose strings live in the handle until the next call on it.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "abi_generator.h"
#include "abi_internal.h"
#include "core/pipeline/batch.h"

namespace {

using ai00::internal::abi::finish_code;
using ai00::internal::abi::Flat;
using ai00::internal::abi::require;

// One event with owned strings.
struct FlatEvent {
  ai00_generator* gen = nullptr;
  int32_t kind = AI00_BATCH_EVENT_DELTA;
  int32_t finish = AI00_FINISH_NONE;
  Flat delta;
  std::string error;
};

// The first published ai00_batch_event / ai00_batch_step_result sizes.
constexpr size_t kEventV1Size = sizeof(ai00_batch_event);
constexpr size_t kResultV1Size = sizeof(ai00_batch_step_result);
// ai00_batch_step_params before whole_batch.
constexpr size_t kStepParamsV1Size = offsetof(ai00_batch_step_params, whole_batch);

}  // namespace

struct ai00_batch {
  std::shared_ptr<const ai00::internal::Model> model;
  std::unique_ptr<ai00::internal::Batch> core;
  std::vector<ai00_generator*> members;  // the handles of core's members
  std::deque<FlatEvent> queue;           // not yet taken by ai00_batch_next_event
  FlatEvent current;                     // the event handed out last (backs its strings)
  mutable ai00::internal::abi::ErrorSlot error;

  ~ai00_batch() {
    for (ai00_generator* g : members) g->batch = nullptr;
  }
  void remove(ai00_generator* g) {
    core->remove(*g->gen);
    members.erase(std::find(members.begin(), members.end(), g));
    g->batch = nullptr;
    queue.erase(
        std::remove_if(queue.begin(), queue.end(), [&](const FlatEvent& e) { return e.gen == g; }),
        queue.end());
  }
  ai00_generator* handle_of(const ai00::internal::Generator* g) const {
    for (ai00_generator* h : members)
      if (h->gen.get() == g) return h;
    throw ai00::internal::InternalError("ai00_batch: event of a generator that is not a member");
  }
};

namespace {

ai00::internal::abi::ErrorSlot* slot_of(const ai00_batch* b) { return b ? &b->error : nullptr; }

// Whole event for `f` (callbacks), its strings pointing into `f`.
ai00_batch_event event_of(const FlatEvent& f) {
  ai00_batch_event e{};
  e.struct_size = sizeof(ai00_batch_event);
  e.generator = f.gen;
  e.kind = f.kind;
  e.finish_reason = f.finish;
  if (f.kind == AI00_BATCH_EVENT_DELTA) ai00::internal::abi::fill(f.delta, &e.delta);
  e.error = f.error.c_str();
  e.error_len = f.error.size();
  return e;
}

// The core events as flat records, in order (a MessageDelta may flatten into several deltas).
std::vector<FlatEvent> flatten_events(ai00_batch& b, std::vector<ai00::internal::BatchEvent>& in) {
  std::vector<FlatEvent> out;
  for (ai00::internal::BatchEvent& e : in) {
    ai00_generator* g = b.handle_of(e.member);
    if (e.kind == ai00::internal::BatchEvent::Kind::delta) {
      std::deque<Flat> flats;
      ai00::internal::abi::flatten(e.delta, flats);
      for (Flat& f : flats) {
        FlatEvent fe;
        fe.gen = g;
        fe.delta = std::move(f);
        out.push_back(std::move(fe));
      }
      continue;
    }
    FlatEvent fe;
    fe.gen = g;
    fe.finish = finish_code(e.reason);
    if (e.kind == ai00::internal::BatchEvent::Kind::error) {
      fe.kind = AI00_BATCH_EVENT_ERROR;
      fe.error = e.error;
      g->error.set(e.error);  // ai00_generator_last_error says why, as after a lone turn
    } else {
      fe.kind = AI00_BATCH_EVENT_FINISHED;
    }
    out.push_back(std::move(fe));
  }
  return out;
}

}  // namespace

namespace ai00::internal::abi {

void require_unbatched(const ai00_generator& gen, const char* function) {
  if (gen.batch != nullptr) {
    throw InvalidArgument(std::string(function) +
                          ": the generator is a member of a batch (ai00_batch_step drives it; "
                          "ai00_batch_remove it first)");
  }
}

void leave_batch(ai00_generator& gen) { gen.batch->remove(&gen); }

}  // namespace ai00::internal::abi

extern "C" {

AI00_API ai00_status ai00_batch_params_default(ai00_batch_params* out_params) {
  try {
    require(out_params, "ai00_batch_params_default", "out_params");
    *out_params = ai00_batch_params{};
    out_params->struct_size = sizeof(ai00_batch_params);
    out_params->pass_rows = 128;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_batch_step_params_default(ai00_batch_step_params* out_params) {
  try {
    require(out_params, "ai00_batch_step_params_default", "out_params");
    ai00_batch_step_params d{};
    d.struct_size = sizeof(ai00_batch_step_params);
    d.max_tokens = 1;
    d.time_budget_us = 0;
    d.whole_batch = 0;
    ai00::internal::abi::write_default(out_params, d, {kStepParamsV1Size});
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_batch_new(ai00_batch** out_batch, const ai00_model* model,
                                    const ai00_batch_params* params) {
  try {
    const char* fn = "ai00_batch_new";
    require(out_batch, fn, "out_batch");
    require(model, fn, "model");
    ai00::internal::BatchOptions o;
    if (params != nullptr) {
      ai00::internal::abi::check_struct_size(params->struct_size, sizeof(ai00_batch_params),
                                             sizeof(ai00_batch_params), fn, "ai00_batch_params");
      o.pass_rows = params->pass_rows;
    }
    auto b = std::make_unique<ai00_batch>();
    b->model = model->model;
    b->core = std::make_unique<ai00::internal::Batch>(model->model, o);
    *out_batch = b.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(model ? &model->error : nullptr);
  }
}

AI00_API ai00_status ai00_batch_free(ai00_batch* batch) {
  try {
    delete batch;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_batch_last_error(const ai00_batch* batch) {
  try {
    return batch ? batch->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_batch_add(ai00_batch* batch, ai00_generator* generator) {
  try {
    const char* fn = "ai00_batch_add";
    require(batch, fn, "batch");
    require(generator, fn, "generator");
    if (generator->batch == batch) {
      throw ai00::internal::InvalidArgument(std::string(fn) +
                                            ": the generator is already in this batch");
    }
    if (generator->batch != nullptr) {
      throw ai00::internal::InvalidArgument(std::string(fn) +
                                            ": the generator is a member of another batch");
    }
    batch->core->add(*generator->gen);  // MismatchError: another model; InvalidArgument: State
    batch->members.push_back(generator);
    generator->batch = batch;
    // Deltas queued by an earlier ai00_generator_step and not yet taken stay with the
    // generator; they are not repeated as events.
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(batch));
  }
}

AI00_API ai00_status ai00_batch_remove(ai00_batch* batch, ai00_generator* generator) {
  try {
    const char* fn = "ai00_batch_remove";
    require(batch, fn, "batch");
    require(generator, fn, "generator");
    if (generator->batch != batch) {
      throw ai00::internal::InvalidArgument(std::string(fn) +
                                            ": the generator is not a member of this batch");
    }
    batch->remove(generator);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(batch));
  }
}

AI00_API ai00_status ai00_batch_size(size_t* out_size, const ai00_batch* batch) {
  try {
    require(out_size, "ai00_batch_size", "out_size");
    require(batch, "ai00_batch_size", "batch");
    *out_size = batch->members.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(batch));
  }
}

AI00_API ai00_status ai00_batch_step(ai00_batch_step_result* out_result, ai00_batch* batch,
                                     const ai00_batch_step_params* params,
                                     ai00_batch_event_callback callback, void* user_data) {
  try {
    const char* fn = "ai00_batch_step";
    require(batch, fn, "batch");
    if (out_result != nullptr) {
      ai00::internal::abi::check_struct_size(out_result->struct_size, kResultV1Size,
                                             sizeof(ai00_batch_step_result), fn,
                                             "ai00_batch_step_result");
    }
    ai00_batch_step_params p{};
    p.struct_size = sizeof p;
    ai00_batch_step_params_default(&p);
    if (params != nullptr) {
      ai00::internal::abi::check_struct_size(params->struct_size, kStepParamsV1Size,
                                             sizeof(ai00_batch_step_params), fn,
                                             "ai00_batch_step_params");
      std::memcpy(static_cast<void*>(&p), params, params->struct_size);  // older: defaults after
      if (p.whole_batch != 0 && p.whole_batch != 1) {
        throw ai00::internal::InvalidArgument(std::string(fn) + ": params.whole_batch = " +
                                              std::to_string(p.whole_batch) + " is not 0 or 1");
      }
    }
    batch->queue.clear();
    ai00::internal::BatchStepResult r =
        batch->core->step(p.max_tokens, p.time_budget_us, p.whole_batch != 0);
    std::vector<FlatEvent> events = flatten_events(*batch, r.events);
    for (FlatEvent& e : events) {
      if (callback == nullptr) {
        batch->queue.push_back(std::move(e));
        continue;
      }
      batch->current = std::move(e);
      const ai00_batch_event ev = event_of(batch->current);
      if (callback(&ev, user_data) != 0) batch->current.gen->gen->cancel();
    }
    if (out_result != nullptr) {
      ai00_batch_step_result res{};
      res.struct_size = out_result->struct_size;
      res.steps = static_cast<uint32_t>(r.steps);
      res.tokens_sampled = r.tokens_sampled;
      res.prompt_tokens = r.prompt_tokens;
      res.time_limited = r.time_limited ? 1 : 0;
      for (const ai00_generator* g : batch->members) res.unfinished += g->gen->finished() ? 0 : 1;
      *out_result = res;
    }
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(batch));
  }
}

AI00_API ai00_status ai00_batch_pending(size_t* out_count, const ai00_batch* batch) {
  try {
    require(out_count, "ai00_batch_pending", "out_count");
    require(batch, "ai00_batch_pending", "batch");
    *out_count = batch->queue.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(batch));
  }
}

AI00_API ai00_status ai00_batch_next_event(int32_t* out_has_event, ai00_batch_event* out_event,
                                           ai00_batch* batch) {
  try {
    const char* fn = "ai00_batch_next_event";
    require(out_has_event, fn, "out_has_event");
    require(out_event, fn, "out_event");
    require(batch, fn, "batch");
    // Checked before an event is taken, so a bad size loses nothing.
    ai00::internal::abi::check_struct_size(out_event->struct_size, kEventV1Size,
                                           sizeof(ai00_batch_event), fn, "ai00_batch_event");
    if (batch->queue.empty()) {
      *out_has_event = 0;
      return AI00_OK;
    }
    batch->current = std::move(batch->queue.front());
    batch->queue.pop_front();
    const ai00_batch_event ev = event_of(batch->current);
    const uint32_t size = out_event->struct_size;
    std::memcpy(out_event, &ev, size);
    out_event->struct_size = size;
    *out_has_event = 1;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(batch));
  }
}

}  // extern "C"
