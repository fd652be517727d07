// Choosing the grammar of a turn and compiling it against a Model's vocabulary (seed 003,
// docs/grammar.md "Token masks", "Tool grammars", docs/chat-formats.md
// "Syntax as data").
//
// grammar_kbnf_for() turns a GrammarRequest plus what the chat format reported (ConstraintHints)
// into KBNF text ("" = unconstrained):
//   automatic    -> seed 003's choose_level: structural when tools or thinking are present,
//                   else none (raw mode: none)
//   structural / schema_aware -> the format's tool grammar, built by build_tool_grammar from the
//                   ChatSyntax the format reported (no format is named here), with the
//                   thinking block optional or forced open as the prompt left it; without
//                   tools, or for a format without tool syntax, a thinking-only grammar (free
//                   text, the thinking block closed first when the prompt opened it)
//   kbnf         -> the caller's KBNF; with thinking on it is wrapped by wrap_thinking
//   json_schema  -> json_schema_to_kbnf of the caller's schema, wrapped the same way
// The context's tool_choice narrows the tool grammar (none: text only; required / named: the
// call block; parallel_calls false: one call); under automatic it turns the grammar on
// whenever tools are present, as the tools alone do.
//
// GrammarCache compiles KBNF texts against one Model's vocabulary (token bytes from the Model's
// tokenizer; mask width = the Model's vocab) and keeps them by text, so many turns and many
// Generators share one compiled grammar (CompiledGrammar is immutable and thread-safe). At most
// `max_entries` grammars are kept; past that the oldest entry is dropped (Matchers hold their own
// reference, so dropping never affects a running turn).
//
// Threading: grammar_kbnf_for is a pure function. GrammarCache is thread-safe (a mutex around the
// map; compiling happens outside it, so two threads may compile the same text once each and the
// first one stored wins). Errors: grammar_kbnf_for returns Result (ErrorKind::grammar for KBNF /
// schema problems with line:column or JSON pointer, ErrorKind::format for a tool name the
// format's syntax cannot write); GrammarCache::compile throws GrammarError; the constructor throws
// InvalidArgument for a Model without a tokenizer.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/result.h"
#include "format/format.h"
#include "grammar/matcher.h"
#include "grammar/tool_grammar.h"
#include "grammar/vocab_index.h"

namespace ai00::internal {

class Model;

enum class GrammarMode {
  automatic,     // seed 003: structural when tools or thinking are present, else none
  none,          // unconstrained
  structural,    // thinking / call structure of the format
  schema_aware,  // plus tool names and argument values by their schemas
  kbnf,          // GrammarRequest::text is KBNF (start rule `start`)
  json_schema,   // GrammarRequest::text is a JSON Schema; the output is one JSON value
};
const char* grammar_mode_name(GrammarMode mode);  // "automatic", "none", ..., "json_schema"
// The names above; ErrorKind::invalid_argument listing them otherwise.
Result<GrammarMode> parse_grammar_mode(std::string_view name);

struct GrammarRequest {
  GrammarMode mode = GrammarMode::automatic;
  std::string text;  // KBNF or JSON Schema text for modes kbnf / json_schema
};

// What the grammar has to know about the turn.
struct GrammarContext {
  bool chat = true;               // false: raw mode (automatic means none)
  bool thinking = false;          // the caller asked for thinking
  format::ConstraintHints hints;  // from RenderResult (raw mode: default)
  // Which calls the tool grammar allows (tool_grammar.h; GenerateOptions::tool_choice).
  // Anything but automatic with parallel calls needs a tool grammar: request modes automatic,
  // structural, schema_aware in a chat turn (none, kbnf, json_schema and raw turns are
  // invalid_argument); `required` and `named` also need tools and a format with tool syntax.
  grammar::ToolChoice tool_choice;
};

struct GrammarText {
  std::string kbnf;                   // "" = unconstrained
  std::vector<std::string> warnings;  // lenient schema conversion
};

// The KBNF of the request (see the header comment).
Result<GrammarText> grammar_kbnf_for(const GrammarRequest& request, const GrammarContext& context);

class GrammarCache {
 public:
  // Builds the VocabIndex from model.tokenizer(): token_bytes(id) for id < tokenizer vocab_size,
  // mask width = model.config().vocab.
  explicit GrammarCache(const Model& model, size_t max_entries = 64);

  // The compiled grammar for `kbnf` (cached by text). Throws GrammarError.
  grammar::CompiledGrammar compile(const std::string& kbnf);

  const std::shared_ptr<const grammar::VocabIndex>& vocab() const { return vocab_; }
  uint64_t model_fingerprint() const { return fingerprint_; }
  size_t size() const;  // grammars held

 private:
  std::shared_ptr<const grammar::VocabIndex> vocab_;
  uint64_t fingerprint_ = 0;
  size_t max_entries_ = 64;
  std::vector<std::string> order_;  // insertion order, for eviction
  mutable std::mutex mutex_;
  std::map<std::string, grammar::CompiledGrammar> grammars_;
};

}  // namespace ai00::internal