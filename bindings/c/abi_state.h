// The State handle of the C ABI and the helpers other binding files share with it.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi_internal.h"
#include "core/model/model.h"
#include "core/model/state.h"
#include "core/sampling/sampler.h"

// One sequence. The core State carries the recurrent state and the sampler state that travels
// with it (seed, RNG, penalty table: State::sampler()), so save/load/clone continue
// identically. Keeps its model alive.
struct ai00_state {
  ai00_state(std::shared_ptr<const ai00::internal::Model> m, ai00::internal::State s)
      : model(std::move(m)), core(std::move(s)) {}
  std::shared_ptr<const ai00::internal::Model> model;
  ai00::internal::State core;
  ai00::internal::Sampler scratch;  // buffers of ai00_state_sample (no sequence data)
  mutable ai00::internal::abi::ErrorSlot error;
};

namespace ai00::internal::abi {

// Saving is State::serialize (the record carries the sampler state too); loading goes through
// here so the error names its source.
// `name` prefixes error messages (a path or the function name).
std::unique_ptr<ai00_state> load_state(const ai00_model& model, const uint8_t* bytes, size_t size,
                                       const std::string& name);

// Converts (and validates) the C sampler params; NULL = the library default.
SamplerParams sampler_params(const ai00_sampler_params* params, const char* function);

}  // namespace ai00::internal::abi
