// One set of resource limits for every parser, compiler and loader of ai00 (docs/layers.md
// "Limits"). Each is checked before the work it bounds, and the error names the limit, its value
// and where it was hit: "<where>: <what> exceeds the limit max_nesting_depth = 256".
//
// The limits are process-wide (ai00_limits_set in the C ABI, `--limit NAME=VALUE` in the CLI):
// a snapshot is taken at the start of each operation, so changing them while other threads
// work affects only operations that start later. Thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "base/error.h"

namespace ai00::internal {

struct Limits {
  // DFA states of all the automata of one compiled grammar (subset construction budget).
  uint64_t max_grammar_states = 50000;
  // NFA states of one terminal (a counted repeat expands into copies).
  uint64_t max_nfa_states = 200000;
  // Nesting of KBNF groups, regex groups and character classes, JSON arrays/objects (messages,
  // tools, schemas) and pickle containers.
  uint32_t max_nesting_depth = 256;
  // Threads of one model's pool.
  uint32_t max_threads = 1024;
  // One text input: KBNF source, JSON document (conversation, tools, schema), pickle.
  uint64_t max_input_bytes = uint64_t(64) << 20;
  // One file opened by the library (weights, State, vocabulary).
  uint64_t max_file_bytes = uint64_t(1) << 40;
  // One string inside an input: a KBNF literal, regex or #substrs text.
  uint64_t max_string_bytes = uint64_t(1) << 20;
  // Tokens of one prompt or one generation (max_tokens), and of one tokenize call.
  uint64_t max_tokens = uint64_t(1) << 24;
};

// The largest accepted max_nesting_depth: the parsers recurse once per level, and this many
// levels fit in the 8 MiB stack of a Linux thread, also under AddressSanitizer (tested).
constexpr uint32_t kMaxNestingDepthCap = 1000;

// The current limits (a copy).
Limits limits();
// Replaces the limits; every field must be >= 1 and max_nesting_depth <= kMaxNestingDepthCap
// (InvalidArgument names the field otherwise).
void set_limits(const Limits& l);

// "<where>: <what> exceeds the limit <name> = <value>" as an Error of `kind`.
[[noreturn]] void throw_limit(ErrorKind kind, const std::string& where, const std::string& what,
                              const char* name, uint64_t value);
std::string limit_message(const std::string& where, const std::string& what, const char* name,
                          uint64_t value);

}  // namespace ai00::internal
