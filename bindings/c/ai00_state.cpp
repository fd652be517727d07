// State handle of the C ABI: create, clone, reset, evaluate, sample, save and load (to caller
// buffers with the two-call size idiom, and to files).
//
// Serialized form: the core State record (core/state.h, "AI00STAT"), which carries the sampler
// state (seed, RNG, penalty table) in its own section.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "abi_internal.h"
#include "abi_state.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/model/state_file.h"
#include "core/sampling/sampler.h"

namespace ai00::internal::abi {

std::unique_ptr<ai00_state> load_state(const ai00_model& model, const uint8_t* bytes, size_t size,
                                       const std::string& name) {
  try {
    return std::make_unique<ai00_state>(model.model, State::deserialize(*model.model, bytes, size));
  } catch (const Error& e) {
    throw_error(e.kind(), name + ": " + e.what());
  }
}

}  // namespace ai00::internal::abi

namespace {

using ai00::internal::abi::require;

// Reads a whole file; IoError names the path.
std::vector<uint8_t> read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw ai00::internal::IoError("cannot open '" + path + "' for reading");
  std::vector<uint8_t> bytes;
  uint8_t buf[65536];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) throw ai00::internal::IoError("error reading '" + path + "'");
  return bytes;
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw ai00::internal::IoError("cannot open '" + path + "' for writing");
  size_t n = std::fwrite(bytes.data(), 1, bytes.size(), f);
  bool bad = n != bytes.size() || std::fflush(f) != 0;
  bad = (std::fclose(f) != 0) || bad;
  if (bad) throw ai00::internal::IoError("error writing '" + path + "'");
}

ai00::internal::abi::ErrorSlot* slot_of(const ai00_state* s) { return s ? &s->error : nullptr; }

}  // namespace

extern "C" {

AI00_API ai00_status ai00_state_new(ai00_state** out_state, const ai00_model* model) {
  try {
    require(out_state, "ai00_state_new", "out_state");
    require(model, "ai00_state_new", "model");
    *out_state = new ai00_state(model->model, ai00::internal::State(*model->model));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(model ? &model->error : nullptr);
  }
}

AI00_API ai00_status ai00_state_clone(ai00_state** out_state, const ai00_state* state) {
  try {
    require(out_state, "ai00_state_clone", "out_state");
    require(state, "ai00_state_clone", "state");
    auto copy = std::make_unique<ai00_state>(state->model, state->core.clone());
    *out_state = copy.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(state));
  }
}

AI00_API ai00_status ai00_state_reset(ai00_state* state) {
  try {
    require(state, "ai00_state_reset", "state");
    state->core.reset();
    auto& sampler = state->core.sampler();
    sampler.reset(sampler.seed());
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(state));
  }
}

AI00_API ai00_status ai00_state_free(ai00_state* state) {
  try {
    delete state;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_state_last_error(const ai00_state* state) {
  try {
    return state ? state->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_state_set_seed(ai00_state* state, uint64_t seed) {
  try {
    require(state, "ai00_state_set_seed", "state");
    state->core.sampler().set_seed(seed);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(state));
  }
}

AI00_API ai00_status ai00_state_eval(size_t* out_count, float* logits, size_t capacity,
                                     const ai00_model* model, ai00_state* state,
                                     const uint32_t* tokens, size_t n_tokens) {
  try {
    const char* fn = "ai00_state_eval";
    require(model, fn, "model");
    require(state, fn, "state");
    require(tokens, fn, "tokens");
    if (n_tokens == 0) throw ai00::internal::InvalidArgument(std::string(fn) + ": n_tokens is 0");
    const size_t vocab = static_cast<size_t>(model->model->config().vocab);
    if (logits != nullptr && capacity < vocab) {
      if (out_count != nullptr) *out_count = vocab;
      return ai00::internal::abi::fail(&state->error, AI00_ERR_BUFFER_TOO_SMALL,
                                       std::string(fn) + ": logits need " + std::to_string(vocab) +
                                           " floats, capacity is " + std::to_string(capacity));
    }
    ai00::internal::forward(*model->model, state->core, tokens, n_tokens, logits);
    if (out_count != nullptr) *out_count = logits ? vocab : 0;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(state));
  }
}

AI00_API ai00_status ai00_state_eval_all(size_t* out_count, float* logits, size_t capacity,
                                         const ai00_model* model, ai00_state* state,
                                         const uint32_t* tokens, size_t n_tokens) {
  try {
    const char* fn = "ai00_state_eval_all";
    require(model, fn, "model");
    require(state, fn, "state");
    require(tokens, fn, "tokens");
    if (n_tokens == 0) throw ai00::internal::InvalidArgument(std::string(fn) + ": n_tokens is 0");
    const size_t vocab = static_cast<size_t>(model->model->config().vocab);
    if (n_tokens > std::numeric_limits<size_t>::max() / vocab) {
      throw ai00::internal::InvalidArgument(
          std::string(fn) + ": n_tokens = " + std::to_string(n_tokens) + " is too large");
    }
    const size_t need = n_tokens * vocab;
    if (logits == nullptr || capacity < need) {
      if (out_count != nullptr) *out_count = need;
      return ai00::internal::abi::fail(&state->error, AI00_ERR_BUFFER_TOO_SMALL,
                                       std::string(fn) + ": logits need " + std::to_string(need) +
                                           " floats, capacity is " +
                                           std::to_string(logits ? capacity : 0));
    }
    ai00::internal::ForwardOptions opt;
    opt.all_logits = true;
    ai00::internal::forward(*model->model, state->core, tokens, n_tokens, logits, opt);
    if (out_count != nullptr) *out_count = need;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(state));
  }
}

AI00_API ai00_status ai00_state_sample(uint32_t* out_token, ai00_state* state,
                                       const ai00_sampler_params* params, const float* logits,
                                       size_t n_logits) {
  try {
    const char* fn = "ai00_state_sample";
    require(out_token, fn, "out_token");
    require(state, fn, "state");
    require(logits, fn, "logits");
    const size_t n_vocab = static_cast<size_t>(state->model->config().vocab);
    if (n_logits != n_vocab)  // fewer would read past the caller's buffer, more are meaningless
      throw ai00::internal::InvalidArgument(
          std::string(fn) + ": n_logits is " + std::to_string(n_logits) +
          ", the model's vocabulary has " + std::to_string(n_vocab) + " entries");
    ai00::internal::SamplerParams p = ai00::internal::abi::sampler_params(params, fn);
    ai00::internal::SamplerInput in;
    in.logits = logits;
    in.n_vocab = n_logits;
    *out_token = state->scratch.sample(p, state->core.sampler(), in).token;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(state));
  }
}

