// Streaming reader of a JSON tool call {"name": …, "arguments": …} (ai00 v0, OpenChatML) for
// ParseOptions::stream_tool_calls (docs/chat-formats.md "Deltas and finish reasons").
//
// The formats that write a call as one JSON object parse it with json::parse once it is complete,
// and the whole call's arguments are json::write(arguments) — compact, numbers as written,
// strings re-escaped. To stream them, this reader follows the object as its bytes arrive and
// produces the same compact text of the "arguments" member piece by piece: whitespace between
// tokens is dropped, strings are decoded and escaped again as the writer escapes them, numbers
// and literals are copied. For a call that json::parse accepts, the pieces concatenate to
// json::write of its arguments, however the bytes were split. For one it refuses (a duplicate
// key, a lone surrogate, a syntax error) the pieces are meaningless and the caller abandons
// them; the reader never has to look back, so it costs constant work per byte.
//
// Members in any order: the name is known when its string closes; the arguments begin at their
// first byte (before the name in OpenChatML's order). Arguments written as a JSON string (the
// OpenAI style, parsed again when the call closes) are not streamed: arguments_begun() stays
// false and the whole call carries them.
//
// Internal to src/format. A plain value; one stream, one thread at a time. Never throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ai00::internal::format {

class CallJsonStream {
 public:
  // `arguments`: produce the arguments text (stream_tool_calls); false: follow the name only.
  explicit CallJsonStream(bool arguments = true) : collect_(arguments) {}
  // The next bytes of the call's JSON text (from its first byte; bytes after the object's end
  // are ignored).
  void feed(std::string_view bytes);
  // The first top-level "name" member's string, once it closed.
  const std::optional<std::string>& name() const { return name_; }
  // The first top-level "arguments" member's value has begun and is not a string (and the
  // arguments are produced).
  bool arguments_begun() const { return args_begun_; }
  // The arguments text produced since the last take (see the header comment); "" if none.
  std::string take_arguments();

 private:
  // A JSON string's inside, decoded: escapes resolved, surrogate \u pairs joined into UTF-8.
  struct StringDecoder {
    int state = 0;      // 0: plain; 1: after '\'; 2-5: reading hex digit state-2
    uint32_t hex = 0;   // the \u digits so far
    uint32_t high = 0;  // a high surrogate waiting for its low half
    enum class Step { more, end, error };
    Step step(char c, std::string& out);
  };
  enum class Stage { before, key_or_end, key, colon, value_start, value, after_value, done };
  enum class Role { skip, name, arguments };

  void step(char c);
  void start_value(char c);
  void value_byte(char c);
  void end_value() { stage_ = Stage::after_value; }
  void fail() { stage_ = Stage::done; }

  Stage stage_ = Stage::before;
  Role role_ = Role::skip;
  std::string key_;         // the top-level key being read or just read
  std::string decoded_;     // scratch: decoded string bytes of one step
  StringDecoder str_;       // the string being read (key or value)
  bool in_string_ = false;  // inside a string within the value
  bool scalar_ = false;     // the value is a top-level number or literal
  int depth_ = 0;           // open arrays/objects within the value
  bool collect_ = true;     // produce the arguments text
  bool args_seen_ = false;  // a top-level "arguments" member was met
  bool args_begun_ = false;
  std::optional<std::string> name_;
  std::string name_text_;  // the name string being read
  std::string out_;        // arguments text not yet taken
};

}  // namespace ai00::internal::format
