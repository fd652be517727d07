// The Grammar handle of the C ABI (shared with the generator binding).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi_internal.h"
#include "core/tokenizer/tokenizer.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"

// Immutable after creation; CompiledGrammar is itself a shared, thread-safe handle.
struct ai00_grammar {
  ai00_grammar(ai00::internal::grammar::CompiledGrammar c, std::string text)
      : compiled(std::move(c)), kbnf(std::move(text)) {}
  ai00::internal::grammar::CompiledGrammar compiled;
  std::string kbnf;  // the source (JSON Schemas converted to KBNF), for diagnostics
  std::vector<std::string> warnings;  // of the construction (lenient schema conversion)
  // Set for grammars made without a model (ai00_grammar_new*): generators refuse them. The
  // tokenizer (may be null: byte level) replays the tokenization in ai00_grammar_check.
  bool standalone = false;
  std::shared_ptr<const ai00::internal::Tokenizer> tokenizer;
  mutable ai00::internal::abi::ErrorSlot error;
};

namespace ai00::internal::abi {
// ai00_schema_options (NULL: `fallback`) as converter options; InvalidArgument for bad fields or
// an unknown struct_size (a size that ends before an appended field is accepted).
grammar::JsonSchemaOptions schema_options(const ai00_schema_options* given, const char* fn,
                                          const grammar::JsonSchemaOptions& fallback = {});
}  // namespace ai00::internal::abi
