// ai00 C++ API — Grammar: KBNF or JSON Schema compiled for one Model's vocabulary
// (header-only RAII over ai00.h).
//
// Ownership: a cheap, copyable reference (shared). Threading: immutable; share it between
// threads and generators freely. Errors: ai00::Error with AI00_ERR_GRAMMAR and
// "line L, column C: ..." (KBNF) or the JSON pointer (schemas).
//
// Usage:
//
//   ai00::Grammar yes_no = ai00::Grammar::kbnf(model, "start ::= \"yes\" | \"no\";");
//   ai00::GenerateOptions options;
//   options.grammar = yes_no;  // the reply can only be "yes" or "no"
//
// A custom grammar replaces the chat format's own structural grammar for that turn.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ai00/ai00.h"
#include "ai00/error.hpp"
#include "ai00/model.hpp"

namespace ai00 {
inline namespace api {

class Grammar {
 public:
  // KBNF text with start rule `start`.
  static Grammar kbnf(const Model& model, std::string_view text) {
    ai00_grammar* g = nullptr;
    detail::check(ai00_grammar_compile(&g, model.get(), text.data(), text.size()));
    return Grammar(g);
  }
  // One JSON document valid under `schema` (JSON Schema as JSON text).
  static Grammar json_schema(const Model& model, std::string_view schema) {
    ai00_grammar* g = nullptr;
    detail::check(ai00_grammar_from_json_schema(&g, model.get(), schema.data(), schema.size()));
    return Grammar(g);
  }

  // True if `text` is a complete sentence of the grammar.
  bool accepts(std::string_view text) const {
    int32_t ok = 0;
    detail::check(ai00_grammar_accepts(&ok, get(), text.data(), text.size()));
    return ok != 0;
  }

  explicit Grammar(ai00_grammar* owned) : handle_(owned, &free_grammar) {}
  ai00_grammar* get() const noexcept { return handle_.get(); }

 private:
  static void free_grammar(ai00_grammar* g) noexcept { ai00_grammar_free(g); }
  std::shared_ptr<ai00_grammar> handle_;
};

}  // namespace api
}  // namespace ai00
