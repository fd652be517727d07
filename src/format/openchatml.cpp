// OpenChatML v0.1 (seed 002): renderer, output parser and raw-prompt builders (openchatml.h).
#include "format/openchatml.h"

#include <fmt/format.h>

#include "format/render_util.h"
#include "format/stream.h"

namespace ai00::internal::format {

namespace {

constexpr std::string_view kFormat = "OpenChatML";
constexpr std::string_view kCall = "<|function_call|>";
constexpr std::string_view kReasonOpen = "<|start_reason|>";
constexpr std::string_view kReasonClose = "<|end_reason|>";
// Thought blocks kept verbatim in `reasoning`: {open, close}.
const std::pair<std::string_view, std::string_view> kKeptBlocks[] = {
    {"<|start_reflect|>", "<|end_reflect|>"}, {"<|start_introspect|>", "<|end_introspect|>"}};

// Every special token of seed 002 section 2.
const std::vector<std::string_view> kAllMarkers = {
    "<|im_start|>",       "<|im_end|>",          "<|fim_prefix|>",
    "<|fim_suffix|>",     "<|fim_middle|>",      "<|file_separator|>",
    "<|reflect|>",        "<|introspect|>",      "<|reason|>",
    "<|start_reflect|>",  "<|end_reflect|>",     "<|start_introspect|>",
    "<|end_introspect|>", kReasonOpen,           kReasonClose,
    "<|function_list|>",  "<|function_output|>", kCall};
const std::vector<std::string_view> kTurnMarkers = {"<|im_start|>", "<|im_end|>"};
// What the output parser reads as structure in assistant content: an assistant message's text
// may hold any other marker (a call the parser degraded to text is "<|function_call|>…"), so
// every message the parser produces renders again (docs/chat-formats.md "Escaping").
const std::vector<std::string_view> kAssistantTextMarkers = {"<|im_end|>", "<|start_reflect|>",
                                                             "<|start_introspect|>", kReasonOpen};

// seed 002 section 8: 2-space JSON; arrays of scalars stay on one line (["symbol"]).
const json::WriteStyle kBlockStyle{2, false, true, false};
// seed 002 section 8.2: {"arguments": {"symbol": "TSLA"}, "name": "get_stock_fundamentals"}.
const json::WriteStyle kCallStyle{0, true, false, false};

// seed 002 as data (base/chat_syntax.h): a call is "<|function_call|>\n" and one-line JSON with
// the arguments first; calls are separated by newlines and the turn ends at <|im_end|>.
ChatSyntax make_syntax() {
  ChatSyntax s;
  s.thinking = {std::string(kReasonOpen), std::string(kReasonClose), ""};
  ToolCallSyntax& c = s.tool_calls;
  c.label = "openchatml_json";
  c.trigger = std::string(kCall);
  c.call_open = std::string(kCall) + "\n";
  c.call_separator = "\n";
  c.before_end = "\n";
  c.style = CallStyle::json;
  c.json.arguments_first = true;
  s.end_of_turn = "<|im_end|>";
  return s;
}

class OpenChatML final : public ChatFormat {
 public:
  explicit OpenChatML(const OpenChatMLOptions& o) : o_(o), syntax_(make_syntax()) {}
  std::string_view name() const override { return "openchatml"; }
  const ChatSyntax& syntax() const override { return syntax_; }
  Result<RenderResult> render(const std::vector<Message>& conv,
                              const RenderOptions& opts) const override;
  std::unique_ptr<OutputParser> make_parser(const ParseOptions& options) const override;
  Result<std::string> render_fim(std::string_view prefix, std::string_view suffix) const override;
  Result<std::string> render_files(const std::vector<std::string>& files,
                                   bool leading_separator) const override;
  Result<std::vector<Message>> parse_transcript(std::string_view text) const override;

 private:
  std::string wrap(std::string_view role, const std::optional<std::string>& name,
                   const std::string& body) const {
    return "<|im_start|>" + std::string(role) + (name ? " name=" + *name : "") + "\n" + body +
           (o_.newline_before_im_end ? "\n" : "") + "<|im_end|>";
  }
  Result<std::string> body(const std::vector<Message>& conv, size_t i) const;

