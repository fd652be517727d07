// ai00 C++ API — messages, deltas and ChatTemplate (header-only RAII over ai00.h).
//
// Messages and deltas are plain C++ values. They cross the C ABI as JSON text in the seed 004
// message model (docs/chat-formats.md "Message model"): to_json() below writes it, the library
// parses it. Tool-call arguments are kept as JSON text (arguments_json); parse them with the JSON
// library of your choice.
//
// ChatTemplate: a chat format by name ("ai00-v1", "ai00-v0", "goose", "openchatml").
// Ownership: unique (movable); a Generator made from it keeps its own reference to the format.
// Threading: render() keeps its result in the handle, so one thread at a time per ChatTemplate
// (they are cheap: make one per thread). Errors: ai00::Error — AI00_ERR_FORMAT with the JSON
// pointer of the offending field, AI00_ERR_UNSUPPORTED for features the format has no syntax for.
//
// Usage:
//
//   ai00::ChatTemplate tmpl("goose");
//   ai00::Rendered r = tmpl.render({ai00::Message::text("system", "Be brief."),
//                                   ai00::Message::text("user", "Hi")});
//   // r.prompt == "System: Be brief.\n\nUser: Hi\n\nAssistant:"; r.stops holds "\n\n"
//
// A reply is usually not rendered by hand: ai00::Generator::chat renders, generates and parses
// in one go, and accumulate()s the deltas into a Message for the next turn.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/error.hpp"

