// ai00 v0 (seed 000 "Migration from v0"): ai00_server's earlier public format.
//
// Records "{label}: {content}" joined by "\n\n"; generation prompt "{assistant}:" with no
// trailing space; stop "\n\n". Labels come from Ai00V0Options (a message's `name` replaces its
// role label). Content is normalised as in Goose: blank-line runs → one "\n", trimmed. Tool calls
// are written after the content as <tool_call>{"name":…,"arguments":…}</tool_call>, one per line,
// and tool results as an "Observation" record. v0 has no syntax for tool definitions or thinking:
// both are refused with an unsupported error (migrate to ai00-v1 for them).
// Marker policy (docs/chat-formats.md "Escaping"): user, system and tool text containing
// "<tool_call>" or "</tool_call>" is refused; call JSON and value parts are escaped ('<' as
// \u003c); the assistant's text is kept (the parser's degraded calls render again); blank-line
// collapsing keeps any text from ending a record. Speaker names: no ':' or newline.
//
// Threading: the format is immutable; parsers are per stream.
#pragma once

#include <memory>
#include <string>

#include "format/format.h"

namespace ai00::internal::format {

// The four values that describe a v0 setup: record = "{label}: {content}", sep = "\n\n",
// prefix = "{assistant}:", and the role labels (`names`).
struct Ai00V0Options {
  std::string user = "User";
  std::string assistant = "Assistant";
  std::string system = "System";
  std::string tool = "Observation";
};

std::shared_ptr<const ChatFormat> make_ai00_v0(const Ai00V0Options& options = {});

}  // namespace ai00::internal::format
