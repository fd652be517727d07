// Tokenizer calls of the C ABI (through the model): encode and decode with the two-call size
// idiom (docs/abi.md "Ownership").
#include <cstring>
#include <string>
#include <vector>

#include "abi_internal.h"
#include "core/model/model.h"
#include "core/tokenizer/tokenizer.h"

namespace {

const ai00::internal::Tokenizer& tokenizer_of(const ai00_model& m, const char* function) {
  const ai00::internal::Tokenizer* tok = m.model->tokenizer();
  if (tok == nullptr) {
    throw ai00::internal::UnsupportedError(std::string(function) +
                                 ": the model has no tokenizer (set ai00_model_params.vocab_path)");
  }
  return *tok;
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_model_tokenize(size_t* out_count, uint32_t* tokens, size_t capacity,
                                         const ai00_model* model, const char* text,
                                         size_t text_len) {
  ai00::internal::abi::ErrorSlot* slot = model ? &model->error : nullptr;
  try {
    const char* fn = "ai00_model_tokenize";
    ai00::internal::abi::require(out_count, fn, "out_count");
    ai00::internal::abi::require(model, fn, "model");
    std::string_view bytes = ai00::internal::abi::text_arg(text, text_len, fn, "text");
    std::vector<uint32_t> ids = tokenizer_of(*model, fn).encode(bytes);
    *out_count = ids.size();
    if (ids.size() > (tokens == nullptr ? 0 : capacity)) {
      return ai00::internal::abi::fail(slot, AI00_ERR_BUFFER_TOO_SMALL,
                             std::string(fn) + ": the text needs " + std::to_string(ids.size()) +
                                 " tokens, capacity is " + std::to_string(tokens ? capacity : 0));
    }
    if (!ids.empty()) std::memcpy(tokens, ids.data(), ids.size() * sizeof(uint32_t));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

AI00_API ai00_status ai00_model_detokenize(size_t* out_len, char* text, size_t capacity,
                                           const ai00_model* model, const uint32_t* tokens,
                                           size_t n_tokens) {
  ai00::internal::abi::ErrorSlot* slot = model ? &model->error : nullptr;
  try {
    const char* fn = "ai00_model_detokenize";
    ai00::internal::abi::require(out_len, fn, "out_len");
    ai00::internal::abi::require(model, fn, "model");
    if (n_tokens > 0) ai00::internal::abi::require(tokens, fn, "tokens");
    std::string s = tokenizer_of(*model, fn).decode_text(tokens, n_tokens);
    *out_len = s.size();
    if (s.size() > (text == nullptr ? 0 : capacity)) {
      return ai00::internal::abi::fail(slot, AI00_ERR_BUFFER_TOO_SMALL,
                             std::string(fn) + ": the text needs " + std::to_string(s.size()) +
                                 " bytes, capacity is " + std::to_string(text ? capacity : 0));
    }
    if (!s.empty()) std::memcpy(text, s.data(), s.size());
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

}  // extern "C"
