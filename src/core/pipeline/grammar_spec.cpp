// Grammar choice for a turn and the per-Model cache of compiled grammars (grammar_spec.h).
#include "core/pipeline/grammar_spec.h"

#include <algorithm>
#include <utility>

#include "base/error.h"
#include "core/model/model.h"
#include "core/tokenizer/tokenizer.h"
#include "format/json.h"
#include "grammar/json_schema.h"
#include "grammar/thinking.h"
#include "grammar/tool_grammar.h"

namespace ai00::internal {

namespace {

constexpr const char* kModeNames[] = {"automatic",    "none", "structural",
                                      "schema_aware", "kbnf", "json_schema"};

grammar::ThinkingStart thinking_start(const format::ConstraintHints& h) {
  return h.thinking_open_in_prompt ? grammar::ThinkingStart::forced_open
                                   : grammar::ThinkingStart::optional;
}

// Whether a thinking block may appear at all: the caller asked for it, or the prompt opened it,
// and the format has thinking markers.
bool thinking_on(const GrammarContext& c) {
  return (c.thinking || c.hints.thinking_open_in_prompt) && !c.hints.syntax.thinking.open.empty();
}

std::vector<grammar::ToolSpec> tool_specs(const std::vector<format::ToolDesc>& tools) {
  std::vector<grammar::ToolSpec> out;
  out.reserve(tools.size());
  for (const auto& t : tools) {
    grammar::ToolSpec s;
    s.name = t.name;
    s.description = t.description.value_or("");
    s.parameters_json = t.parameters.is_null() ? std::string() : json::write(t.parameters);
    out.push_back(std::move(s));
  }
  return out;
}

// Wraps a complete grammar in the optional / forced-open thinking block when thinking is on.
Result<std::string> maybe_wrap(std::string kbnf, const GrammarContext& c) {
  if (!thinking_on(c)) return kbnf;
  return grammar::wrap_thinking_kbnf(kbnf, thinking_start(c.hints), c.hints.syntax.thinking);
}

bool forces_call(const grammar::ToolChoice& c) {
  return c.mode == grammar::ToolChoiceMode::required || c.mode == grammar::ToolChoiceMode::named;
}

// A tool choice other than the default needs a tool grammar: a chat turn in mode automatic,
// structural or schema_aware.
Result<bool> check_tool_choice(const GrammarRequest& r, const GrammarContext& c) {
  const grammar::ToolChoice& t = c.tool_choice;
  if (t.mode == grammar::ToolChoiceMode::automatic && t.parallel_calls) return true;
  const std::string what =
      t.mode == grammar::ToolChoiceMode::automatic
          ? std::string("parallel_tool_calls = false")
          : std::string("tool_choice `") + grammar::tool_choice_name(t.mode) + "`";
  if (!c.chat)
    return make_error(ErrorKind::invalid_argument, what + " needs a chat turn (this is raw)");
  if (r.mode == GrammarMode::none || r.mode == GrammarMode::kbnf ||
      r.mode == GrammarMode::json_schema)
    return make_error(ErrorKind::invalid_argument,
                      what + " needs the tool grammar, but the grammar mode is `" +
                          grammar_mode_name(r.mode) + "`");
  if (forces_call(t) && c.hints.syntax.tool_calls.trigger.empty())
    return make_error(ErrorKind::invalid_argument,
                      what + ": the chat format has no tool-call syntax");
  if (forces_call(t) && c.hints.tools.empty())
    return make_error(ErrorKind::invalid_argument, what + " with no tools in the turn");
  return true;
}

// The format's own grammar at `level`, built by src/grammar from the syntax the format reported.
Result<GrammarText> structural(grammar::ValidationLevel level, const GrammarContext& c,
                               const grammar::ToolChoice& choice) {
  const format::ConstraintHints& h = c.hints;
  if (h.tools.empty() || h.syntax.tool_calls.trigger.empty()) {
    // No tools offered, or a format without tool syntax (Goose, raw): free text, with the
    // thinking block closed first when the prompt opened it. Without thinking there is nothing
    // to enforce.
    if (!thinking_on(c)) return GrammarText{};
    auto w = grammar::thinking_only_kbnf(h.syntax.thinking, thinking_start(h));
    if (!w.ok()) return w.error();
    return GrammarText{std::move(w).value(), {}};
  }
  grammar::ToolGrammarOptions o;
  o.syntax = h.syntax;
  o.level = level;
  o.thinking = thinking_start(h);
  // Under end policy eos a text answer may also end with token 0 (stop_on_token0 formats).
  o.allow_eos_end = true;
  o.choice = choice;
  // A forced call with thinking off is the call block alone: seed 003 keeps the thinking block
  // optional so that a model may think unasked, but a forced reply must not wander there.
  if (forces_call(choice) && !thinking_on(c)) o.syntax.thinking = {};
  auto g = grammar::build_tool_grammar(tool_specs(h.tools), o);
  if (!g.ok()) return g.error();
  return GrammarText{std::move(g.value().kbnf), std::move(g.value().warnings)};
}

}  // namespace

const char* grammar_mode_name(GrammarMode mode) { return kModeNames[static_cast<size_t>(mode)]; }

Result<GrammarMode> parse_grammar_mode(std::string_view name) {
  for (size_t i = 0; i < std::size(kModeNames); ++i)
    if (name == kModeNames[i]) return static_cast<GrammarMode>(i);
  return make_error(ErrorKind::invalid_argument,
                    "grammar mode '" + std::string(name) +
                        "' is unknown (automatic, none, structural, schema_aware, kbnf, "
                        "json_schema)");
}

Result<GrammarText> grammar_kbnf_for(const GrammarRequest& request, const GrammarContext& context) {
  if (auto ok = check_tool_choice(request, context); !ok.ok()) return ok.error();
  const grammar::ToolChoice& choice = context.tool_choice;
  switch (request.mode) {
    case GrammarMode::none:
      return GrammarText{};
    case GrammarMode::automatic: {
      if (!context.chat) return GrammarText{};
      auto level =
          grammar::choose_level(std::nullopt, !context.hints.tools.empty(), thinking_on(context));
      if (level == grammar::ValidationLevel::none) return GrammarText{};
      return structural(level, context, choice);
    }
    case GrammarMode::structural:
      return structural(grammar::ValidationLevel::structural, context, choice);
    case GrammarMode::schema_aware:
      return structural(grammar::ValidationLevel::schema_aware, context, choice);
    case GrammarMode::kbnf: {
      auto w = maybe_wrap(request.text, context);
      if (!w.ok()) return w.error();
      return GrammarText{std::move(w).value(), {}};
    }
    case GrammarMode::json_schema: {
      // Validator semantics inside the value; none around it, so the turn is grammar_done
      // where the value ends (docs/grammar.md "JSON Schema").
      grammar::JsonSchemaOptions o;
      o.outer_whitespace = false;
      auto s = grammar::json_schema_to_kbnf(request.text, o);
      if (!s.ok()) return s.error();
      auto w = maybe_wrap(std::move(s.value().kbnf), context);
      if (!w.ok()) return w.error();
      return GrammarText{std::move(w).value(), std::move(s.value().warnings)};
    }
  }
  return make_error(ErrorKind::invalid_argument, "grammar: unknown grammar mode");
}

GrammarCache::GrammarCache(const Model& model, size_t max_entries)
    : fingerprint_(model.fingerprint()), max_entries_(std::max<size_t>(1, max_entries)) {
  const Tokenizer* tok = model.tokenizer();
  if (!tok) throw InvalidArgument("GrammarCache: the model has no tokenizer");
  std::vector<std::string> tokens(tok->vocab_size());
  for (uint32_t id = 1; id < tokens.size(); ++id) tokens[id] = std::string(tok->token_bytes(id));
  size_t width = std::max<size_t>(tokens.size(), static_cast<size_t>(model.config().vocab));
  vocab_ = grammar::VocabIndex::build(std::move(tokens), width);
}

grammar::CompiledGrammar GrammarCache::compile(const std::string& kbnf) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = grammars_.find(kbnf);
    if (it != grammars_.end()) return it->second;
  }
  // Compile outside the lock: a large grammar must not block other turns' lookups.
  grammar::CompiledGrammar g = grammar::CompiledGrammar::compile_kbnf(kbnf, vocab_);
  std::lock_guard<std::mutex> lock(mutex_);
  auto ins = grammars_.emplace(kbnf, g);
  if (ins.second) {
    order_.push_back(kbnf);
    if (order_.size() > max_entries_) {
      grammars_.erase(order_.front());
      order_.erase(order_.begin());
    }
  }
  return ins.first->second;
}

size_t GrammarCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return grammars_.size();
}

}  // namespace ai00::internal