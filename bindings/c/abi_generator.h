// The generator handle of the C ABI, shared by ai00_generator.cpp and ai00_batch.cpp.
#pragma once

#include <deque>
#include <memory>
#include <string>

#include "abi_delta.h"
#include "abi_internal.h"
#include "core/pipeline/generator.h"

struct ai00_generator {
  // The batch this generator is a member of, or nullptr; while set, run/next/step refuse.
  ai00_batch* batch = nullptr;
  std::unique_ptr<ai00::internal::Generator> gen;
  std::deque<ai00::internal::abi::Flat> pending;  // flattened, not yet handed out by next()
  ai00::internal::abi::Flat current;  // the delta handed out last (its strings back the ai00_delta)
  bool finish_seen = false;           // the FINISH delta was handed out
  std::string message_json;
  mutable ai00::internal::abi::ErrorSlot error;

  // Passes `pending` to `cb` in order; a non-zero return cancels the turn and reports true.
  bool deliver(ai00_delta_callback cb, void* user_data) {
    bool stop = false;
    while (!pending.empty()) {
      current = std::move(pending.front());
      pending.pop_front();
      if (current.kind == AI00_DELTA_FINISH) finish_seen = true;
      ai00_delta d;
      ai00::internal::abi::fill(current, &d);
      if (cb != nullptr && !stop && cb(&d, user_data) != 0) {
        stop = true;
        gen->cancel();
      }
    }
    return stop;
  }
};

namespace ai00::internal::abi {

// InvalidArgument naming `function` when `gen` is a batch member (ai00.h "Batch").
void require_unbatched(const ai00_generator& gen, const char* function);
// Removes `gen` from its batch (ai00_generator_free of a member).
void leave_batch(ai00_generator& gen);

}  // namespace ai00::internal::abi