  OpenChatMLOptions o_;
  ChatSyntax syntax_;
};

}  // namespace

std::string openchatml_function_list(const std::vector<ToolDesc>& tools) {
  std::string out = "<|function_list|>\n";
  for (size_t k = 0; k < tools.size(); ++k) {
    json::Value fn(json::Object{});
    fn.set("name", tools[k].name);
    if (tools[k].description) fn.set("description", *tools[k].description);
    fn.set("parameters", tools[k].parameters);
    json::Value wrapper(json::Object{{"type", json::Value("function")}, {"function", fn}});
    out += (k ? "\n" : "") + escape_json_markers(json::write(wrapper, kBlockStyle), kAllMarkers);
  }
  return out;
}

namespace {

// reasoning → thought blocks, the inverse of the parser: reflect and introspect blocks (kept
// verbatim in `reasoning` with their markers and the newline after them) are written as they
// are, wherever they stand (one the reply left unclosed gets its close marker); the text
// between them becomes reason blocks. A reason block may not
// hold <|end_reason|> and nothing may hold <|im_end|>: the parser would read those back as the
// end of the block or of the turn.
Result<std::string> thoughts(const std::string& reasoning, const std::string& ptr) {
  std::string_view rest = reasoning;
  std::string out;
  std::string plain;
  auto flush_plain = [&]() -> std::optional<ErrorInfo> {
    if (plain.empty()) return std::nullopt;
    if (auto e = find_forbidden_marker(plain, {kReasonClose, "<|im_end|>"}, ptr, kFormat)) return e;
    out += std::string(kReasonOpen) + plain + std::string(kReasonClose) + "\n";
    plain.clear();
    return std::nullopt;
  };
  while (!rest.empty()) {
    bool kept = false;
    for (const auto& [open, close] : kKeptBlocks) {
      if (rest.substr(0, open.size()) != open) continue;
      const size_t end = rest.find(close, open.size());
      // A block the reply left open (the parser keeps everything after it) is closed here.
      const bool closed = end != std::string_view::npos;
      const std::string_view inner =
          closed ? rest.substr(open.size(), end - open.size()) : rest.substr(open.size());
      if (auto e = find_forbidden_marker(inner, {"<|im_end|>"}, ptr, kFormat)) return *e;
      if (auto e = flush_plain()) return *e;
      size_t take = closed ? end + close.size() : rest.size();
      if (take < rest.size() && rest[take] == '\n') ++take;
      out.append(rest.substr(0, take));
      if (!closed) out.append(close).append("\n");
      rest.remove_prefix(take);
      kept = true;
      break;
    }
    if (kept) continue;
    const size_t next = rest.find("<|start_", 1);
    const size_t n = next == std::string_view::npos ? rest.size() : next;
    plain.append(rest.substr(0, n));
    rest.remove_prefix(n);
  }
  if (auto e = flush_plain()) return *e;
  return out;
}

// The tool name for the result at conv[i]: its `name`, else the matching earlier call.
std::optional<std::string> result_tool_name(const std::vector<Message>& conv, size_t i) {
  if (conv[i].name) return conv[i].name;
  size_t position = 0;
  for (size_t j = i; j-- > 0;) {
    if (conv[j].role == Role::tool) {
      ++position;
      continue;
    }
    if (conv[j].role != Role::assistant) break;
    for (const auto& c : conv[j].tool_calls)
      if (conv[i].tool_call_id && c.id == *conv[i].tool_call_id) return c.name;
    if (position < conv[j].tool_calls.size()) return conv[j].tool_calls[position].name;
    break;
  }
  return std::nullopt;
}

Result<std::string> OpenChatML::body(const std::vector<Message>& conv, size_t i) const {
  const Message& m = conv[i];
  const std::string ptr = message_pointer(i);
  if (m.role == Role::system) {
    if (auto e = check_message_markers(m, ptr, kTurnMarkers, kFormat)) return *e;
    return flatten_contents(m, ptr, kFormat, {}, kAllMarkers);
  }
  Message probe = m;
  probe.reasoning.reset();  // checked block by block below
  const auto& text_markers = m.role == Role::assistant ? kAssistantTextMarkers : kAllMarkers;
  if (auto e = check_message_markers(probe, ptr, text_markers, kFormat)) return *e;
  if (m.role == Role::tool) {
    const bool single_value = m.contents.size() == 1 && m.contents[0].type == PartType::value;
    if (!single_value) {
      auto text = flatten_contents(m, ptr, kFormat, {}, kAllMarkers);
      if (!text) return text.error();
      return "<|function_output|>\n" + text.value();
    }
    auto name = result_tool_name(conv, i);
    if (!name)
      return make_error(ErrorKind::format,
                        json::pointer_append(ptr, "name") +
                            ": missing; <|function_output|> needs the tool name (set `name` or "
                            "follow an assistant message with the matching tool call)");
    json::Value out(json::Object{{"name", json::Value(*name)}, {"content", m.contents[0].data}});
    return "<|function_output|>\n" +
           escape_json_markers(json::write(out, kBlockStyle), kAllMarkers);
  }
  auto text = flatten_contents(m, ptr, kFormat, {}, kAllMarkers);
  if (!text) return text.error();
  std::string out;
  if (m.reasoning) {
    auto t = thoughts(*m.reasoning, json::pointer_append(ptr, "reasoning"));
    if (!t) return t.error();
    out = t.value();
  }
  out += text.value();
  for (size_t k = 0; k < m.tool_calls.size(); ++k) {
    const ToolCall& c = m.tool_calls[k];
    json::Value j(json::Object{{"arguments", c.arguments}, {"name", json::Value(c.name)}});
    const std::string call = escape_json_markers(json::write(j, kCallStyle), kAllMarkers);
    if (!text.value().empty() || k > 0) out += "\n";
    out += std::string(kCall) + "\n" + call;
  }
  return out;
}

Result<std::optional<std::string>> checked_name(const std::optional<std::string>& name,
                                                const std::string& ptr) {
  if (name && (name->empty() || name->find_first_of(" \t\r\n") != std::string::npos))
    return make_error(ErrorKind::format, ptr + ": the name \"" + *name +
                                             "\" is empty or contains whitespace (seed 002 "
                                             "section 3)");
  if (name)  // a name has no escape: "name=<|im_end|>" would end the turn
    if (auto e = find_forbidden_marker(*name, kAllMarkers, ptr, kFormat)) return *e;
  return name;
}

Result<RenderResult> OpenChatML::render(const std::vector<Message>& conv,
                                        const RenderOptions& opts) const {
  const bool thinking = opts.thinking != Thinking::off;
  std::string extras;  // appended to the system message: thought flags, then the tool list
  // seed 002 "Thought Structure": the flags in the system message ask for the blocks. The
  // render options ask for reflect/introspect on their own; the format options with thinking.
  const bool reflect = opts.reflect || (thinking && o_.reflect);
  const bool introspect = opts.introspect || (thinking && o_.introspect);
  extras = std::string(reflect ? "<|reflect|>" : "") + (introspect ? "<|introspect|>" : "") +
           (thinking ? "<|reason|>" : "");
  if (!opts.tools.empty())
    extras += (extras.empty() ? "" : "\n") + openchatml_function_list(opts.tools);
  std::vector<std::string> msgs;
  if (!extras.empty() && (conv.empty() || conv[0].role != Role::system))
    msgs.push_back(wrap("system", std::nullopt, extras));
  for (size_t i = 0; i < conv.size(); ++i) {
    auto b = body(conv, i);
    if (!b) return b.error();
    std::string text = std::move(b).value();
    if (i == 0 && conv[0].role == Role::system && !extras.empty()) {
      const bool tools_first = !thinking && !reflect && !introspect;  // on its own line
      text += (tools_first && !text.empty() ? "\n" : "") + extras;
    }
    std::optional<std::string> name;
    if (conv[i].role != Role::tool) {  // a tool message's name is the tool, written in the JSON
      auto n = checked_name(conv[i].name, json::pointer_append(message_pointer(i), "name"));
      if (!n) return n.error();
      name = n.value();
    }
    msgs.push_back(wrap(role_name(conv[i].role), name, text));
  }
  RenderResult r;
  r.prompt = o_.bos;
  for (size_t k = 0; k < msgs.size(); ++k) r.prompt += (k ? "\n" : "") + msgs[k];
  if (opts.add_generation_prompt) {
    auto n = checked_name(opts.assistant_name, "assistant_name");
    if (!n) return n.error();
    r.prompt += std::string(msgs.empty() ? "" : "\n") + "<|im_start|>assistant" +
                (n.value() ? " name=" + *n.value() : "") + "\n";
  } else {
    r.prompt += o_.eos;
  }
  r.stop_sequences = {"<|im_end|>"};
  r.prepend_token0 = opts.prepend_token0.value_or(false);
  r.constraints.syntax = syntax_;
  r.constraints.tools = opts.tools;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output parser

enum class Mode { content, kept_block, after_kept_block, reason, call };

class OpenChatMLParser final : public ParserBase {
 public:
  explicit OpenChatMLParser(const ParseOptions& o) : ParserBase(o, {"<|im_end|>"}) {
    hold_reasoning_newlines(false);  // reasoning bytes are kept exactly
  }

 protected:
  void consume(std::string_view text) override;
  void end_input() override;

 private:
  std::vector<std::string_view> markers() const;
  void on_marker(std::string_view m);
  // Feeds call bytes; returns how many were used (the rest is content again).
  size_t scan_call(std::string_view s);
  void close_call();
  void degrade_call(const std::string& why);

  Mode mode_ = Mode::content;
  std::string buf_;
  std::string_view block_close_;  // close marker of the current kept block
  // The call JSON being read: text, brace depth, inside a string, after a backslash.
  std::string call_;
  int depth_ = 0;
  bool in_string_ = false, escaped_ = false;
  CallJsonStream json_;  // the call's name and previews (ParseOptions::stream_tool_calls)
};

std::vector<std::string_view> OpenChatMLParser::markers() const {
  switch (mode_) {
    case Mode::kept_block:
      return {block_close_};
    case Mode::reason:
      return {kReasonClose};
    default:
      return {kKeptBlocks[0].first, kKeptBlocks[1].first, kReasonOpen, kCall};
  }
}

void OpenChatMLParser::consume(std::string_view text) {
  buf_.append(text);
  while (!buf_.empty()) {
    if (mode_ == Mode::after_kept_block) {  // the newline after a kept block belongs to it
      if (buf_[0] == '\n') {
        emit_reasoning("\n");
        buf_.erase(0, 1);
      }
      mode_ = Mode::content;
      continue;
    }
    if (mode_ == Mode::call) {
      const size_t used = scan_call(buf_);
      buf_.erase(0, used);
      if (mode_ == Mode::call) return;
      continue;
    }
    const auto ms = markers();
    auto marker = emit_until_marker(buf_, ms, mode_ != Mode::content);
    if (!marker) return;
    on_marker(*marker);
  }
}

void OpenChatMLParser::on_marker(std::string_view m) {
  if (m == kCall) {
    end_text(1);  // the newline the renderer writes before each call
    mode_ = Mode::call;
    call_.clear();
    depth_ = 0;
    in_string_ = escaped_ = false;
    json_ = CallJsonStream(options().stream_tool_calls);
    return;
  }
  if (m == kReasonOpen) {
    mode_ = Mode::reason;
    return;
  }
  if (m == kReasonClose) {
    mode_ = Mode::content;
    skip_text(Skip::one_newline);
    return;
  }
  for (const auto& [open, close] : kKeptBlocks) {
    if (m == open) {
      emit_reasoning(open);
      block_close_ = close;
      mode_ = Mode::kept_block;
      return;
    }
    if (m == close) {
      emit_reasoning(close);
      mode_ = Mode::after_kept_block;
      return;
    }
  }
}

size_t OpenChatMLParser::scan_call(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    call_ += c;
    if (depth_ == 0) {  // before the opening brace: whitespace only
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
      if (c != '{') {  // this byte is content again: it may start a marker
        call_.pop_back();
        degrade_call("a <|function_call|> is not followed by a JSON object");
        return i;
      }
      depth_ = 1;
      continue;
    }
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    if (c == '"') in_string_ = true;
    if (c == '{' || c == '[') ++depth_;
    if ((c == '}' || c == ']') && --depth_ == 0) {
      preview_json_call(json_, s.substr(0, i + 1));
      close_call();
      return i + 1;
    }
  }
  preview_json_call(json_, s);  // the arguments stream as they arrive
  return s.size();
}

void OpenChatMLParser::close_call() {
  auto v = json::parse(call_);
  const json::Value* name = v ? v.value().find("name") : nullptr;
  if (!name || !name->is_string() || name->as_string().empty()) {
    degrade_call("a <|function_call|> is not {\"arguments\": …, \"name\": …} JSON");
    return;
  }
  const json::Value* args = v.value().find("arguments");
  json::Value a = args ? *args : json::Value(json::Object{});
  if (a.is_string())  // OpenAI style: arguments as JSON text
    if (auto parsed = json::parse(a.as_string())) a = std::move(parsed).value();
  emit_call(name->as_string(), a);
  mode_ = Mode::content;
  skip_text(Skip::whitespace);
}

void OpenChatMLParser::degrade_call(const std::string& why) {
  warn("OpenChatML: " + why + "; kept as text");
  preview_abandon();
  mode_ = Mode::content;
  emit_text(std::string(kCall) + call_);
}

void OpenChatMLParser::end_input() {
  if (mode_ == Mode::call && cut_by_length()) {
    // The name, if its string closed before the cut (seed 002 writes it after the arguments).
    cut_call(json_.name().value_or(""), std::string(kCall) + call_);
    mode_ = Mode::content;
  } else if (mode_ == Mode::call) {
    degrade_call("a <|function_call|> is not complete");
  }
  std::string rest;
  rest.swap(buf_);
  mode_ == Mode::content || mode_ == Mode::after_kept_block ? emit_text(rest)
                                                            : emit_reasoning(rest);
  end_text(1);  // the newline the renderer writes before <|im_end|>
}

std::unique_ptr<OutputParser> OpenChatML::make_parser(const ParseOptions& options) const {
  return std::make_unique<OpenChatMLParser>(options);
}

Result<std::string> OpenChatML::render_fim(std::string_view prefix, std::string_view suffix) const {
  if (auto e = find_forbidden_marker(prefix, kAllMarkers, "prefix", kFormat)) return *e;
  if (auto e = find_forbidden_marker(suffix, kAllMarkers, "suffix", kFormat)) return *e;
  return openchatml_fim(prefix, suffix);
}

Result<std::string> OpenChatML::render_files(const std::vector<std::string>& files,
                                             bool leading_separator) const {
  for (size_t k = 0; k < files.size(); ++k)
    if (auto e =
            find_forbidden_marker(files[k], kAllMarkers, "files/" + std::to_string(k), kFormat))
      return *e;
  return openchatml_multi_file(files, leading_separator);
}

// seed 002 sections 3, 5 and 10: [BOS] (<|im_start|>role[ name=N]\nbody<|im_end|>\n)* [EOS].
Result<std::vector<Message>> OpenChatML::parse_transcript(std::string_view text) const {
  auto err = [](size_t at, const std::string& what) {
    return make_error(ErrorKind::format, fmt::format("byte {}: {}", at, what));
  };
  constexpr std::string_view kStart = "<|im_start|>", kEnd = "<|im_end|>";
  size_t pos = 0;
  if (!o_.bos.empty() && text.substr(0, o_.bos.size()) == o_.bos) pos = o_.bos.size();
  std::vector<Message> out;
  std::vector<ToolCall> open_calls;  // calls of the last assistant message, for tool results
  size_t results = 0;
  while (true) {
    while (pos < text.size() && (text[pos] == '\n' || text[pos] == '\r')) ++pos;
    if (pos == text.size()) break;
    if (!o_.eos.empty() && text.substr(pos) == o_.eos) break;
    if (text.substr(pos, kStart.size()) != kStart)
      return err(pos, "expected <|im_start|> (seed 002 section 3)");
    pos += kStart.size();
    const size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) return err(pos, "the header line of the message has no end");
    const std::string_view header = text.substr(pos, eol - pos);
    const size_t space = header.find(' ');
    const std::string_view role_text = header.substr(0, space);
    Message m;
    if (role_text == "system") {
      m.role = Role::system;
    } else if (role_text == "user") {
      m.role = Role::user;
    } else if (role_text == "assistant") {
      m.role = Role::assistant;
    } else if (role_text == "tool") {
      m.role = Role::tool;
    } else {
      return err(pos, fmt::format("unknown role \"{}\" (seed 002 section 10: system, tool, user "
                                  "or assistant)",
                                  role_text));
    }
    if (space != std::string_view::npos) {
      const std::string_view attr = header.substr(space + 1);
      if (attr.substr(0, 5) != "name=" || attr.size() == 5 ||
          attr.find_first_of(" \t\r") != std::string_view::npos)
        return err(pos + space + 1,
                   fmt::format("expected name=<name> after the role, got \"{}\"", attr));
      m.name = std::string(attr.substr(5));
    }
    const size_t body_start = eol + 1;
    const size_t end = text.find(kEnd, body_start);
    if (end == std::string_view::npos)
      return err(pos - kStart.size(), "the message is not closed with <|im_end|>");
    std::string_view body = text.substr(body_start, end - body_start);
    if (o_.newline_before_im_end && !body.empty() && body.back() == '\n') body.remove_suffix(1);
    const std::string ptr = "/" + std::to_string(out.size());
    if (m.role == Role::assistant) {
      ParseOptions po;
      po.id_seed = out.size();
      auto p = make_parser(po);
      p->feed(body);
      p->finish(FinishReason::stop);
      Message a = p->result().message;
      a.name = m.name;
      m = std::move(a);
      open_calls = m.tool_calls;
      results = 0;
    } else if (m.role == Role::tool) {
      constexpr std::string_view kOutput = "<|function_output|>\n";
      bool as_value = false;
      if (body.substr(0, kOutput.size()) == kOutput) {
        auto v = json::parse(body.substr(kOutput.size()));
        const json::Value* name = v ? v.value().find("name") : nullptr;
        const json::Value* content = v ? v.value().find("content") : nullptr;
        if (name && name->is_string() && content) {
          m.name = name->as_string();
          m.contents = {Part::make_value(*content)};
          as_value = true;
        } else {
          body.remove_prefix(kOutput.size());
        }
      }
      if (!as_value) m.contents = {Part::make_text(std::string(body))};
      if (results < open_calls.size()) m.tool_call_id = open_calls[results].id;
      ++results;
    } else {
      m.contents = {Part::make_text(std::string(body))};
    }
    out.push_back(std::move(m));
    pos = end + kEnd.size();
  }
  return out;
}

}  // namespace

std::shared_ptr<const ChatFormat> make_openchatml(const OpenChatMLOptions& options) {
  return std::make_shared<OpenChatML>(options);
}

std::string openchatml_fim(std::string_view prefix, std::string_view suffix) {
  return "<|fim_prefix|>" + std::string(prefix) + "<|fim_middle|><|fim_suffix|>" +
         std::string(suffix);
}

std::string openchatml_fim_completion(std::string_view prefix, std::string_view middle,
                                      std::string_view suffix) {
  return "<|fim_prefix|>" + std::string(prefix) + "<|fim_middle|>" + std::string(middle) +
         "<|fim_suffix|>" + std::string(suffix);
}

std::string openchatml_multi_file(const std::vector<std::string>& files, bool leading_separator) {
  std::string out = leading_separator ? "<|file_separator|>\n" : "";
  for (size_t k = 0; k < files.size(); ++k) out += (k ? "\n<|file_separator|>\n" : "") + files[k];
  return out;
}

}  // namespace ai00::internal::format