namespace ai00 {
inline namespace api {

struct ToolCall {
  std::string id;  // "call_<8 hex>", assigned by the library
  std::string name;
  std::string arguments_json;  // the arguments object as JSON text
};

// One chat message. role: "system", "user", "assistant" or "tool".
struct Message {
  std::string role;
  std::string content;               // text content
  std::string reasoning;             // thinking trace ("" = none)
  std::vector<ToolCall> tool_calls;  // assistant only
  std::string tool_call_id;          // tool only: the call this result answers
  std::string name;                  // speaker name, or the tool name on a tool message

  // A text message: Message::text("user", "Hello").
  static Message text(std::string role, std::string content) {
    Message m;
    m.role = std::move(role);
    m.content = std::move(content);
    return m;
  }
};

enum class DeltaKind : int32_t {
  text = AI00_DELTA_TEXT,
  reasoning = AI00_DELTA_REASONING,
  tool_call = AI00_DELTA_TOOL_CALL,
  finish = AI00_DELTA_FINISH,
  tool_call_start = AI00_DELTA_TOOL_CALL_START,          // ParseOptions::stream_tool_calls
  tool_call_arguments = AI00_DELTA_TOOL_CALL_ARGUMENTS,  // (previews; tool_call decides)
};

enum class FinishReason : int32_t {
  none = AI00_FINISH_NONE,
  stop = AI00_FINISH_STOP,
  length = AI00_FINISH_LENGTH,
  tool_calls = AI00_FINISH_TOOL_CALLS,
  cancelled = AI00_FINISH_CANCELLED,
  grammar_done = AI00_FINISH_GRAMMAR_DONE,
  error = AI00_FINISH_ERROR,
};

// One streamed piece of a reply (an owned copy of an ai00_delta).
struct Delta {
  DeltaKind kind = DeltaKind::text;
  uint32_t call = 0;  // tool_call: position in the message
  FinishReason finish_reason = FinishReason::none;
  std::string text;  // text / reasoning; tool_call: the arguments JSON
  std::string id;    // tool_call
  std::string name;  // tool_call
  bool valid = true;

  static Delta from_c(const ai00_delta& d) {
    Delta out;
    out.kind = static_cast<DeltaKind>(d.kind);
    out.call = d.call;
    out.finish_reason = static_cast<FinishReason>(d.finish_reason);
    out.text.assign(d.text ? d.text : "", d.text ? d.text_len : 0);
    out.id.assign(d.id ? d.id : "", d.id ? d.id_len : 0);
    out.name.assign(d.name ? d.name : "", d.name ? d.name_len : 0);
    out.valid = d.valid != 0;
    return out;
  }
};

// Accumulation (docs/chat-formats.md "Deltas and finish reasons"): text and reasoning append; a
// tool-call delta merges into call `call` (a new position starts a new call); a malformed call
// (valid false) becomes content text.
inline void accumulate(Message& m, const Delta& d) {
  if (m.role.empty()) m.role = "assistant";
  switch (d.kind) {
    case DeltaKind::text:
      m.content += d.text;
      break;
    case DeltaKind::reasoning:
      m.reasoning += d.text;
      break;
    case DeltaKind::tool_call:
      if (!d.valid) {
        m.content += d.text;
        break;
      }
      if (d.call >= m.tool_calls.size()) m.tool_calls.resize(d.call + 1);
      if (!d.id.empty()) m.tool_calls[d.call].id = d.id;
      m.tool_calls[d.call].name += d.name;
      m.tool_calls[d.call].arguments_json += d.text;
      break;
    case DeltaKind::finish:
    case DeltaKind::tool_call_start:  // previews: the tool_call delta that follows is whole
    case DeltaKind::tool_call_arguments:
      break;
  }
}

namespace detail {
inline void json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}
}  // namespace detail

// The seed 004 JSON of one message: {role, name?, content, reasoning?, tool_calls?,
// tool_call_id?}. arguments_json is inserted as is (it must be JSON; "" becomes {}).
inline std::string to_json(const Message& m) {
  std::string out = "{\"role\":";
  detail::json_string(out, m.role);
  if (!m.name.empty()) {
    out += ",\"name\":";
    detail::json_string(out, m.name);
  }
  out += ",\"content\":";
  detail::json_string(out, m.content);
  if (!m.reasoning.empty()) {
    out += ",\"reasoning\":";
    detail::json_string(out, m.reasoning);
  }
  if (!m.tool_calls.empty()) {
    out += ",\"tool_calls\":[";
    for (size_t i = 0; i < m.tool_calls.size(); ++i) {
      const ToolCall& c = m.tool_calls[i];
      out += i ? ",{\"type\":\"function\",\"id\":" : "{\"type\":\"function\",\"id\":";
      detail::json_string(out, c.id);
      out += ",\"function\":{\"name\":";
      detail::json_string(out, c.name);
      out += ",\"arguments\":";
      out += c.arguments_json.empty() ? "{}" : c.arguments_json;
      out += "}}";
    }
    out += "]";
  }
  if (!m.tool_call_id.empty()) {
    out += ",\"tool_call_id\":";
    detail::json_string(out, m.tool_call_id);
  }
  out += "}";
  return out;
}

inline std::string to_json(const std::vector<Message>& conversation) {
  std::string out = "[";
  for (size_t i = 0; i < conversation.size(); ++i) {
    if (i) out += ",";
    out += to_json(conversation[i]);
  }
  return out + "]";
}

struct RenderOptions {
  bool add_generation_prompt = true;
  ai00_thinking thinking = AI00_THINKING_OFF;
  std::string tools_json;      // JSON array of tools, "" = none
  std::string assistant_name;  // "" = none
  bool reflect = false;        // OpenChatML <|reflect|> flag
  bool introspect = false;     // OpenChatML <|introspect|> flag
  int prepend_token0 = -1;     // 1 / 0: feed token 0 first or not; -1: the template's setting

  // The C struct; borrows this object's strings (keep it alive during the call).
  ai00_render_options to_c() const {
    ai00_render_options o{};
    o.struct_size = sizeof o;  // this header's size (docs/abi.md)
    detail::check(ai00_render_options_default(&o));
    o.add_generation_prompt = add_generation_prompt ? 1 : 0;
    o.thinking = thinking;
    o.reflect = reflect ? 1 : 0;
    o.introspect = introspect ? 1 : 0;
    o.prepend_token0 = prepend_token0;
    if (!tools_json.empty()) {
      o.tools_json = tools_json.data();
      o.tools_json_len = tools_json.size();
    }
    if (!assistant_name.empty()) {
      o.assistant_name = assistant_name.data();
      o.assistant_name_len = assistant_name.size();
    }
    return o;
  }
};

// A rendered prompt and the format's stop strings.
struct Rendered {
  std::string prompt;
  std::vector<std::string> stops;
};

class ChatTemplate {
 public:
  explicit ChatTemplate(std::string_view format_name) {
    ai00_chat_template* t = nullptr;
    detail::check(ai00_chat_template_new(&t, format_name.data(), format_name.size()));
    handle_.reset(t);
  }

