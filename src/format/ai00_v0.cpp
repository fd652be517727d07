// ai00 v0 (seed 000 migration table): renderer and incremental output parser (see ai00_v0.h).
#include "format/ai00_v0.h"

#include <algorithm>

#include "format/render_util.h"
#include "format/stream.h"

namespace ai00::internal::format {

namespace {

constexpr std::string_view kFormat = "ai00 v0";
constexpr std::string_view kCallOpen = "<tool_call>";
constexpr std::string_view kCallClose = "</tool_call>";
const std::vector<std::string_view> kMarkers = {kCallOpen, kCallClose};

// The v0 tool syntax as data (base/chat_syntax.h): compact {"name":…,"arguments":…} JSON between
// <tool_call> tags, one call per line; no thinking block; the turn ends at the blank line.
ChatSyntax make_syntax() {
  ChatSyntax s;
  ToolCallSyntax& c = s.tool_calls;
  c.label = "ai00_v0_json";
  c.trigger = std::string(kCallOpen);
  c.call_open = std::string(kCallOpen);
  c.call_close = std::string(kCallClose);
  c.call_separator = "\n";
  c.style = CallStyle::json;
  c.json.compact = true;  // json::write's default layout, used by record()
  s.end_of_turn = "\n\n";
  return s;
}

class Ai00V0 final : public ChatFormat {
 public:
  explicit Ai00V0(const Ai00V0Options& o) : o_(o), syntax_(make_syntax()) {}
  std::string_view name() const override { return "ai00-v0"; }
  const ChatSyntax& syntax() const override { return syntax_; }
  Result<RenderResult> render(const std::vector<Message>& conv,
                              const RenderOptions& opts) const override;
  std::unique_ptr<OutputParser> make_parser(const ParseOptions& options) const override;

 private:
  Result<std::string> label(Role role, const std::optional<std::string>& name,
                            const std::string& ptr) const {
    if (name) {
      if (name->empty() || name->find_first_of(":\n\r") != std::string::npos ||
          find_marker(*name, kMarkers))
        return make_error(ErrorKind::format, ptr + ": speaker name \"" + *name +
                                                 "\" cannot be written in ai00 v0 (no ':', "
                                                 "newline or call tag)");
      return *name;
    }
    switch (role) {
      case Role::system:
        return o_.system;
      case Role::user:
        return o_.user;
      case Role::assistant:
        return o_.assistant;
      case Role::tool:
        return o_.tool;
    }
    return o_.user;
  }
  Result<std::string> record(const Message& m, const std::string& ptr) const;

