// The interface every chat format implements (docs/chat-formats.md "Deltas and finish reasons",
// "Output parsers", "Formats").
//
// A ChatFormat renders a conversation into a prompt, makes incremental output parsers for the
// model's reply, and describes its thinking and tool-call syntax as data (base/chat_syntax.h),
// from which src/grammar builds the format's grammars without knowing the format. Formats:
// "ai00-v1" (seed 000), "ai00-v0" (seed 000's migration table), "goose" (seed 001), "openchatml"
// (seed 002); make_format() is the only place that knows them all. Each format header also exposes
// its own options struct and constructor.
//
// Errors: render() returns Result — kind `format` for content the format cannot carry safely
// (a turn marker inside user text), kind `unsupported` for parts or features the format has no
// syntax for (an image, tools in Goose); each message names the JSON pointer of the offending
// field ("/1/contents/0: ..."). Output parsers never fail: malformed output degrades to text
// with a warning.
// Threading: a ChatFormat is immutable after construction and may be shared between threads;
// an OutputParser is one stream and is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/chat_syntax.h"
#include "base/result.h"
#include "format/delta.h"
#include "format/message.h"

namespace ai00::internal::format {

// Thinking effort asked of the model (seed 001 tiers: a bit / standard / a lot).
enum class Thinking { off, on, a_bit, a_lot };
const char* thinking_name(Thinking t);  // "off", "on", "a-bit", "a-lot"
std::optional<Thinking> thinking_from_name(std::string_view name);

struct RenderOptions {
  bool add_generation_prompt = true;  // end with the assistant prefix the model continues from
  Thinking thinking = Thinking::off;
  std::vector<ToolDesc> tools;
  // Speaker name for the generated turn (OpenChatML `name=`, v0/Goose display name).
  std::optional<std::string> assistant_name;
  // OpenChatML thought flags (seed 002 "Thought Structure"): <|reflect|> and <|introspect|> are
  // added to the system message (<|reason|> follows `thinking`). Formats without thought
  // blocks refuse them (unsupported).
  bool reflect = false;
  bool introspect = false;
  // Feed token 0 before the prompt (seed 001 "Token 0 Prefix"); nullopt: the format's setting.
  std::optional<bool> prepend_token0;
};

// What the rendered prompt implies for constrained decoding (seed 003); src/grammar builds its
// grammar from this plain description (base/chat_syntax.h), which no layer above src/format
// looks inside.
struct ConstraintHints {
  ChatSyntax syntax;                     // the format's turn shape (ChatFormat::syntax())
  std::vector<ToolDesc> tools;           // the tools the model may call; empty: no tool calls
  bool thinking_open_in_prompt = false;  // the prompt ends inside the thinking block
};

struct RenderResult {
  std::string prompt;
  std::vector<std::string> stop_sequences;  // matched on decoded text, never part of the output
  bool stop_on_token0 = true;               // token 0 (end of text) ends the turn
  bool prepend_token0 = false;              // feed token 0 before the prompt (Goose option)
  ConstraintHints constraints;
};

struct ParseOptions {
  // The prompt ended inside a thinking block (RenderResult::constraints.thinking_open_in_prompt):
  // the parser starts in reasoning mode.
  bool thinking_open = false;
  std::vector<ToolDesc> tools;  // ai00 v1 types parameter values by these schemas
  uint64_t id_seed = 0;         // tool call ids are call_<8 hex> of (id_seed, position)
  std::optional<std::string> assistant_name;  // copied into the finished Message's `name`
  // Extra stop strings (besides the format's own) that end the turn, e.g. a caller's stops.
  std::vector<std::string> extra_stops;
  // Also emit previews of each tool call as it streams (ToolCallDelta::Preview, in the style of
  // OpenAI's streaming tool calls): a start with the id and the name (empty when the arguments
  // come first, as in OpenChatML), then pieces of the arguments JSON as the output arrives
  // (ai00 v1: one per parameter as it closes; ai00 v0 and OpenChatML: as the bytes arrive),
  // then the whole call as without streaming (docs/chat-formats.md "Deltas and finish reasons").
  bool stream_tool_calls = false;
};

struct ParseResult {
  Message message;
  FinishReason finish_reason = FinishReason::stop;
  std::vector<std::string> warnings;  // malformed structures that were kept as text
};

// Incremental parser of one assistant turn. Feed chunks of any size (they may split code points,
// markers and stop strings anywhere); each call returns the deltas that became certain. finish()
// flushes what was held back, appends a delta with the finish reason, and returns the Message
// (always equal to accumulating every delta returned). Never throws on any input.
class OutputParser {
 public:
  virtual ~OutputParser() = default;
  virtual std::vector<MessageDelta> feed(std::string_view chunk) = 0;
  // `end` says what ended the stream (stop, length, cancelled, ...); tool_calls takes precedence
  // when at least one complete call was parsed.
  virtual std::vector<MessageDelta> finish(FinishReason end = FinishReason::stop) = 0;
  // The finished message; valid after finish().
  virtual const ParseResult& result() const = 0;
  // True once the turn is over (a stop string or the end of an ai00 v1 call block was seen):
  // the generator should stop sampling; further input is ignored.
  virtual bool done() const = 0;
};

class ChatFormat {
 public:
  virtual ~ChatFormat() = default;
  virtual std::string_view name() const = 0;
  virtual Result<RenderResult> render(const std::vector<Message>& conversation,
                                      const RenderOptions& options) const = 0;
  virtual std::unique_ptr<OutputParser> make_parser(const ParseOptions& options) const = 0;
  // The shape of this format's assistant turns as data: thinking markers, tool-call syntax, end
  // of turn. Also copied into every RenderResult::constraints.
  virtual const ChatSyntax& syntax() const = 0;

  // Raw prompts of the formats that define them (OpenChatML, seed 002 "Fill-in-the-Middle
  // Tasks", "Multi-File Sequences"); the others refuse with an unsupported error. Text holding
  // one of the format's markers is refused with the pointer "prefix", "suffix" or "files/N".
  virtual Result<std::string> render_fim(std::string_view prefix, std::string_view suffix) const;
  virtual Result<std::string> render_files(const std::vector<std::string>& files,
                                           bool leading_separator) const;
  // A whole rendered conversation read back into messages (OpenChatML, seed 002 "Parsing and
  // Generation": roles checked, names kept; assistant turns through the output parser). Errors
  // name the byte offset ("byte 120: ..."); formats without a transcript parser refuse with an
  // unsupported error.
  virtual Result<std::vector<Message>> parse_transcript(std::string_view text) const;
};

// The formats by name with their default options: "ai00-v1", "ai00-v0", "goose", "openchatml".
// Returns an invalid_argument error listing the known names otherwise.
Result<std::shared_ptr<const ChatFormat>> make_format(std::string_view name);
std::vector<std::string> format_names();

// The tool call id of the call at `position` for a parser seeded with `seed`: "call_" and
// 8 lowercase hex digits of a 64-bit mix of both (docs/chat-formats.md
// "Deltas and finish reasons"). Deterministic.
std::string tool_call_id(uint64_t seed, size_t position);

}  // namespace ai00::internal::format
