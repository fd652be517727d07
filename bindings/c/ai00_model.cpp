// Model handle of the C ABI: load, free, shape queries and the grammar vocabulary.
#include <cstddef>
#include <limits>
#include <string>

#include "abi_internal.h"
#include "core/model/model.h"
#include "core/model/state.h"
#include "core/pipeline/grammar_spec.h"
#include "core/tokenizer/tokenizer.h"
#include "cpu_kernels/kernels.h"

namespace ai00::internal::abi {

std::shared_ptr<GrammarCache> grammar_cache(const ai00_model& handle) {
  std::lock_guard<std::mutex> lock(handle.cache_mutex);
  if (!handle.grammar_cache) handle.grammar_cache = std::make_shared<GrammarCache>(*handle.model);
  return handle.grammar_cache;
}

}  // namespace ai00::internal::abi

namespace {
uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }
// 0.1's ai00_model_params ended at vocab_path; progress and its user data came in 0.2,
// activations in 0.4.
constexpr size_t kModelParamsV1Size = offsetof(ai00_model_params, vocab_path) + sizeof(void*);
constexpr size_t kModelParamsV2Size =
    offsetof(ai00_model_params, progress_user_data) + sizeof(void*);
constexpr size_t kActivationsEnd = offsetof(ai00_model_params, activations) + sizeof(int32_t);

// ai00_model_params.activations as ModelParams::fp32_activations; another value is refused.
bool exact_activations(int32_t activations) {
  if (activations == AI00_ACTIVATIONS_DOT) return false;
  if (activations == AI00_ACTIVATIONS_EXACT) return true;
  throw ai00::internal::InvalidArgument(
      "ai00_model_load: ai00_model_params.activations is " + std::to_string(activations) +
      ", expected AI00_ACTIVATIONS_DOT (0) or AI00_ACTIVATIONS_EXACT (1)");
}
}  // namespace

extern "C" {

AI00_API ai00_status ai00_model_params_default(ai00_model_params* out_params) {
  try {
    ai00::internal::abi::require(out_params, "ai00_model_params_default", "out_params");
    ai00_model_params d{};
    d.struct_size = sizeof(ai00_model_params);
    d.n_threads = 1;
    ai00::internal::abi::write_default(out_params, d, {kModelParamsV1Size, kModelParamsV2Size});
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_model_load(ai00_model** out_model, const char* path, size_t path_len,
                                     const ai00_model_params* params) {
  try {
    using ai00::internal::abi::require;
    require(out_model, "ai00_model_load", "out_model");
    require(path, "ai00_model_load", "path");
    std::string file(ai00::internal::abi::text_arg(path, path_len, "ai00_model_load", "path"));
    ai00::internal::ModelParams p;
    if (params != nullptr) {
      ai00::internal::abi::check_struct_size(params->struct_size, kModelParamsV1Size,
                                             sizeof(ai00_model_params), "ai00_model_load",
                                             "ai00_model_params");
      p.n_threads = params->n_threads;
      if (params->forced_isa != nullptr) p.forced_isa = params->forced_isa;
      if (params->vocab_path != nullptr) p.vocab_path = params->vocab_path;
      if (params->struct_size >= kActivationsEnd)
        p.fp32_activations = exact_activations(params->activations);
      if (params->struct_size >= kModelParamsV2Size && params->progress != nullptr) {
        const auto cb = params->progress;
        void* const ud = params->progress_user_data;
        p.progress = [cb, ud, file](uint64_t done, uint64_t total) {
          if (cb(done, total, ud) != 0) {
            throw ai00::internal::Error(ai00::internal::ErrorKind::cancelled,
                                        file + ": load cancelled by the progress callback at " +
                                            std::to_string(done) + " of " + std::to_string(total) +
                                            " bytes");
          }
        };
      }
    }
    auto handle = std::make_unique<ai00_model>();
    handle->model = ai00::internal::Model::load(file, p);
    *out_model = handle.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_model_free(ai00_model* model) {
  try {
    delete model;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_model_last_error(const ai00_model* model) {
  try {
    return model ? model->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_model_get_info(ai00_model_info* out_info, const ai00_model* model) {
  ai00::internal::abi::ErrorSlot* slot = model ? &model->error : nullptr;
  try {
    ai00::internal::abi::require(out_info, "ai00_model_get_info", "out_info");
    ai00::internal::abi::require(model, "ai00_model_get_info", "model");
    ai00::internal::abi::check_struct_size(out_info->struct_size, sizeof(ai00_model_info),
                                           sizeof(ai00_model_info), "ai00_model_get_info",
                                           "ai00_model_info");
    const ai00::internal::ModelConfig& c = model->model->config();
    const ai00::internal::Tokenizer* tok = model->model->tokenizer();
    out_info->n_layer = u32(c.n_layer);
    out_info->n_embd = u32(c.n_embd);
    out_info->n_head = u32(c.n_head);
    out_info->head_size = u32(c.head_size);
    out_info->n_vocab = u32(c.vocab);
    out_info->n_tokens = tok ? static_cast<uint32_t>(tok->vocab_size()) : 0u;
    out_info->n_threads = static_cast<uint32_t>(model->model->n_threads());
    // The recurrent floats only, as ai00_model_info_json's "state_bytes" (ai00.h).
    out_info->state_bytes = static_cast<uint64_t>(c.state_floats()) * sizeof(float);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

AI00_API ai00_status ai00_model_isa_name(const char** out_name, const ai00_model* model) {
  ai00::internal::abi::ErrorSlot* slot = model ? &model->error : nullptr;
  try {
    ai00::internal::abi::require(out_name, "ai00_model_isa_name", "out_name");
    ai00::internal::abi::require(model, "ai00_model_isa_name", "model");
    *out_name = model->model->kernels().name;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

}  // extern "C"