  Ai00V0Options o_;
  ChatSyntax syntax_;
};

Result<std::string> Ai00V0::record(const Message& m, const std::string& ptr) const {
  if (m.reasoning)
    return unsupported(json::pointer_append(ptr, "reasoning"),
                       "ai00 v0 has no thinking syntax; use ai00-v1");
  // docs/chat-formats.md "Escaping": user, system and tool text holding a call tag is refused;
  // the assistant's own text is not (a call the parser degraded to text is "<tool_call>…", and
  // every message the parser produces renders again). Blank lines are collapsed in every text,
  // so no text can end a record. Call JSON and value parts are escaped.
  if (m.role != Role::assistant)
    if (auto e = check_message_markers(m, ptr, kMarkers, kFormat)) return *e;
  auto text = flatten_contents(m, ptr, kFormat, {}, kMarkers);
  if (!text) return text.error();
  auto who = label(m.role, m.name, json::pointer_append(ptr, "name"));
  if (!who) return who.error();
  std::string body = collapse_blank_lines(text.value());
  for (size_t k = 0; k < m.tool_calls.size(); ++k) {
    const ToolCall& c = m.tool_calls[k];
    json::Value call(json::Object{});
    call.set("name", c.name);
    call.set("arguments", c.arguments);
    if (c.name.empty())
      return make_error(ErrorKind::format,
                        json::pointer_append(json::pointer_append(ptr, "tool_calls"), k) +
                            "/function/name: empty");
    const std::string json_text = escape_json_markers(json::write(call), kMarkers);
    body +=
        (body.empty() ? "" : "\n") + std::string(kCallOpen) + json_text + std::string(kCallClose);
  }
  return who.value() + ":" + (body.empty() ? "" : " " + body);
}

Result<RenderResult> Ai00V0::render(const std::vector<Message>& conv,
                                    const RenderOptions& opts) const {
  if (!opts.tools.empty())
    return unsupported("tools", "ai00 v0 has no syntax for tool definitions; use ai00-v1");
  if (opts.thinking != Thinking::off)
    return unsupported("thinking", "ai00 v0 has no thinking syntax; use ai00-v1");
  if (opts.reflect || opts.introspect)
    return unsupported(opts.reflect ? "reflect" : "introspect",
                       "ai00 v0 has no reflect or introspect blocks (OpenChatML has)");
  RenderResult r;
  for (size_t i = 0; i < conv.size(); ++i) {
    auto rec = record(conv[i], message_pointer(i));
    if (!rec) return rec.error();
    r.prompt += (i ? "\n\n" : "") + rec.value();
  }
  if (opts.add_generation_prompt) {
    auto who = label(Role::assistant, opts.assistant_name, "assistant_name");
    if (!who) return who.error();
    r.prompt += (r.prompt.empty() ? "" : "\n\n") + who.value() + ":";
  }
  r.stop_sequences = {"\n\n"};
  r.prepend_token0 = opts.prepend_token0.value_or(false);
  r.constraints.syntax = syntax_;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output parser

class Ai00V0Parser final : public ParserBase {
 public:
  explicit Ai00V0Parser(const ParseOptions& o) : ParserBase(o, {"\n\n"}) {
    skip_text(Skip::one_space);  // the prefix "Assistant:" leaves the space to the model
  }

 protected:
  void consume(std::string_view text) override {
    buf_.append(text);
    while (!buf_.empty()) {
      if (in_call_) {
        // Resume where the last search stopped (minus a possible partial close tag): the body
        // is searched once in all, so a long call costs linear time however it is chunked.
        const size_t end = buf_.find(kCallClose, searched_);
        if (end == std::string::npos) {
          searched_ =
              std::max(searched_,
                       buf_.size() >= kCallClose.size() ? buf_.size() - kCallClose.size() + 1 : 0);
          // The bytes before searched_ are the call's for certain: previewed as they arrive.
          preview_json_call(json_, std::string_view(buf_).substr(streamed_, searched_ - streamed_));
          streamed_ = searched_;
          return;  // wait for the close tag
        }
        preview_json_call(json_, std::string_view(buf_).substr(streamed_, end - streamed_));
        searched_ = streamed_ = 0;
        close_call(buf_.substr(0, end));
        buf_.erase(0, end + kCallClose.size());
        continue;
      }
      const std::vector<std::string_view> ms = {kCallOpen};
      if (!emit_until_marker(buf_, ms, false)) return;
      end_text(1);  // the newline the renderer writes before each call
      in_call_ = true;
      searched_ = streamed_ = 0;
      json_ = CallJsonStream(options().stream_tool_calls);
    }
  }

  void end_input() override {
    if (in_call_ && cut_by_length()) {
      // The name, if its string closed before the cut (no preview: the cut call ends them).
      json_.feed(std::string_view(buf_).substr(streamed_));
      cut_call(json_.name().value_or(""), std::string(kCallOpen) + buf_);
    } else if (in_call_) {
      warn("ai00 v0: <tool_call> is not closed; kept as text");
      preview_abandon();
      emit_text(std::string(kCallOpen) + buf_);
    } else {
      emit_text(buf_);
    }
    buf_.clear();
    end_text(SIZE_MAX);  // content is trimmed when rendered
  }

 private:
  void close_call(const std::string& body) {
    in_call_ = false;
    auto v = json::parse(body);
    const json::Value* name = v ? v.value().find("name") : nullptr;
    if (name && name->is_string() && !name->as_string().empty()) {
      const json::Value* args = v.value().find("arguments");
      json::Value a = args ? *args : json::Value(json::Object{});
      if (a.is_string())  // OpenAI style: arguments as JSON text
        if (auto parsed = json::parse(a.as_string())) a = std::move(parsed).value();
      emit_call(name->as_string(), a);
      skip_text(Skip::whitespace);
      return;
    }
    warn("ai00 v0: a <tool_call> is not {\"name\": …, \"arguments\": …} JSON; kept as text");
    preview_abandon();
    emit_text(std::string(kCallOpen) + body + std::string(kCallClose));
  }

  std::string buf_;
  size_t searched_ = 0;  // inside a call: buf_ before this holds no close tag
  size_t streamed_ = 0;  // inside a call: buf_ before this was read into json_
  CallJsonStream json_;  // the call's name and previews (ParseOptions::stream_tool_calls)
  bool in_call_ = false;
};

std::unique_ptr<OutputParser> Ai00V0::make_parser(const ParseOptions& options) const {
  return std::make_unique<Ai00V0Parser>(options);
}

}  // namespace

std::shared_ptr<const ChatFormat> make_ai00_v0(const Ai00V0Options& options) {
  return std::make_shared<Ai00V0>(options);
}

}  // namespace ai00::internal::format
