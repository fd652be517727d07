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
//
// Grammars without a model (byte level, or over a Tokenizer's vocabulary) check text and show
// the KBNF the library builds; generators refuse them:
//
//   ai00::Grammar g = ai00::Grammar::from_json_schema(schema);  // byte level
//   std::string kbnf = g.kbnf_text();
//   ai00_grammar_check_result r = g.check("{\"x\": 1}");      // r.verdict, r.byte_offset
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/chat_template.hpp"
#include "ai00/error.hpp"
#include "ai00/model.hpp"
#include "ai00/tokenizer.hpp"

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
  // One JSON document valid under `schema` (JSON Schema as JSON text). `options` may be null
  // for the defaults (JSON Schema semantics, any JSON whitespace).
  static Grammar json_schema(const Model& model, std::string_view schema,
                             const ai00_schema_options* options = nullptr) {
    ai00_grammar* g = nullptr;
    detail::check(ai00_grammar_from_json_schema_with_options(&g, model.get(), schema.data(),
                                                             schema.size(), options));
    return Grammar(g);
  }

  // KBNF without a model: byte level when `tokenizer` is null, else over its vocabulary.
  static Grammar compile(std::string_view text, const Tokenizer* tokenizer = nullptr,
                         std::string_view start_rule = "start") {
    ai00_grammar_params p{};
    p.struct_size = sizeof p;  // this header's size (docs/abi.md)
    detail::check(ai00_grammar_params_default(&p));
    p.start_rule = start_rule.data();
    p.start_rule_len = start_rule.size();
    ai00_grammar* g = nullptr;
    detail::check(
        ai00_grammar_new(&g, tokenizer ? tokenizer->get() : nullptr, text.data(), text.size(), &p));
    return Grammar(g);
  }
  // A JSON Schema converted to KBNF, without a model. `options` may be null for the defaults.
  static Grammar from_json_schema(std::string_view schema,
                                  const ai00_schema_options* options = nullptr,
                                  const Tokenizer* tokenizer = nullptr) {
    ai00_grammar* g = nullptr;
    detail::check(ai00_grammar_new_from_json_schema(&g, tokenizer ? tokenizer->get() : nullptr,
                                                    schema.data(), schema.size(), options));
    return Grammar(g);
  }
  // The tool-call grammar of `tmpl`'s format for a JSON tool list, without a model.
  static Grammar for_tools(const ChatTemplate& tmpl, std::string_view tools_json,
                           const ai00_tool_grammar_params* params = nullptr,
                           const Tokenizer* tokenizer = nullptr) {
    ai00_grammar* g = nullptr;
    detail::check(ai00_grammar_new_for_tools(&g, tokenizer ? tokenizer->get() : nullptr, tmpl.get(),
                                             tools_json.data(), tools_json.size(), params));
    return Grammar(g);
  }

  // The KBNF text (converted schemas and tool grammars included).
  std::string kbnf_text() const {
    const char* text = nullptr;
    size_t len = 0;
    detail::check(ai00_grammar_kbnf(&text, &len, get()));
    return std::string(text, len);
  }
  // Warnings of the construction (lenient schema conversion).
  std::vector<std::string> warnings() const {
    size_t n = 0;
    detail::check(ai00_grammar_warning_count(&n, get()));
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
      const char* w = nullptr;
      size_t len = 0;
      detail::check(ai00_grammar_warning(&w, &len, get(), i));
      out.emplace_back(w, len);
    }
    return out;
  }
  // Byte-level check, plus the token-level replay for a grammar over a Tokenizer.
  ai00_grammar_check_result check(std::string_view text) const {
    ai00_grammar_check_result r{};
    r.struct_size = sizeof r;
    detail::check(ai00_grammar_check(&r, get(), text.data(), text.size()));
    return r;
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
