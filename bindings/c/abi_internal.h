// Shared pieces of the C ABI implementation (docs/abi.md): the handle
// structs, the per-handle and per-thread error slots, and the one try/catch that every
// extern "C" body uses.
//
// Every exported function is written as
//
//   AI00_API ai00_status ai00_x_y(...) {
//     try {
//       ... validate with require(...), call src/, write outputs ...
//       return AI00_OK;
//     } catch (...) {
//       return ai00::internal::abi::handle_exception(slot);  // the handle's slot, or nullptr
//     }
//   }
//
// handle_exception() classifies everything (ai00::internal::Error kinds map to statuses,
// std::bad_alloc to AI00_ERR_OUT_OF_MEMORY, anything else to AI00_ERR_INTERNAL), records the
// message in the thread's slot and the handle's slot, and returns the status: no exception crosses
// the ABI. Nothing here is exported (hidden visibility + cmake/ai00.version).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "ai00/ai00.h"
#include "base/error.h"

namespace ai00::internal {
class Model;
class GrammarCache;
}  // namespace ai00::internal
namespace ai00::internal::abi {

// The last error message of one handle. A Model or Grammar is shared between threads, so the
// slot has a lock; the pointer it hands out is valid until the next failing call on the handle
// (documented in ai00.h).
class ErrorSlot {
 public:
  void set(const std::string& message);
  const char* get() const;

 private:
  mutable std::mutex mutex_;
  std::string message_;
};

// Records `message` for the calling thread and (if not null) in `slot`; returns `status`.
ai00_status fail(ErrorSlot* slot, ai00_status status, const std::string& message);

// Must be called inside a catch block: classifies the current exception, records its message
// and returns the status. Never throws.
ai00_status handle_exception(ErrorSlot* slot) noexcept;

// ErrorKind -> ai00_status (one-to-one, see ai00.h).
ai00_status status_of(ErrorKind kind) noexcept;

// The rule of every "size, then bytes" output (docs/abi.md): *out_len = need, always; when the
// buffer is NULL or smaller than `need`, AI00_ERR_BUFFER_TOO_SMALL with a message naming `what`
// ("the JSON", "the State", ...) and both sizes, and the caller writes nothing. AI00_OK when the
// bytes fit.
ai00_status check_capacity(ErrorSlot* slot, size_t* out_len, size_t need, const void* buffer,
                           size_t capacity, const char* function, const char* what);

// Throws InvalidArgument("<function>: <what> is NULL") when `p` is null.
inline void require(const void* p, const char* function, const char* what) {
  if (p == nullptr) throw InvalidArgument(std::string(function) + ": " + what + " is NULL");
}

// A UTF-8 argument with an explicit length; AI00_NUL_TERMINATED means strlen. A NULL pointer is
// accepted only with length 0 (the empty string); otherwise InvalidArgument naming `what`.
std::string_view text_arg(const char* p, size_t len, const char* function, const char* what);

// Checks a caller's versioned struct: struct_size must be at least `min_size` (the size of the
// first published version) and at most sizeof the struct this library was built with; an
// unknown, larger size means a newer header (fields this library cannot honour) and is rejected.
void check_struct_size(uint32_t struct_size, size_t min_size, size_t max_size, const char* function,
                       const char* type);

// Writes the defaults `d` of a versioned struct into the caller's *out (docs/abi.md "Versioned
// structs"). A caller built against an older header has a shorter struct, so when
// out->struct_size already holds `older_size` (the size that header published) only that many
// bytes are written and struct_size keeps it; any other value (sizeof(T), 0, uninitialised
// memory) means the caller's header is this one and the whole struct is written.
template <typename T>
void write_default(T* out, const T& d, std::initializer_list<size_t> older_sizes) {
  uint32_t given;  // read bytewise: the caller may not have initialised the struct
  std::memcpy(&given, static_cast<const void*>(out), sizeof given);
  size_t n = sizeof(T);
  for (size_t older : older_sizes)
    if (given == older) n = older;
  std::memcpy(static_cast<void*>(out), &d, n);
  out->struct_size = static_cast<uint32_t>(n);
}
template <typename T>
void write_default(T* out, const T& d, size_t older_size) {
  write_default(out, d, {older_size});
}

}  // namespace ai00::internal::abi

// ---- handle structs (opaque to C) ------------------------------------------------------------

struct ai00_model {
  std::shared_ptr<const ai00::internal::Model> model;
  mutable ai00::internal::abi::ErrorSlot error;
  // Compiled grammars by KBNF text over the model's vocabulary, built on the first grammar
  // compile or generator and shared by all of them (the vocabulary trie has 116k nodes for
  // RWKV World: build it once per model).
  mutable std::mutex cache_mutex;
  mutable std::shared_ptr<ai00::internal::GrammarCache> grammar_cache;
};

namespace ai00::internal::abi {
// The model's GrammarCache (built on first use, thread-safe). InvalidArgument without tokenizer.
std::shared_ptr<GrammarCache> grammar_cache(const ai00_model& model);
}  // namespace ai00::internal::abi
