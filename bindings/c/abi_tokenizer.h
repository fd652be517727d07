// The Tokenizer handle of the C ABI (shared with the grammar binding, which compiles grammars
// against its vocabulary).
#pragma once

#include <memory>
#include <mutex>

#include "abi_internal.h"
#include "core/tokenizer/tokenizer.h"
#include "grammar/vocab_index.h"

// Immutable after creation apart from the vocabulary index, built once on first use.
struct ai00_tokenizer {
  std::shared_ptr<const ai00::internal::Tokenizer> tok;
  mutable ai00::internal::abi::ErrorSlot error;
  mutable std::mutex index_mutex;
  mutable std::shared_ptr<const ai00::internal::grammar::VocabIndex> index;
};

namespace ai00::internal::abi {
// The token byte strings of `t` as a grammar vocabulary (built on first use, thread-safe).
std::shared_ptr<const grammar::VocabIndex> vocab_index(const ai00_tokenizer& t);
}  // namespace ai00::internal::abi
