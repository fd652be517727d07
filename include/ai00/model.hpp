// ai00 C++ API — Model: weights, configuration, tokenizer (header-only RAII over ai00.h).
//
// Ownership: a Model is a cheap, copyable reference to one loaded ai00_model (shared
// ownership); the weights are released when the last copy — and every State, Grammar and
// Generator made from it — is gone. Threading: immutable, so any number of threads may use one
// Model (and its copies) at once. Errors: every call throws ai00::Error on failure (the status
// and message of the C call, e.g. AI00_ERR_IO naming the path).
//
// Usage:
//
//   ai00::ModelOptions options;
//   options.n_threads = 4;
//   options.activations = ai00::Activations::exact;  // optional: fp32 activations
//   ai00::Model model = ai00::Model::load("rwkv7-g1-1.5b.gguf", options);
//   std::vector<uint32_t> ids = model.tokenize("Hello");
//   ai00_model_info info = model.info();  // n_layer, n_embd, n_vocab, state_bytes, ...
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/error.hpp"

namespace ai00 {
inline namespace api {

// The process-wide resource limits (ai00.h "Limits"): nesting depth, grammar states, input,
// file and string sizes, threads, tokens. Each is checked before the work it bounds.
//
//   ai00::Limits l = ai00::Limits::current();
//   l.max_nesting_depth = 64;
//   l.apply();  // later calls on every thread see it
struct Limits : ai00_limits {
  Limits() : ai00_limits{} { detail::check(ai00_limits_default(this)); }
  static Limits defaults() { return Limits(); }
  static Limits current() {
    Limits l;
    detail::check(ai00_limits_get(&l));
    return l;
  }
  void apply() const { detail::check(ai00_limits_set(this)); }
};

// ai00_activations: the activations of the matrix products on quantized and BF16 weights.
enum class Activations : int32_t {
  dot = AI00_ACTIVATIONS_DOT,     // int8 / bf16 dot products (default): logits within ~0.05
  exact = AI00_ACTIVATIONS_EXACT  // fp32 activations: the reference's logits, slower
};

struct ModelOptions {
  int32_t n_threads = 1;   // pool size; 1 = the calling thread only. Results never depend on it
  std::string forced_isa;  // "" = best supported; "scalar", "avx2", ... to force
  std::string vocab_path;  // vocabulary to attach when the weight file has none
  // Load progress (bytes done, bytes total): done never decreases and the last call, on success
  // only, is (total, total). Return false to stop (load then throws AI00_ERR_CANCELLED); an
  // exception it throws stops the load and is rethrown by load.
  std::function<bool(uint64_t, uint64_t)> progress;
  // For every evaluation on the model (ai00_model_params.activations): exact for greedy output
  // identical to the reference computation; info_json() reports it as "activations".
  Activations activations = Activations::dot;
};

namespace detail {
// Carries a C++ progress function through the C ABI's progress callback: an exception it throws
// stops the operation (the callback returns non-zero) and is kept for rethrow() after the call.
struct ProgressRelay {
  const std::function<bool(uint64_t, uint64_t)>* fn;
  std::exception_ptr error;
  static int32_t call(uint64_t done, uint64_t total, void* user_data) {
    auto* r = static_cast<ProgressRelay*>(user_data);
    try {
      return (*r->fn)(done, total) ? 0 : 1;
    } catch (...) {
      r->error = std::current_exception();
      return 1;
    }
  }
};
}  // namespace detail

class Model {
 public:
  // Loads any supported weight file (GGUF, safetensors, rwkv.cpp .bin, .pth).
  static Model load(const std::string& path, const ModelOptions& options = {}) {
    ai00_model_params p{};
    p.struct_size = sizeof p;  // this header's size (docs/abi.md)
    detail::check(ai00_model_params_default(&p));
    p.n_threads = options.n_threads;
    p.forced_isa = options.forced_isa.empty() ? nullptr : options.forced_isa.c_str();
    p.vocab_path = options.vocab_path.empty() ? nullptr : options.vocab_path.c_str();
    p.activations = static_cast<int32_t>(options.activations);
    detail::ProgressRelay ctx{&options.progress, nullptr};
    if (options.progress) {
      p.progress = &detail::ProgressRelay::call;
      p.progress_user_data = &ctx;
    }
    ai00_model* m = nullptr;
    const ai00_status s = ai00_model_load(&m, path.data(), path.size(), &p);
    if (ctx.error) {
      if (s == AI00_OK) ai00_model_free(m);
      std::rethrow_exception(ctx.error);
    }
    detail::check(s);
    return Model(m);
  }

  // Takes ownership of a handle from the C API.
  explicit Model(ai00_model* owned) : handle_(owned, &free_model) {}

  ai00_model_info info() const {
    ai00_model_info info{};
    info.struct_size = sizeof info;
    detail::check(ai00_model_get_info(&info, get()));
    return info;
  }
  uint32_t n_vocab() const { return info().n_vocab; }

  // The kernel ISA chosen at load ("avx2", ...).
  std::string isa() const {
    const char* name = nullptr;
    detail::check(ai00_model_isa_name(&name, get()));
    return name;
  }

  // Everything known about the model as one JSON object (format, dimensions, LoRA ranks,
  // tensor dtypes, ISA, state size); see ai00_model_info_json.
  std::string info_json() const {
    size_t n = 0;
    ai00_status s = ai00_model_info_json(&n, nullptr, 0, get());
    if (s != AI00_ERR_BUFFER_TOO_SMALL) detail::check(s);
    std::string json(n, '\0');
    detail::check(ai00_model_info_json(&n, &json[0], json.size(), get()));
    return json;
  }

  // Greedy World tokenization of arbitrary bytes (never produces id 0).
  std::vector<uint32_t> tokenize(std::string_view text) const {
    size_t n = 0;
    ai00_status s = ai00_model_tokenize(&n, nullptr, 0, get(), text.data(), text.size());
    if (s != AI00_ERR_BUFFER_TOO_SMALL) detail::check(s);
    std::vector<uint32_t> ids(n);
    if (n > 0)
      detail::check(
          ai00_model_tokenize(&n, ids.data(), ids.size(), get(), text.data(), text.size()));
    return ids;
  }

  // Valid UTF-8 text of the ids (ill-formed bytes become U+FFFD), stopping at id 0.
  std::string detokenize(const std::vector<uint32_t>& ids) const {
    size_t n = 0;
    ai00_status s = ai00_model_detokenize(&n, nullptr, 0, get(), ids.data(), ids.size());
    if (s != AI00_ERR_BUFFER_TOO_SMALL) detail::check(s);
    std::string text(n, '\0');
    if (n > 0)
      detail::check(
          ai00_model_detokenize(&n, &text[0], text.size(), get(), ids.data(), ids.size()));
    return text;
  }

  // The C handle, for mixing with the C API (still owned by this Model).
  ai00_model* get() const noexcept { return handle_.get(); }

 private:
  static void free_model(ai00_model* m) noexcept { ai00_model_free(m); }
  std::shared_ptr<ai00_model> handle_;
};

// What this build can do on this CPU as one JSON object; see ai00_capabilities_json.
inline std::string capabilities_json() {
  size_t n = 0;
  ai00_status s = ai00_capabilities_json(&n, nullptr, 0);
  if (s != AI00_ERR_BUFFER_TOO_SMALL) detail::check(s);
  std::string json(n, '\0');
  detail::check(ai00_capabilities_json(&n, &json[0], json.size()));
  return json;
}

// Options of convert_model (ai00_convert_params).
struct ConvertOptions {
  ai00_weight_type weight_type = AI00_WEIGHT_F16;
  ai00_file_format file_format = AI00_FILE_GGUF;
  bool overwrite = false;  // replace an existing output file
  std::string vocab_path;  // vocabulary for a source without one
  // (bytes done, bytes total); return false to stop (convert_model then throws AI00_ERR_CANCELLED).
  std::function<bool(uint64_t, uint64_t)> progress;
};

// Rewrites the weight file `in` as `out` (GGUF or .st, one weight type); see ai00_model_convert.
// An exception thrown by `progress` stops the conversion and is rethrown here.
inline void convert_model(const std::string& in, const std::string& out,
                          const ConvertOptions& options = {}) {
  ai00_convert_params p{};
  p.struct_size = sizeof p;  // this header's size (docs/abi.md)
  detail::check(ai00_convert_params_default(&p));
  p.weight_type = options.weight_type;
  p.file_format = options.file_format;
  p.overwrite = options.overwrite ? 1 : 0;
  p.vocab_path = options.vocab_path.empty() ? nullptr : options.vocab_path.c_str();
  detail::ProgressRelay ctx{&options.progress, nullptr};
  if (options.progress) {
    p.progress = &detail::ProgressRelay::call;
    p.user_data = &ctx;
  }
  const ai00_status s = ai00_model_convert(in.data(), in.size(), out.data(), out.size(), &p);
  if (ctx.error) std::rethrow_exception(ctx.error);
  detail::check(s);
}

}  // namespace api
}  // namespace ai00
