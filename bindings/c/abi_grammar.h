// The Grammar handle of the C ABI (shared with the generator binding).
#pragma once

#include <string>
#include <utility>

#include "abi_internal.h"
#include "grammar/matcher.h"

// Immutable after creation; CompiledGrammar is itself a shared, thread-safe handle.
struct ai00_grammar {
  ai00_grammar(ai00::internal::grammar::CompiledGrammar c, std::string text)
      : compiled(std::move(c)), kbnf(std::move(text)) {}
  ai00::internal::grammar::CompiledGrammar compiled;
  std::string kbnf;  // the source (JSON Schemas converted to KBNF), for diagnostics
  mutable ai00::internal::abi::ErrorSlot error;
};
