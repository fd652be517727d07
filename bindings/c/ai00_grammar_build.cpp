// Grammars without a model (docs/grammar.md): KBNF, JSON Schema and tool-call grammars compiled
// at byte level or against a tokenizer's vocabulary, their KBNF text and warnings, and
// ai00_grammar_check. Generators refuse these handles (they need the model's vocabulary).
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "abi_grammar.h"
#include "abi_template.h"
#include "abi_tokenizer.h"
#include "grammar/json_schema.h"
#include "grammar/kbnf_parser.h"
#include "grammar/matcher.h"
#include "grammar/tool_grammar.h"

namespace {

using ai00::internal::abi::require;
namespace grammar = ai00::internal::grammar;

ai00::internal::abi::ErrorSlot* slot_of(const ai00_grammar* g) { return g ? &g->error : nullptr; }

// Compiles `kbnf` for the tokenizer (or at byte level) into a standalone handle.
ai00_grammar* build(const ai00_tokenizer* tokenizer, std::string kbnf, std::string start,
                    std::vector<std::string> warnings) {
  grammar::ParseOptions po;
  po.start = std::move(start);
  std::shared_ptr<const grammar::VocabIndex> vocab;
  if (tokenizer != nullptr) vocab = ai00::internal::abi::vocab_index(*tokenizer);
  auto g = std::make_unique<ai00_grammar>(
      grammar::CompiledGrammar::compile_kbnf(kbnf, std::move(vocab), po), std::move(kbnf));
  g->warnings = std::move(warnings);
  g->standalone = true;
  if (tokenizer != nullptr) g->tokenizer = tokenizer->tok;
  return g.release();
}

}  // namespace

namespace ai00::internal::abi {

// `fallback` when `given` is NULL (JSON Schema defaults, or the canonical layout of tool calls).
grammar::JsonSchemaOptions schema_options(const ai00_schema_options* given, const char* fn,
                                          const grammar::JsonSchemaOptions& fallback) {
  grammar::JsonSchemaOptions r = fallback;
  if (given == nullptr) return r;
  ai00::internal::abi::check_struct_size(given->struct_size, offsetof(ai00_schema_options, compact),
                                         sizeof(ai00_schema_options), fn, "ai00_schema_options");
  // A caller built against an older header: the fields it has, zero for the appended ones.
  ai00_schema_options copy{};
  std::memcpy(&copy, given, given->struct_size);
  const ai00_schema_options* o = &copy;
  if (o->max_whitespace > 64) {
    throw ai00::internal::InvalidArgument(std::string(fn) +
                                          ": ai00_schema_options.max_whitespace = " +
                                          std::to_string(o->max_whitespace) + " is above 64");
  }
  r.lenient = o->lenient != 0;
  r.strict_properties = o->strict_properties != 0;
  r.flexible_whitespace = o->flexible_whitespace != 0;
  r.max_whitespace = o->max_whitespace;
  r.compact = o->compact != 0;
  return r;
}

}  // namespace ai00::internal::abi

namespace {
using ai00::internal::abi::schema_options;

grammar::ToolGrammarOptions tool_options(const ai00_tool_grammar_params* p, const char* fn) {
  ai00_tool_grammar_params d{};
  ai00_tool_grammar_params_default(&d);
  if (p != nullptr) {
    ai00::internal::abi::check_struct_size(p->struct_size, sizeof(ai00_tool_grammar_params),
                                           sizeof(ai00_tool_grammar_params), fn,
                                           "ai00_tool_grammar_params");
    d = *p;
  }
  grammar::ToolGrammarOptions o;
  if (d.level == AI00_GRAMMAR_STRUCTURAL) {
    o.level = grammar::ValidationLevel::structural;
  } else if (d.level == AI00_GRAMMAR_SCHEMA_AWARE) {
    o.level = grammar::ValidationLevel::schema_aware;
  } else {
    throw ai00::internal::InvalidArgument(
        std::string(fn) + ": ai00_tool_grammar_params.level = " + std::to_string(d.level) +
        " is not AI00_GRAMMAR_STRUCTURAL or AI00_GRAMMAR_SCHEMA_AWARE");
  }
  switch (d.thinking_start) {
    case AI00_THINKING_START_OPTIONAL:
      o.thinking = grammar::ThinkingStart::optional;
      break;
    case AI00_THINKING_START_FORCED:
      o.thinking = grammar::ThinkingStart::forced_open;
      break;
    case AI00_THINKING_START_FORCED_PARTIAL:
      // Resolved against the template's open marker in ai00_grammar_new_for_tools.
      o.thinking = grammar::ThinkingStart::forced_open;
      break;
    default:
      throw ai00::internal::InvalidArgument(
          std::string(fn) + ": ai00_tool_grammar_params.thinking_start = " +
          std::to_string(d.thinking_start) + " is not an ai00_thinking_start");
  }
  o.allow_eos_end = d.allow_eos_end != 0;
  o.schema = schema_options(d.schema, fn, grammar::JsonSchemaOptions::canonical());
  return o;
}

bool in_mask(const std::vector<uint64_t>& m, uint32_t id) { return (m[id >> 6] >> (id & 63)) & 1; }

// Replays the greedy tokenization of `text` against the masks; fills `r` on the first failure.
void token_check(grammar::Matcher m, const ai00::internal::Tokenizer& tok, std::string_view text,
                 ai00_grammar_check_result& r) {
  const std::vector<uint32_t> ids = tok.encode(text);
  uint64_t offset = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!in_mask(m.mask(), ids[i]) || !m.accept_token(ids[i])) {
      r.verdict = AI00_CHECK_TOKEN;
      r.byte_offset = offset;
      r.token_index = i;
      r.token_id = ids[i];
      return;
    }
    offset += tok.token_bytes(ids[i]).size();
  }
  if (!in_mask(m.mask(), 0)) r.verdict = AI00_CHECK_END_TOKEN;
}

