// The chat message model of seed 004 (docs/chat-formats.md "Message model") and its JSON form.
//
// A conversation is a list of Messages. A Part carries a data type (text, value, function,
// image), never an intent: reasoning and tool calls live in their own Message fields.
//
// JSON import accepts the seed's names and the aliases of docs/chat-formats.md "Message model"
// (`content` as a string or a list of text parts, `thinking` for `reasoning`, OpenAI tool calls
// whose `arguments` is a JSON string, `observation` for the tool role, `id` on a tool message for
// `tool_call_id`). Unknown fields are ignored. Every error names the offending field with a JSON
// pointer: "/2/tool_calls/0/function/name: expected a string". Export always writes the seed's
// names, and export → import → export is byte-stable.
//
// Errors: the parse functions return Result (kind `format`); nothing throws on bad input.
// Threading: plain values, no shared state.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "format/json.h"

namespace ai00::internal::format {

enum class Role { system, user, assistant, tool };
const char* role_name(Role r);  // "system", "user", "assistant", "tool"

enum class PartType { text, value, function, image };
const char* part_type_name(PartType t);

// One unit of content. `text` for text parts; `data` for the others: the value of a value part,
// the `function` object of a function part, the `image` object of an image part (kept as given:
// RWKV-7 is text-only, so renderers refuse images with an unsupported error).
struct Part {
  PartType type = PartType::text;
  std::string text;
  json::Value data;

  static Part make_text(std::string t) { return Part{PartType::text, std::move(t), {}}; }
  static Part make_value(json::Value v) { return Part{PartType::value, {}, std::move(v)}; }
  friend bool operator==(const Part& a, const Part& b) {
    return a.type == b.type && a.text == b.text && a.data == b.data;
  }
};

// A call of a tool by the assistant. `arguments` is parsed JSON (normally an object).
struct ToolCall {
  std::string id;  // "call_<8 hex>" when assigned by an output parser
  std::string name;
  json::Value arguments;
  friend bool operator==(const ToolCall& a, const ToolCall& b) {
    return a.id == b.id && a.name == b.name && a.arguments == b.arguments;
  }
};

struct Message {
  Role role = Role::user;
  std::vector<Part> contents;
  std::optional<std::string> reasoning;
  std::vector<ToolCall> tool_calls;         // assistant only
  std::optional<std::string> tool_call_id;  // tool only
  std::optional<std::string> name;          // speaker name, or the tool name on a tool message
  std::optional<std::string> id;            // kept for the caller's bookkeeping

  // Concatenation of the text parts.
  std::string text() const;
  friend bool operator==(const Message& a, const Message& b);
  friend bool operator!=(const Message& a, const Message& b) { return !(a == b); }
};

// A tool the model may call: {name, description?, parameters (JSON Schema), returns?}.
struct ToolDesc {
  std::string name;
  std::optional<std::string> description;
  json::Value parameters;  // a JSON Schema object; {"type":"object"} when absent
  std::optional<json::Value> returns;
  friend bool operator==(const ToolDesc& a, const ToolDesc& b) {
    return a.name == b.name && a.description == b.description && a.parameters == b.parameters &&
           a.returns == b.returns;
  }
};

// JSON import. `pointer` is the JSON pointer of `v` inside the caller's document ("" = root).
Result<Message> message_from_json(const json::Value& v, const std::string& pointer);
Result<std::vector<Message>> conversation_from_json(const json::Value& v);
Result<std::vector<Message>> parse_conversation(std::string_view json_text);
// Tools: a JSON array of tool descriptions, each plain, in the OpenAI wrapper
// {type:"function", function:{...}}, or with `input_schema` (seed 000) instead of `parameters`.
Result<ToolDesc> tool_from_json(const json::Value& v, const std::string& pointer);
Result<std::vector<ToolDesc>> tools_from_json(const json::Value& v);
Result<std::vector<ToolDesc>> parse_tools(std::string_view json_text);

// JSON export with the seed's names: {role, name?, id?, contents, reasoning?, tool_calls?,
// tool_call_id?}. Tool calls are {id, type:"function", function:{name, arguments}}.
json::Value to_json(const Message& m);
json::Value to_json(const std::vector<Message>& conversation);
json::Value to_json(const ToolDesc& t);  // {name, description?, parameters, returns?}

}  // namespace ai00::internal::format
