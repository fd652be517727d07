// Tokenizer calls of the C ABI, through the model or through a tokenizer handle: encode and
// decode with the two-call size idiom (docs/abi.md).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "abi_internal.h"
#include "abi_tokenizer.h"
#include "base/limits.h"
#include "core/model/model.h"
#include "core/tokenizer/tokenizer.h"

namespace {

const ai00::internal::Tokenizer& tokenizer_of(const ai00_model& m, const char* function) {
  const ai00::internal::Tokenizer* tok = m.model->tokenizer();
  if (tok == nullptr) {
    throw ai00::internal::UnsupportedError(
        std::string(function) + ": the model has no tokenizer (set ai00_model_params.vocab_path)");
  }
  return *tok;
}

// Copies `data` into the caller's buffer with the two-call size idiom.
template <typename T>
ai00_status copy_out(size_t* out_n, T* buffer, size_t capacity, const std::vector<T>& data,
                     ai00::internal::abi::ErrorSlot* slot, const char* fn, const char* unit) {
  *out_n = data.size();
  if (data.size() > (buffer == nullptr ? 0 : capacity)) {
    return ai00::internal::abi::fail(slot, AI00_ERR_BUFFER_TOO_SMALL,
                                     std::string(fn) + ": the result needs " +
                                         std::to_string(data.size()) + " " + unit +
                                         ", capacity is " + std::to_string(buffer ? capacity : 0));
  }
  if (!data.empty()) std::memcpy(buffer, data.data(), data.size() * sizeof(T));
  return AI00_OK;
}

// Encodes `bytes`, refusing a result longer than the max_tokens limit (issue 15) with
// InvalidArgument "<fn>: text of N bytes encodes to M tokens, which exceeds the limit
// max_tokens = K". Each token covers at least one byte, so text no longer than the limit is
// never refused and needs no second look.
std::vector<uint32_t> encode_limited(const ai00::internal::Tokenizer& tok, std::string_view bytes,
                                     const char* fn) {
  std::vector<uint32_t> ids = tok.encode(bytes);
  const uint64_t max = ai00::internal::limits().max_tokens;
  if (ids.size() > max) {
    ai00::internal::throw_limit(ai00::internal::ErrorKind::invalid_argument, fn,
                                "text of " + std::to_string(bytes.size()) + " bytes encodes to " +
                                    std::to_string(ids.size()) + " tokens, which",
                                "max_tokens", max);
  }
  return ids;
}

}  // namespace

namespace ai00::internal::abi {

std::shared_ptr<const grammar::VocabIndex> vocab_index(const ai00_tokenizer& t) {
  std::lock_guard<std::mutex> lock(t.index_mutex);
  if (!t.index) {
    std::vector<std::string> tokens(t.tok->vocab_size());
    for (uint32_t id = 1; id < tokens.size(); ++id)
      tokens[id] = std::string(t.tok->token_bytes(id));
    t.index = grammar::VocabIndex::build(std::move(tokens));
  }
  return t.index;
}

}  // namespace ai00::internal::abi

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
    std::vector<uint32_t> ids = encode_limited(tokenizer_of(*model, fn), bytes, fn);
    *out_count = ids.size();
    if (ids.size() > (tokens == nullptr ? 0 : capacity)) {
      return ai00::internal::abi::fail(slot, AI00_ERR_BUFFER_TOO_SMALL,
                                       std::string(fn) + ": the text needs " +
                                           std::to_string(ids.size()) + " tokens, capacity is " +
                                           std::to_string(tokens ? capacity : 0));
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
    if (ai00_status st = ai00::internal::abi::check_capacity(slot, out_len, s.size(), text,
                                                             capacity, fn, "the text");
        st != AI00_OK)
      return st;
    if (!s.empty()) std::memcpy(text, s.data(), s.size());
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

AI00_API ai00_status ai00_tokenizer_load(ai00_tokenizer** out_tokenizer, const char* path,
                                         size_t path_len) {
  try {
    const char* fn = "ai00_tokenizer_load";
    ai00::internal::abi::require(out_tokenizer, fn, "out_tokenizer");
    ai00::internal::abi::require(path, fn, "path");
    auto t = std::make_unique<ai00_tokenizer>();
    t->tok = ai00::internal::Tokenizer::from_vocab_file(
        std::string(ai00::internal::abi::text_arg(path, path_len, fn, "path")));
    *out_tokenizer = t.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_tokenizer_from_model(ai00_tokenizer** out_tokenizer,
                                               const ai00_model* model) {
  ai00::internal::abi::ErrorSlot* slot = model ? &model->error : nullptr;
  try {
    const char* fn = "ai00_tokenizer_from_model";
    ai00::internal::abi::require(out_tokenizer, fn, "out_tokenizer");
    ai00::internal::abi::require(model, fn, "model");
    tokenizer_of(*model, fn);  // throws when there is none
    auto t = std::make_unique<ai00_tokenizer>();
    t->tok = model->model->tokenizer_shared();
    *out_tokenizer = t.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

AI00_API ai00_status ai00_tokenizer_free(ai00_tokenizer* tokenizer) {
  try {
    delete tokenizer;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_tokenizer_last_error(const ai00_tokenizer* tokenizer) {
  try {
    return tokenizer ? tokenizer->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_tokenizer_vocab_size(uint32_t* out_size,
                                               const ai00_tokenizer* tokenizer) {
  try {
    ai00::internal::abi::require(out_size, "ai00_tokenizer_vocab_size", "out_size");
    ai00::internal::abi::require(tokenizer, "ai00_tokenizer_vocab_size", "tokenizer");
    *out_size = static_cast<uint32_t>(tokenizer->tok->vocab_size());
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(tokenizer ? &tokenizer->error : nullptr);
  }
}

AI00_API ai00_status ai00_tokenizer_encode(size_t* out_count, uint32_t* tokens, size_t capacity,
                                           const ai00_tokenizer* tokenizer, const char* text,
                                           size_t text_len) {
  ai00::internal::abi::ErrorSlot* slot = tokenizer ? &tokenizer->error : nullptr;
  try {
    const char* fn = "ai00_tokenizer_encode";
    ai00::internal::abi::require(out_count, fn, "out_count");
    ai00::internal::abi::require(tokenizer, fn, "tokenizer");
    std::string_view bytes = ai00::internal::abi::text_arg(text, text_len, fn, "text");
    return copy_out(out_count, tokens, capacity, encode_limited(*tokenizer->tok, bytes, fn), slot,
                    fn, "tokens");
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

AI00_API ai00_status ai00_tokenizer_decode(size_t* out_len, char* bytes, size_t capacity,
                                           const ai00_tokenizer* tokenizer, const uint32_t* tokens,
                                           size_t n_tokens) {
  ai00::internal::abi::ErrorSlot* slot = tokenizer ? &tokenizer->error : nullptr;
  try {
    const char* fn = "ai00_tokenizer_decode";
    ai00::internal::abi::require(out_len, fn, "out_len");
    ai00::internal::abi::require(tokenizer, fn, "tokenizer");
    if (n_tokens > 0) ai00::internal::abi::require(tokens, fn, "tokens");
    const std::string s = tokenizer->tok->decode(tokens, n_tokens);
    return copy_out(out_len, bytes, capacity, std::vector<char>(s.begin(), s.end()), slot, fn,
                    "bytes");
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

}  // extern "C"
