// Grammar handle of the C ABI: KBNF or JSON Schema compiled against a model's vocabulary
// (docs/grammar.md). Compiled grammars come from the model's GrammarCache (one vocabulary trie
// per model); generators use the compiled grammar as is and make their own Matcher over it.
#include <string>

#include "abi_grammar.h"
#include "core/pipeline/grammar_spec.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"

namespace {
using ai00::internal::abi::require;
ai00::internal::abi::ErrorSlot* slot_of(const ai00_grammar* g) { return g ? &g->error : nullptr; }

ai00_grammar* compile(const ai00_model& model, std::string kbnf) {
  ai00::internal::grammar::CompiledGrammar compiled =
      ai00::internal::abi::grammar_cache(model)->compile(kbnf);
  return new ai00_grammar(std::move(compiled), std::move(kbnf));
}
}  // namespace

extern "C" {

AI00_API ai00_status ai00_grammar_compile(ai00_grammar** out_grammar, const ai00_model* model,
                                          const char* kbnf, size_t kbnf_len) {
  try {
    const char* fn = "ai00_grammar_compile";
    require(out_grammar, fn, "out_grammar");
    require(model, fn, "model");
    require(kbnf, fn, "kbnf");
    *out_grammar =
        compile(*model, std::string(ai00::internal::abi::text_arg(kbnf, kbnf_len, fn, "kbnf")));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(model ? &model->error : nullptr);
  }
}

AI00_API ai00_status ai00_grammar_from_json_schema(ai00_grammar** out_grammar,
                                                   const ai00_model* model, const char* schema_json,
                                                   size_t schema_len) {
  try {
    const char* fn = "ai00_grammar_from_json_schema";
    require(out_grammar, fn, "out_grammar");
    require(model, fn, "model");
    require(schema_json, fn, "schema_json");
    std::string_view schema =
        ai00::internal::abi::text_arg(schema_json, schema_len, fn, "schema_json");
    ai00::internal::grammar::JsonSchemaOptions o;
    o.outer_whitespace = false;  // for generation: done where the value ends
    auto converted = ai00::internal::grammar::json_schema_to_kbnf(schema, o);
    if (!converted.ok()) {
      ai00::internal::throw_error(converted.error().kind,
                                  std::string("JSON Schema: ") + converted.error().message);
    }
    *out_grammar = compile(*model, std::move(converted.value().kbnf));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(model ? &model->error : nullptr);
  }
}

AI00_API ai00_status ai00_grammar_from_json_schema_with_options(
    ai00_grammar** out_grammar, const ai00_model* model, const char* schema_json, size_t schema_len,
    const struct ai00_schema_options* options) {
  try {
    const char* fn = "ai00_grammar_from_json_schema_with_options";
    require(out_grammar, fn, "out_grammar");
    require(model, fn, "model");
    require(schema_json, fn, "schema_json");
    std::string_view schema =
        ai00::internal::abi::text_arg(schema_json, schema_len, fn, "schema_json");
    ai00::internal::grammar::JsonSchemaOptions o = ai00::internal::abi::schema_options(options, fn);
    o.outer_whitespace = false;  // for generation: done where the value ends
    auto converted = ai00::internal::grammar::json_schema_to_kbnf(schema, o);
    if (!converted.ok()) {
      ai00::internal::throw_error(converted.error().kind,
                                  std::string("JSON Schema: ") + converted.error().message);
    }
    ai00_grammar* g = compile(*model, std::move(converted.value().kbnf));
    g->warnings = std::move(converted.value().warnings);
    *out_grammar = g;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(model ? &model->error : nullptr);
  }
}

AI00_API ai00_status ai00_grammar_free(ai00_grammar* grammar) {
  try {
    delete grammar;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_grammar_last_error(const ai00_grammar* grammar) {
  try {
    return grammar ? grammar->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_grammar_accepts(int32_t* out_accepted, const ai00_grammar* grammar,
                                          const char* text, size_t text_len) {
  try {
    const char* fn = "ai00_grammar_accepts";
    require(out_accepted, fn, "out_accepted");
    require(grammar, fn, "grammar");
    std::string_view bytes = ai00::internal::abi::text_arg(text, text_len, fn, "text");
    ai00::internal::grammar::Matcher m(grammar->compiled);
    *out_accepted = (m.accept_bytes(bytes) && m.is_complete()) ? 1 : 0;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(grammar));
  }
}

}  // extern "C"