// Checks the caller's struct and writes `r` into it.
void write_result(ai00_grammar_check_result* out, ai00_grammar_check_result r, const char* fn) {
  ai00::internal::abi::check_struct_size(out->struct_size, sizeof(ai00_grammar_check_result),
                                         sizeof(ai00_grammar_check_result), fn,
                                         "ai00_grammar_check_result");
  r.struct_size = out->struct_size;
  *out = r;
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_grammar_params_default(ai00_grammar_params* out_params) {
  try {
    require(out_params, "ai00_grammar_params_default", "out_params");
    *out_params = ai00_grammar_params{};
    out_params->struct_size = sizeof(ai00_grammar_params);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_schema_options_default(ai00_schema_options* out_options) {
  try {
    require(out_options, "ai00_schema_options_default", "out_options");
    const grammar::JsonSchemaOptions d;
    ai00_schema_options o{};
    o.struct_size = sizeof(ai00_schema_options);
    o.lenient = d.lenient ? 1 : 0;
    o.strict_properties = d.strict_properties ? 1 : 0;
    o.flexible_whitespace = d.flexible_whitespace ? 1 : 0;
    o.max_whitespace = d.max_whitespace;
    o.compact = d.compact ? 1 : 0;
    ai00::internal::abi::write_default(out_options, o, offsetof(ai00_schema_options, compact));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_tool_grammar_params_default(ai00_tool_grammar_params* out_params) {
  try {
    require(out_params, "ai00_tool_grammar_params_default", "out_params");
    *out_params = ai00_tool_grammar_params{};
    out_params->struct_size = sizeof(ai00_tool_grammar_params);
    out_params->level = AI00_GRAMMAR_STRUCTURAL;
    out_params->thinking_start = AI00_THINKING_START_OPTIONAL;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_grammar_new(ai00_grammar** out_grammar, const ai00_tokenizer* tokenizer,
                                      const char* kbnf, size_t kbnf_len,
                                      const ai00_grammar_params* params) {
  try {
    const char* fn = "ai00_grammar_new";
    require(out_grammar, fn, "out_grammar");
    require(kbnf, fn, "kbnf");
    std::string start = "start";
    if (params != nullptr) {
      ai00::internal::abi::check_struct_size(params->struct_size, sizeof(ai00_grammar_params),
                                             sizeof(ai00_grammar_params), fn,
                                             "ai00_grammar_params");
      if (params->start_rule != nullptr) {
        start = std::string(ai00::internal::abi::text_arg(
            params->start_rule, params->start_rule_len, fn, "start_rule"));
      }
    }
    std::string text(ai00::internal::abi::text_arg(kbnf, kbnf_len, fn, "kbnf"));
    *out_grammar = build(tokenizer, std::move(text), std::move(start), {});
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(tokenizer ? &tokenizer->error : nullptr);
  }
}

AI00_API ai00_status ai00_grammar_new_from_json_schema(ai00_grammar** out_grammar,
                                                       const ai00_tokenizer* tokenizer,
                                                       const char* schema_json, size_t schema_len,
                                                       const ai00_schema_options* options) {
  try {
    const char* fn = "ai00_grammar_new_from_json_schema";
    require(out_grammar, fn, "out_grammar");
    require(schema_json, fn, "schema_json");
    std::string_view schema =
        ai00::internal::abi::text_arg(schema_json, schema_len, fn, "schema_json");
    auto g = grammar::json_schema_to_kbnf(schema, schema_options(options, fn)).value_or_throw();
    *out_grammar = build(tokenizer, std::move(g.kbnf), "start", std::move(g.warnings));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(tokenizer ? &tokenizer->error : nullptr);
  }
}

AI00_API ai00_status ai00_grammar_new_for_tools(ai00_grammar** out_grammar,
                                                const ai00_tokenizer* tokenizer,
                                                const ai00_chat_template* tmpl,
                                                const char* tools_json, size_t tools_json_len,
                                                const ai00_tool_grammar_params* params) {
  try {
    const char* fn = "ai00_grammar_new_for_tools";
    require(out_grammar, fn, "out_grammar");
    require(tmpl, fn, "tmpl");
    require(tools_json, fn, "tools_json");
    grammar::ToolGrammarOptions o = tool_options(params, fn);
    // The chat format describes its own syntax; the grammar is built from that description.
    o.syntax = tmpl->format->syntax();
    if (params != nullptr && params->thinking_start == AI00_THINKING_START_FORCED_PARTIAL) {
      const std::string& open = o.syntax.thinking.open;
      o.syntax.thinking.forced_open_completion = open.empty() ? "" : open.substr(open.size() - 1);
    }
    std::string_view json =
        ai00::internal::abi::text_arg(tools_json, tools_json_len, fn, "tools_json");
    auto list = grammar::parse_tool_list(json).value_or_throw();
    auto g = grammar::build_tool_grammar(list, o).value_or_throw();
    *out_grammar = build(tokenizer, std::move(g.kbnf), "start", std::move(g.warnings));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(tokenizer ? &tokenizer->error : nullptr);
  }
}

AI00_API ai00_status ai00_grammar_kbnf(const char** out_kbnf, size_t* out_len,
                                       const ai00_grammar* grammar) {
  try {
    require(out_kbnf, "ai00_grammar_kbnf", "out_kbnf");
    require(out_len, "ai00_grammar_kbnf", "out_len");
    require(grammar, "ai00_grammar_kbnf", "grammar");
    *out_kbnf = grammar->kbnf.c_str();
    *out_len = grammar->kbnf.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(grammar));
  }
}

AI00_API ai00_status ai00_grammar_warning_count(size_t* out_count, const ai00_grammar* grammar) {
  try {
    require(out_count, "ai00_grammar_warning_count", "out_count");
    require(grammar, "ai00_grammar_warning_count", "grammar");
    *out_count = grammar->warnings.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(grammar));
  }
}

AI00_API ai00_status ai00_grammar_warning(const char** out_text, size_t* out_len,
                                          const ai00_grammar* grammar, size_t index) {
  try {
    const char* fn = "ai00_grammar_warning";
    require(out_text, fn, "out_text");
    require(out_len, fn, "out_len");
    require(grammar, fn, "grammar");
    if (index >= grammar->warnings.size()) {
      throw ai00::internal::InvalidArgument(std::string(fn) + ": index " + std::to_string(index) +
                                            " is past the " +
                                            std::to_string(grammar->warnings.size()) + " warnings");
    }
    *out_text = grammar->warnings[index].c_str();
    *out_len = grammar->warnings[index].size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(grammar));
  }
}

AI00_API ai00_status ai00_grammar_check(ai00_grammar_check_result* out_result,
                                        const ai00_grammar* grammar, const char* text,
                                        size_t text_len) {
  try {
    const char* fn = "ai00_grammar_check";
    require(out_result, fn, "out_result");
    require(grammar, fn, "grammar");
    std::string_view bytes = ai00::internal::abi::text_arg(text, text_len, fn, "text");
    ai00_grammar_check_result r{};
    r.verdict = AI00_CHECK_ACCEPTED;
    grammar::Matcher m(grammar->compiled);
    const size_t n = m.valid_prefix_length(bytes);
    if (n < bytes.size() || !m.accept_bytes(bytes) || !m.is_complete()) {
      r.verdict = AI00_CHECK_BYTES;
      r.byte_offset = n;
    } else if (grammar->tokenizer && grammar->compiled.vocab() != nullptr) {
      m.reset();
      token_check(m, *grammar->tokenizer, bytes, r);
    }
    write_result(out_result, r, fn);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(grammar));
  }
}

}  // extern "C"