AI00_API ai00_status ai00_state_save(size_t* out_size, void* buffer, size_t capacity,
                                     const ai00_state* state) {
  try {
    const char* fn = "ai00_state_save";
    require(out_size, fn, "out_size");
    require(state, fn, "state");
    const size_t need = state->core.serialized_size();
    if (ai00_status st = ai00::internal::abi::check_capacity(&state->error, out_size, need, buffer,
                                                             capacity, fn, "the State");
        st != AI00_OK)
      return st;
    state->core.serialize_into(static_cast<uint8_t*>(buffer), capacity);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(state));
  }
}

AI00_API ai00_status ai00_state_load(ai00_state** out_state, const ai00_model* model,
                                     const void* data, size_t size) {
  try {
    require(out_state, "ai00_state_load", "out_state");
    require(model, "ai00_state_load", "model");
    require(data, "ai00_state_load", "data");
    auto s = ai00::internal::abi::load_state(*model, static_cast<const uint8_t*>(data), size,
                                             "ai00_state_load");
    *out_state = s.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(model ? &model->error : nullptr);
  }
}

AI00_API ai00_status ai00_state_save_file(const ai00_state* state, const char* path,
                                          size_t path_len) {
  try {
    require(state, "ai00_state_save_file", "state");
    require(path, "ai00_state_save_file", "path");
    std::string file(ai00::internal::abi::text_arg(path, path_len, "ai00_state_save_file", "path"));
    write_file(file, state->core.serialize());
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(state));
  }
}

AI00_API ai00_status ai00_state_load_file(ai00_state** out_state, const ai00_model* model,
                                          const char* path, size_t path_len) {
  try {
    require(out_state, "ai00_state_load_file", "out_state");
    require(model, "ai00_state_load_file", "model");
    require(path, "ai00_state_load_file", "path");
    std::string file(ai00::internal::abi::text_arg(path, path_len, "ai00_state_load_file", "path"));
    std::vector<uint8_t> bytes = read_file(file);
    *out_state =
        ai00::internal::abi::load_state(*model, bytes.data(), bytes.size(), file).release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(model ? &model->error : nullptr);
  }
}

AI00_API ai00_status ai00_state_load_initial(ai00_state** out_state, const ai00_model* model,
                                             const char* path, size_t path_len) {
  try {
    require(out_state, "ai00_state_load_initial", "out_state");
    require(model, "ai00_state_load_initial", "model");
    require(path, "ai00_state_load_initial", "path");
    std::string file(
        ai00::internal::abi::text_arg(path, path_len, "ai00_state_load_initial", "path"));
    ai00::internal::State st = ai00::internal::load_ai00_state_file(*model->model, file);
    *out_state = new ai00_state(model->model, std::move(st));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(model ? &model->error : nullptr);
  }
}

}  // extern "C"
