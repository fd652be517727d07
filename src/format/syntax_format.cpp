// A chat format made from a SyntaxFormatSpec: renderer and incremental output parser
// (syntax_format.h).
#include "format/syntax_format.h"

#include <fmt/format.h>

#include <algorithm>

#include "format/ai00_v1.h"  // ai00_v1_type_parameter: raw xml values typed by their schema
#include "format/render_util.h"
#include "format/stream.h"

namespace ai00::internal::format {

namespace {

// The layout of a json-style call that is not compact: {"name": "f", "arguments": {"a": 1}},
// the canonical layout of the JSON Schema grammars.
const json::WriteStyle kSpaced{0, true, false, false};

ErrorInfo bad_spec(const std::string& field, const std::string& why) {
  return make_error(ErrorKind::invalid_argument, "chat format spec: `" + field + "` " + why);
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::optional<ErrorInfo> check_tool_calls(const ToolCallSyntax& t) {
  const std::string& opener = t.section_open.empty() ? t.call_open : t.section_open;
  if (!starts_with(opener, t.trigger))
    return bad_spec("syntax.tool_calls.trigger",
                    "must begin section_open (or call_open when there is no section)");
  if (t.style == CallStyle::xml && (t.xml.name_close.empty() || t.xml.param_open.empty() ||
                                    t.xml.param_name_close.empty() || t.xml.value_close.empty()))
    return bad_spec("syntax.tool_calls.xml",
                    "needs name_close, param_open, param_name_close and value_close");
  if (t.style == CallStyle::json && (t.json.name_key.empty() || t.json.arguments_key.empty() ||
                                     t.json.name_key == t.json.arguments_key))
    return bad_spec("syntax.tool_calls.json", "needs two distinct, non-empty keys");
  return std::nullopt;
}

std::optional<ErrorInfo> check_spec(const SyntaxFormatSpec& s) {
  const ThinkingSyntax& th = s.syntax.thinking;
  if (s.name.empty()) return bad_spec("name", "is empty");
  if (s.assistant.open.empty()) return bad_spec("assistant.open", "is empty");
  if (s.syntax.end_of_turn.empty()) return bad_spec("syntax.end_of_turn", "is empty");
  if (th.open.empty() != th.close.empty())
    return bad_spec("syntax.thinking", "needs both open and close, or neither");
  const std::string& done = th.forced_open_completion;
  if (!done.empty() && (done.size() >= th.open.size() ||
                        th.open.compare(th.open.size() - done.size(), done.size(), done) != 0))
    return bad_spec("syntax.thinking.forced_open_completion",
                    "must be a proper suffix of thinking.open");
  if (!s.syntax.tool_calls.trigger.empty()) return check_tool_calls(s.syntax.tool_calls);
  if (!s.tools_open.empty())
    return bad_spec("tools_open", "lists tools, but the syntax has no tool calls (no trigger)");
  return std::nullopt;
}

std::string_view trim(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

// Every marker text may not contain, without its surrounding whitespace: "\n<|end|>" must also
// keep "<|end|>" out of user text, which would fake a turn to the model.
std::vector<std::string> forbidden_markers(const SyntaxFormatSpec& s) {
  const ChatSyntax& x = s.syntax;
  std::vector<std::string> out;
  for (const std::string* m :
       {&s.system.open, &s.system.close, &s.user.open, &s.user.close, &s.assistant.open,
        &s.assistant.close, &s.tool.open, &s.tool.close, &s.tools_open, &s.tools_close,
        &x.thinking.open, &x.thinking.close, &x.tool_calls.trigger, &x.end_of_turn}) {
    const std::string_view core = trim(*m);
    if (!core.empty()) out.emplace_back(core);
  }
  return out;
}

class SyntaxFormat final : public ChatFormat {
 public:
  explicit SyntaxFormat(SyntaxFormatSpec spec)
      : spec_(std::move(spec)), marker_text_(forbidden_markers(spec_)) {
    markers_.assign(marker_text_.begin(), marker_text_.end());
  }
  std::string_view name() const override { return spec_.name; }
  const ChatSyntax& syntax() const override { return spec_.syntax; }
  Result<RenderResult> render(const std::vector<Message>& conv,
                              const RenderOptions& opts) const override;
  std::unique_ptr<OutputParser> make_parser(const ParseOptions& options) const override;

 private:
  const TurnMarkers& turn(Role r) const {
    switch (r) {
      case Role::system:
        return spec_.system;
      case Role::user:
        return spec_.user;
      case Role::assistant:
        return spec_.assistant;
      case Role::tool:
        return spec_.tool;
    }
    return spec_.user;
  }
  Result<std::string> body(const Message& m, const std::string& ptr) const;
  Result<std::string> calls(const Message& m, const std::string& ptr) const;
  Result<std::string> xml_call(const ToolCall& c, const std::string& ptr) const;
  Result<std::string> json_call(const ToolCall& c, const std::string& ptr) const;
  std::string tool_list(const std::vector<ToolDesc>& tools) const;

  SyntaxFormatSpec spec_;
  std::vector<std::string> marker_text_;
  std::vector<std::string_view> markers_;  // views of marker_text_
};

// ---------------------------------------------------------------------------------------------
// Renderer

std::string SyntaxFormat::tool_list(const std::vector<ToolDesc>& tools) const {
  std::string out = spec_.tools_open;
  for (size_t k = 0; k < tools.size(); ++k) {
    json::Value j(json::Object{});
    j.set("name", tools[k].name);
    if (tools[k].description) j.set("description", *tools[k].description);
    j.set("parameters", tools[k].parameters);
    out += (k ? "\n" : "") + json::write(j);
  }
  return out + spec_.tools_close;
}

Result<std::string> SyntaxFormat::xml_call(const ToolCall& c, const std::string& ptr) const {
  const ToolCallSyntax& t = spec_.syntax.tool_calls;
  auto bad_name = [&](const std::string& p, const std::string& n) -> std::optional<ErrorInfo> {
    for (unsigned char b : n)
      if (b < 0x20 || t.xml.name_forbidden.find(static_cast<char>(b)) != std::string::npos)
        return make_error(ErrorKind::format,
                          fmt::format("{}: the name \"{}\" cannot be written in {} (no control "
                                      "bytes or any of `{}`)",
                                      p, n, spec_.name, t.xml.name_forbidden));
    return std::nullopt;
  };
  if (auto e = bad_name(json::pointer_append(ptr, "name"), c.name)) return *e;
  const std::string aptr = json::pointer_append(ptr, "arguments");
  if (!c.arguments.is_object())
    return make_error(ErrorKind::format, aptr + ": " + spec_.name +
                                             " writes arguments as elements, so they must be "
                                             "an object");
  std::string out = t.call_open + c.name + t.xml.name_close;
  std::vector<std::string_view> value_markers = markers_;
  value_markers.push_back(t.xml.value_close);
  for (const auto& [key, value] : c.arguments.as_object()) {
    const std::string vptr = json::pointer_append(aptr, key);
    if (auto e = bad_name(vptr, key)) return *e;
    // Strings raw, other values as compact JSON (as ai00 v1 writes its parameters).
    const std::string text = value.is_string() ? value.as_string() : json::write(value);
    if (auto e = find_forbidden_marker(text, value_markers, vptr, spec_.name)) return *e;
    out += t.xml.param_open + key + t.xml.param_name_close + text + t.xml.value_close +
           t.xml.param_close;
  }
  return out + t.call_close;
}

Result<std::string> SyntaxFormat::json_call(const ToolCall& c, const std::string& ptr) const {
  const ToolCallSyntax& t = spec_.syntax.tool_calls;
  if (!c.arguments.is_object())
    return make_error(ErrorKind::format,
                      json::pointer_append(ptr, "arguments") + ": must be a JSON object");
  json::Value j(json::Object{});
  if (t.json.arguments_first) j.set(t.json.arguments_key, c.arguments);
  j.set(t.json.name_key, c.name);
  if (!t.json.arguments_first) j.set(t.json.arguments_key, c.arguments);
  const std::string text = json::write(j, t.json.compact ? json::WriteStyle{} : kSpaced);
  // A marker inside a JSON string would still end the turn (stop strings are matched on text).
  if (auto e = find_forbidden_marker(text, markers_, ptr, spec_.name)) return *e;
  return t.call_open + text + t.call_close;
}

Result<std::string> SyntaxFormat::calls(const Message& m, const std::string& ptr) const {
  const ToolCallSyntax& t = spec_.syntax.tool_calls;
  if (t.trigger.empty())
    return unsupported(json::pointer_append(ptr, "tool_calls"),
                       spec_.name + " has no tool-call syntax");
  std::string out = t.section_open;
  for (size_t k = 0; k < m.tool_calls.size(); ++k) {
    const std::string cptr = json::pointer_append(
        json::pointer_append(json::pointer_append(ptr, "tool_calls"), k), "function");
    auto call = t.style == CallStyle::xml ? xml_call(m.tool_calls[k], cptr)
                                          : json_call(m.tool_calls[k], cptr);
    if (!call) return call.error();
    out += (k ? t.call_separator : "") + call.value();
  }
  return out + (t.section_close.empty() ? t.before_end : t.section_close);
}

Result<std::string> SyntaxFormat::body(const Message& m, const std::string& ptr) const {
  if (m.name && m.role != Role::tool)  // a tool message's name is its tool, not a speaker
    return unsupported(json::pointer_append(ptr, "name"),
                       spec_.name + " has no syntax for speaker names");
  if (auto e = check_message_markers(m, ptr, markers_, spec_.name)) return *e;
  auto text = flatten_contents(m, ptr, spec_.name);
  if (!text) return text.error();
  std::string out;
  if (m.role == Role::assistant && m.reasoning) {
    const ThinkingSyntax& th = spec_.syntax.thinking;
    if (th.open.empty())
      return unsupported(json::pointer_append(ptr, "reasoning"),
                         spec_.name + " has no thinking syntax");
    out = th.open + *m.reasoning + th.close;
  }
  out += text.value();
  if (m.role == Role::assistant && !m.tool_calls.empty()) {
    auto c = calls(m, ptr);
    if (!c) return c.error();
    out += c.value();
  }
  return out;
}

Result<RenderResult> SyntaxFormat::render(const std::vector<Message>& conv,
                                          const RenderOptions& opts) const {
  if (!opts.tools.empty() && spec_.tools_open.empty())
    return unsupported("tools", spec_.name + " has no syntax for tool definitions");
  if (opts.assistant_name)
    return unsupported("assistant_name", spec_.name + " has no syntax for speaker names");
  if (opts.reflect || opts.introspect)
    return unsupported(opts.reflect ? "reflect" : "introspect",
                       spec_.name + " has no reflect or introspect blocks");
  const std::string tools = opts.tools.empty() ? "" : tool_list(opts.tools);
  std::vector<std::string> turns;
  if (!tools.empty() && (conv.empty() || conv[0].role != Role::system))
    turns.push_back(spec_.system.open + tools + spec_.system.close);
  for (size_t i = 0; i < conv.size(); ++i) {
    auto b = body(conv[i], message_pointer(i));
    if (!b) return b.error();
    std::string text = std::move(b).value();
    if (i == 0 && conv[0].role == Role::system && !tools.empty())
      text += (text.empty() ? "" : "\n") + tools;
    const TurnMarkers& t = turn(conv[i].role);
    turns.push_back(t.open + text + t.close);
  }
  RenderResult r;
  for (size_t k = 0; k < turns.size(); ++k) r.prompt += (k ? spec_.turn_separator : "") + turns[k];
  const ThinkingSyntax& th = spec_.syntax.thinking;
  if (opts.add_generation_prompt) {
    r.prompt += (turns.empty() ? "" : spec_.turn_separator) + spec_.assistant.open;
    if (opts.thinking != Thinking::off && !th.open.empty()) {
      // The prompt opens the block; the model writes what the completion leaves out.
      r.prompt += th.open.substr(0, th.open.size() - th.forced_open_completion.size());
      r.constraints.thinking_open_in_prompt = true;
    }
  }
  r.stop_sequences = {spec_.syntax.end_of_turn};
  r.prepend_token0 = opts.prepend_token0.value_or(false);
  r.constraints.syntax = spec_.syntax;
  r.constraints.tools = opts.tools;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output parser

enum class Mode { completion, content, reasoning, calls };
enum class Step { match, partial, mismatch };
// Where the call scanner stands: before the section opener, before a call, after a call.
enum class Expect { opener, call, after_call };

// Where the last scan of a long stretch (a raw value, a JSON body) stopped for want of bytes,
// so that the next scan of the same stretch resumes there instead of reading it again: each
// byte of a call is then read a bounded number of times however the output is chunked
// (docs/chat-formats.md "Output parsers": linear cost).
struct ScanMemo {
  size_t until_start = SIZE_MAX, until_upto = 0;    // until(): no close starts in [start, upto)
  size_t object_start = SIZE_MAX, object_upto = 0;  // object(): state after [start, upto)
  int depth = 0;
  bool in_string = false, escaped = false;
};

// A cursor over the call bytes; "partial" means the bytes ended while they could still match.
struct Cursor {
  std::string_view s;
  size_t pos;
  ScanMemo* memo = nullptr;

  Step lit(std::string_view l) {
    const size_t n = std::min(l.size(), s.size() - pos);
    if (s.compare(pos, n, l.substr(0, n)) != 0) return Step::mismatch;
    if (n < l.size()) return Step::partial;
    pos += l.size();
    return Step::match;
  }
  // The bytes up to `close` (consumed) into `out`; with `name`, no byte of `forbidden`, no
  // control byte and at least one byte.
  Step until(std::string_view close, bool name, std::string_view forbidden, std::string& out) {
    // A raw value (no name checks) resumes where the last scan from the same start stopped.
    size_t from = pos;
    if (!name && memo && memo->until_start == pos) from = std::max(pos, memo->until_upto);
    for (size_t i = from; i < s.size(); ++i) {
      const std::string_view rest = s.substr(i, close.size());
      if (close.substr(0, rest.size()) == rest) {
        if (rest.size() < close.size()) {
          if (!name && memo) {
            memo->until_start = pos;
            memo->until_upto = i;
          }
          return Step::partial;
        }
        if (name && i == pos) return Step::mismatch;
        out.assign(s.substr(pos, i - pos));
        pos = i + close.size();
        return Step::match;
      }
      const auto b = static_cast<unsigned char>(s[i]);
      if (name && (b < 0x20 || forbidden.find(s[i]) != std::string_view::npos))
        return Step::mismatch;
    }
    if (!name && memo) {
      memo->until_start = pos;
      memo->until_upto = s.size();
    }
    return Step::partial;
  }
  // One JSON object, by bracket matching outside strings; json::parse checks it afterwards.
  Step object(std::string_view& out) {
    if (pos >= s.size()) return Step::partial;
    if (s[pos] != '{') return Step::mismatch;
    int depth = 0;
    bool in_string = false, escaped = false;
    size_t from = pos;
    if (memo && memo->object_start == pos) {  // resume the bracket matching
      from = memo->object_upto;
      depth = memo->depth;
      in_string = memo->in_string;
      escaped = memo->escaped;
    }
    for (size_t i = from; i < s.size(); ++i) {
      const char c = s[i];
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') in_string = true;
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) {
        out = s.substr(pos, i + 1 - pos);
        pos = i + 1;
        return Step::match;
      }
    }
    if (memo)
      *memo =
          ScanMemo{memo->until_start, memo->until_upto, pos, s.size(), depth, in_string, escaped};
    return Step::partial;
  }
};

struct ParsedCall {
  std::string name;
  json::Value arguments;
  std::vector<std::pair<std::string, std::string>> raw_params;  // style xml, untyped
};

class SyntaxParser final : public ParserBase {
 public:
  SyntaxParser(const ParseOptions& o, const ChatSyntax& s)
      : ParserBase(o, {s.end_of_turn}), s_(s), wake_(wake_bytes(s.tool_calls)) {
    hold_reasoning_newlines(false);  // no renderer newline to drop: every byte is the model's
    if (o.thinking_open && !s.thinking.open.empty())
      mode_ = s.thinking.forced_open_completion.empty() ? Mode::reasoning : Mode::completion;
  }

 protected:
  void consume(std::string_view text) override;
  void end_input() override;

 private:
  void on_marker(std::string_view m);
  Step parse_call(Cursor& c, ParsedCall& out) const;
  Step parse_xml_body(Cursor& c, ParsedCall& out) const;
  Step parse_json_body(Cursor& c, ParsedCall& out) const;
  void scan_calls(bool at_end);
  bool after_call(Cursor& c, bool at_end);
  void emit_parsed(ParsedCall& call);
  void leave_calls(size_t at, const std::string& warning);

  // Bytes after which a call scan can get further: the last byte of every call marker and the
  // closing brace of a JSON body. A match completes only on one of them, and a mismatch found
  // later gives the same result, so other chunks skip the rescan (which keeps the scan of a long
  // value linear instead of quadratic when the output comes a few bytes at a time).
  static std::string wake_bytes(const ToolCallSyntax& t) {
    std::string out = t.style == CallStyle::json ? "}" : "";
    for (const std::string* m :
         {&t.section_open, &t.section_close, &t.call_open, &t.call_close, &t.call_separator,
          &t.before_end, &t.xml.name_close, &t.xml.param_open, &t.xml.param_name_close,
          &t.xml.value_close, &t.xml.param_close})
      if (!m->empty()) out += m->back();
    return out;
  }

  ChatSyntax s_;  // a copy: a parser may outlive its format
  std::string wake_;
  Mode mode_ = Mode::content;
  std::string buf_;    // content / reasoning bytes held as a possible marker prefix
  std::string calls_;  // the call bytes, from the trigger on
  size_t calls_pos_ = 0;
  Expect expect_ = Expect::opener;
  ScanMemo memo_;  // positions index calls_, which only grows until it is cleared with memo_
};

void SyntaxParser::consume(std::string_view text) {
  if (mode_ == Mode::calls) {
    calls_.append(text);
    if (text.find_first_of(wake_) != std::string_view::npos) scan_calls(false);
    return;
  }
  buf_.append(text);
  while (!buf_.empty() && !done() && mode_ != Mode::calls) {
    if (mode_ == Mode::completion) {  // the prompt left the end of the open tag to the model
      const std::string& want = s_.thinking.forced_open_completion;
      const size_t n = std::min(want.size(), buf_.size());
      if (buf_.compare(0, n, want, 0, n) != 0) {
        warn(fmt::format("the thinking tag was not completed with \"{}\"", want));
      } else if (n < want.size()) {
        return;
      } else {
        buf_.erase(0, n);
      }
      mode_ = Mode::reasoning;
      continue;
    }
    std::vector<std::string_view> ms;
    if (mode_ == Mode::reasoning) {
      ms = {s_.thinking.close};
    } else {
      if (!s_.tool_calls.trigger.empty()) ms.push_back(s_.tool_calls.trigger);
      if (!s_.thinking.open.empty()) ms.push_back(s_.thinking.open);
    }
    if (ms.empty()) {
      emit_text(buf_);
      buf_.clear();
      return;
    }
    auto marker = emit_until_marker(buf_, ms, mode_ == Mode::reasoning);
    if (!marker) return;
    on_marker(*marker);
  }
  if (mode_ == Mode::calls && !buf_.empty()) {
    std::string rest;
    rest.swap(buf_);
    consume(rest);
  }
}

void SyntaxParser::on_marker(std::string_view m) {
  if (mode_ == Mode::reasoning) {  // the thinking close
    end_reasoning(0);
    mode_ = Mode::content;
  } else if (m == s_.thinking.open && m != s_.tool_calls.trigger) {
    // Thinking is recognised only at the start of the turn; later it is plain text.
    if (anything_emitted()) {
      emit_text(m);
    } else {
      mode_ = Mode::reasoning;
    }
  } else {  // the trigger: the calls are parsed from it on
    end_text(0);
    mode_ = Mode::calls;
    calls_.assign(m);
    calls_pos_ = 0;
    memo_ = ScanMemo{};
    expect_ = Expect::opener;
  }
}

Step SyntaxParser::parse_xml_body(Cursor& c, ParsedCall& out) const {
  const XmlCallSyntax& x = s_.tool_calls.xml;
  Step st = c.until(x.name_close, true, x.name_forbidden, out.name);
  if (st != Step::match) return st;
  while (true) {
    // A parameter first: an empty call_close would otherwise match before every parameter.
    if ((st = c.lit(x.param_open)) == Step::partial) return st;
    if (st == Step::mismatch) return c.lit(s_.tool_calls.call_close);
    std::string key, value;
    if ((st = c.until(x.param_name_close, true, x.name_forbidden, key)) != Step::match) return st;
    if ((st = c.until(x.value_close, false, "", value)) != Step::match) return st;
    if ((st = c.lit(x.param_close)) != Step::match) return st;
    out.raw_params.emplace_back(std::move(key), std::move(value));
  }
}

Step SyntaxParser::parse_json_body(Cursor& c, ParsedCall& out) const {
  const JsonCallSyntax& j = s_.tool_calls.json;
  std::string_view text;
  Step st = c.object(text);
  if (st != Step::match) return st;
  auto v = json::parse(text);
  const json::Value* name = v ? v.value().find(j.name_key) : nullptr;
  if (!name || !name->is_string() || name->as_string().empty()) return Step::mismatch;
  out.name = name->as_string();
  const json::Value* args = v.value().find(j.arguments_key);
  out.arguments = args ? *args : json::Value(json::Object{});
  if (out.arguments.is_string())  // OpenAI style: arguments as JSON text
    if (auto parsed = json::parse(out.arguments.as_string())) out.arguments = parsed.value();
  return c.lit(s_.tool_calls.call_close);
}

Step SyntaxParser::parse_call(Cursor& c, ParsedCall& out) const {
  const Step st = c.lit(s_.tool_calls.call_open);
  if (st != Step::match) return st;
  return s_.tool_calls.style == CallStyle::xml ? parse_xml_body(c, out) : parse_json_body(c, out);
}

void SyntaxParser::emit_parsed(ParsedCall& call) {
  if (s_.tool_calls.style == CallStyle::xml) {
    const json::Value* props = nullptr;
    for (const auto& t : options().tools)
      if (t.name == call.name) props = t.parameters.find("properties");
    call.arguments = json::Value(json::Object{});
    for (const auto& [key, raw] : call.raw_params) {
      std::string warning;
      const json::Value* schema = props ? props->find(key) : nullptr;
      call.arguments.set(key, ai00_v1_type_parameter(raw, schema, warning));
      if (!warning.empty()) warn(fmt::format("{} parameter \"{}\": {}", call.name, key, warning));
    }
  }
  emit_call(call.name, call.arguments);
}

// The bytes from `at` on are text again; with a warning, the unfinished structure before them
// (from calls_pos_) is kept as text too.
void SyntaxParser::leave_calls(size_t at, const std::string& warning) {
  std::string raw = calls_.substr(calls_pos_, at - calls_pos_);
  if (!warning.empty()) {
    warn(warning + "; kept as text");
    emit_text(raw);
  }
  const std::string rest = calls_.substr(at);
  calls_.clear();
  calls_pos_ = 0;
  memo_ = ScanMemo{};
  mode_ = Mode::content;
  consume_sliced(rest);
}

// After a call: the section close (the turn is over), call_separator and the next call, or,
// without a section, before_end at the end of the turn (dropped) or text. Returns true to go on.
bool SyntaxParser::after_call(Cursor& c, bool at_end) {
  const ToolCallSyntax& t = s_.tool_calls;
  if (!t.section_close.empty()) {
    const Step close = Cursor(c).lit(t.section_close);
    if (close == Step::match) {
      mode_ = Mode::content;
      set_done();  // as in ai00 v1: the turn ends after the section, results come from outside
      return false;
    }
    if (close == Step::partial && !at_end) return false;
  }
  Cursor next = c;
  Step st = next.lit(t.call_separator);
  if (st == Step::match) st = next.lit(t.call_open);
  if (st == Step::match) {
    calls_pos_ = c.pos + t.call_separator.size();
    expect_ = Expect::call;
    return true;
  }
  if (st == Step::partial && !at_end) return false;
  if (!t.section_close.empty()) {
    leave_calls(c.pos, "the call section is not closed");
    return false;
  }
  const std::string_view rest = std::string_view(calls_).substr(c.pos);
  if (!at_end && rest.size() < t.before_end.size() && starts_with(t.before_end, rest))
    return false;  // may still be before_end
  if (at_end && (rest.empty() || rest == t.before_end)) {
    calls_.clear();
    calls_pos_ = 0;
    mode_ = Mode::content;
    return false;
  }
  leave_calls(c.pos, "");  // text after the calls
  return false;
}

void SyntaxParser::scan_calls(bool at_end) {
  const ToolCallSyntax& t = s_.tool_calls;
  while (mode_ == Mode::calls && !done()) {
    Cursor c{calls_, calls_pos_, &memo_};
    if (expect_ == Expect::after_call) {
      if (!after_call(c, at_end)) break;
      continue;
    }
    Step st = Step::match;
    if (expect_ == Expect::opener && !t.section_open.empty()) st = c.lit(t.section_open);
    ParsedCall call;
    if (st == Step::match) st = parse_call(c, call);
    if (st == Step::partial && !at_end) return;
    if (st != Step::match) {
      // At least the trigger becomes text: re-reading it as content would only find it again.
      const size_t at =
          at_end && st == Step::partial ? calls_.size() : std::max(c.pos, t.trigger.size());
      leave_calls(at, fmt::format("{}: a tool call that does not parse at byte {} of the calls",
                                  t.label.empty() ? "tool calls" : t.label, c.pos));
      return;
    }
    emit_parsed(call);
    calls_pos_ = c.pos;
    expect_ = Expect::after_call;
  }
}

void SyntaxParser::end_input() {
  // Calls that do not parse hand their rest back to content, which may start calls again.
  while (mode_ == Mode::calls && !done()) scan_calls(true);
  if (done()) return;
  std::string rest;
  rest.swap(buf_);
  mode_ == Mode::content ? emit_text(rest) : emit_reasoning(rest);
  end_reasoning(0);
  end_text(0);
}

std::unique_ptr<OutputParser> SyntaxFormat::make_parser(const ParseOptions& options) const {
  return std::make_unique<SyntaxParser>(options, spec_.syntax);
}

}  // namespace

Result<std::shared_ptr<const ChatFormat>> make_syntax_format(SyntaxFormatSpec spec) {
  if (auto e = check_spec(spec)) return *e;
  return std::shared_ptr<const ChatFormat>(std::make_shared<SyntaxFormat>(std::move(spec)));
}

}  // namespace ai00::internal::format
