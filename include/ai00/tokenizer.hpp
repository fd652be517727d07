// ai00 C++ API — Tokenizer: the RWKV World tokenizer on its own, from a vocabulary file or
// shared with a Model (header-only RAII over ai00.h).
//
// Ownership: a cheap, copyable reference (shared); one taken from a Model outlives it.
// Threading: immutable; any number of threads may use it at once. Errors: ai00::Error
// (AI00_ERR_IO naming the path, AI00_ERR_INVALID_ARGUMENT naming a bad id and its position).
//
// Usage:
//
//   ai00::Tokenizer tok = ai00::Tokenizer::load("rwkv_vocab_v20230424.txt");
//   std::vector<uint32_t> ids = tok.encode("Hello");
//   std::string bytes = tok.decode(ids);  // == "Hello" (any bytes round-trip)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/error.hpp"
#include "ai00/model.hpp"

namespace ai00 {
inline namespace api {

class Tokenizer {
 public:
  // An RWKV World vocabulary file (rwkv_vocab_v20230424.txt format).
  static Tokenizer load(const std::string& path) {
    ai00_tokenizer* t = nullptr;
    detail::check(ai00_tokenizer_load(&t, path.data(), path.size()));
    return Tokenizer(t);
  }
  // The model's tokenizer; AI00_ERR_UNSUPPORTED when it has none.
  static Tokenizer of(const Model& model) {
    ai00_tokenizer* t = nullptr;
    detail::check(ai00_tokenizer_from_model(&t, model.get()));
    return Tokenizer(t);
  }

  explicit Tokenizer(ai00_tokenizer* owned) : handle_(owned, &free_tokenizer) {}

  uint32_t vocab_size() const {
    uint32_t n = 0;
    detail::check(ai00_tokenizer_vocab_size(&n, get()));
    return n;
  }

  // Greedy longest match over any bytes (never produces id 0).
  std::vector<uint32_t> encode(std::string_view bytes) const {
    size_t n = 0;
    ai00_status s = ai00_tokenizer_encode(&n, nullptr, 0, get(), bytes.data(), bytes.size());
    if (s != AI00_ERR_BUFFER_TOO_SMALL) detail::check(s);
    std::vector<uint32_t> ids(n);
    if (n > 0)
      detail::check(
          ai00_tokenizer_encode(&n, ids.data(), ids.size(), get(), bytes.data(), bytes.size()));
    return ids;
  }

  // The exact bytes of the ids (not necessarily UTF-8), stopping at id 0.
  std::string decode(const std::vector<uint32_t>& ids) const {
    size_t n = 0;
    ai00_status s = ai00_tokenizer_decode(&n, nullptr, 0, get(), ids.data(), ids.size());
    if (s != AI00_ERR_BUFFER_TOO_SMALL) detail::check(s);
    std::string bytes(n, '\0');
    if (n > 0)
      detail::check(
          ai00_tokenizer_decode(&n, &bytes[0], bytes.size(), get(), ids.data(), ids.size()));
    return bytes;
  }

  ai00_tokenizer* get() const noexcept { return handle_.get(); }

 private:
  static void free_tokenizer(ai00_tokenizer* t) noexcept { ai00_tokenizer_free(t); }
  std::shared_ptr<ai00_tokenizer> handle_;
};

}  // namespace api
}  // namespace ai00
