// A chat format made entirely from data (docs/chat-formats.md).
//
// The four seed formats have hand-written renderers and parsers because their seeds fix
// normalisations no table can express (Goose's blank-line collapsing, ai00 v1's typed XML
// results, OpenChatML's kept thought blocks). A new format whose turns are plain
// `open + body + close` needs no code at all: fill a SyntaxFormatSpec and call
// make_syntax_format(). Its renderer, its incremental output parser and (through
// ChatFormat::syntax(), in src/grammar) its structural and schema_aware tool grammars all follow
// the same ChatSyntax, so they agree byte for byte.
//
// Rendering. Turns are `turn.open + body + turn.close`, joined by `turn_separator`; the
// generation prompt is `turn_separator + assistant.open`, followed, when thinking is on and the
// syntax has a thinking block, by syntax.thinking.open without its forced_open_completion (the
// prompt opens the block; RenderResult::constraints.thinking_open_in_prompt is set). An assistant
// body is `thinking.open + reasoning + thinking.close` (when it has reasoning), then its text,
// then its calls exactly as base/chat_syntax.h lays them out (xml values: strings raw, other
// values as compact JSON; json calls: the syntax's key order and layout). Tools are listed after
// the system text (a newline between) as `tools_open`, one compact JSON object {name,
// description?, parameters} per line, `tools_close`; without a system message, a system turn
// holds only the list. Tool results are tool turns, matched to calls by position; a value part is
// written as compact JSON. Stop strings: {syntax.end_of_turn}. Nothing is normalised: every byte
// between markers is the message's own.
//
// Parsing. Text until syntax.thinking.open (honoured only at the start of the turn) or the
// tool-call trigger; reasoning until thinking.close; calls parsed exactly as the syntax writes
// them and emitted whole (xml values typed by the tool's schema as in ai00 v1). With a call
// section, the turn ends after section_close (done() becomes true). Without one, a call may be
// followed by call_separator and the next call, or by before_end at the end of the turn; any
// other byte ends the calls and is text again. A structure that does not parse is kept as text
// with a warning.
//
// Marker policy: reject (render_util.h). Message text, reasoning and string values may not
// contain a turn marker or a syntax marker (thinking tags, trigger, end_of_turn, value_close);
// names may not contain xml.name_forbidden bytes or control bytes.
//
// Threading: the format is immutable after construction; parsers are per stream.
// Errors: make_syntax_format returns ErrorKind::invalid_argument naming the first spec field that
// cannot work (an empty required marker, a trigger that does not start the calls); render errors
// as in format.h.
#pragma once

#include <memory>
#include <string>

#include "base/chat_syntax.h"
#include "base/result.h"
#include "format/format.h"

namespace ai00::internal::format {

struct TurnMarkers {
  std::string open;   // "<|user|>\n"
  std::string close;  // "\n<|end|>"
};

struct SyntaxFormatSpec {
  std::string name;   // ChatFormat::name(), e.g. "my-format"
  ChatSyntax syntax;  // thinking, tool calls and end_of_turn of the assistant turn
  // Turn markers per role. The assistant's close is normally syntax.end_of_turn (what the model
  // writes to end its turn); assistant.open must not be empty (the generation prompt).
  TurnMarkers system, user, assistant, tool;
  std::string turn_separator;  // between two turns, e.g. "\n"
  // Around the tool list in the system turn; tools_open empty: the format takes no tools (render
  // refuses them with an unsupported error).
  std::string tools_open, tools_close;
};

// The format described by `spec` (see the header comment), or ErrorKind::invalid_argument.
Result<std::shared_ptr<const ChatFormat>> make_syntax_format(SyntaxFormatSpec spec);

}  // namespace ai00::internal::format