  // A template configured by TOML text ([prompts], [presets.NAME]; docs/chat-formats.md
  // "Configuration"). Throws Error (AI00_ERR_FORMAT "config:LINE:COLUMN: ...").
  static ChatTemplate with_config(std::string_view format_name, std::string_view config_toml) {
    ai00_chat_template* t = nullptr;
    detail::check(ai00_chat_template_new_with_config(&t, format_name.data(), format_name.size(),
                                                     config_toml.data(), config_toml.size()));
    return ChatTemplate(t);
  }

  // The sampling preset `name` of the configuration (math, chat, creative by default).
  ai00_sampler_params sampler_preset(std::string_view name) const {
    ai00_sampler_params p;
    detail::check(ai00_chat_template_sampler_preset(&p, get(), name.data(), name.size()));
    return p;
  }

  // Raw prompts (OpenChatML): fill-in-the-middle and multi-file sequences.
  std::string render_fim(std::string_view prefix, std::string_view suffix) {
    const char* p = nullptr;
    size_t len = 0;
    detail::check(ai00_chat_template_render_fim(&p, &len, get(), prefix.data(), prefix.size(),
                                                suffix.data(), suffix.size()));
    return std::string(p, len);
  }
  std::string render_files(const std::vector<std::string>& files, bool leading_separator = false) {
    std::vector<const char*> ptrs;
    std::vector<size_t> lens;
    for (const auto& f : files) {
      ptrs.push_back(f.data());
      lens.push_back(f.size());
    }
    const char* p = nullptr;
    size_t len = 0;
    detail::check(ai00_chat_template_render_files(&p, &len, get(), ptrs.data(), lens.data(),
                                                  files.size(), leading_separator ? 1 : 0));
    return std::string(p, len);
  }

  // A whole transcript read back into a JSON array of messages (OpenChatML).
  std::string parse_transcript_json(std::string_view text) {
    const char* p = nullptr;
    size_t len = 0;
    detail::check(ai00_chat_template_parse_transcript(&p, &len, get(), text.data(), text.size()));
    return std::string(p, len);
  }

  Rendered render(const std::vector<Message>& conversation, const RenderOptions& options = {}) {
    return render_json(to_json(conversation), options);
  }
  // The conversation as seed 004 JSON text (all aliases of the message model accepted).
  Rendered render_json(std::string_view conversation_json, const RenderOptions& options = {}) {
    ai00_render_options o = options.to_c();
    const char* prompt = nullptr;
    size_t len = 0, n = 0;
    detail::check(ai00_chat_template_render(&prompt, &len, get(), conversation_json.data(),
                                            conversation_json.size(), &o));
    Rendered r;
    r.prompt.assign(prompt, len);
    detail::check(ai00_chat_template_stop_count(&n, get()));
    for (size_t i = 0; i < n; ++i) {
      const char* s = nullptr;
      detail::check(ai00_chat_template_stop(&s, &len, get(), i));
      r.stops.emplace_back(s, len);
    }
    return r;
  }

  // The last render with its constrained-decoding hints, as indented JSON
  // (ai00_chat_template_last_render_json).
  std::string last_render_json() {
    const char* json = nullptr;
    size_t len = 0;
    detail::check(ai00_chat_template_last_render_json(&json, &len, get()));
    return std::string(json, len);
  }

  ai00_chat_template* get() const noexcept { return handle_.get(); }

 private:
  explicit ChatTemplate(ai00_chat_template* t) { handle_.reset(t); }
  struct Free {
    void operator()(ai00_chat_template* t) const noexcept { ai00_chat_template_free(t); }
  };
  std::unique_ptr<ai00_chat_template, Free> handle_;
};

}  // namespace api
}  // namespace ai00
