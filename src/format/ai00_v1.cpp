// ai00 chat format v1 (seed 000): renderer and incremental output parser (see ai00_v1.h).
#include "format/ai00_v1.h"

#include <fmt/format.h>

#include <algorithm>

#include "format/render_util.h"
#include "format/stream.h"

namespace ai00::internal::format {

namespace {

constexpr std::string_view kFormat = "ai00 v1";
constexpr std::string_view kCallsOpen = "<ai00:function_calls>";
constexpr std::string_view kCallsClose = "</ai00:function_calls>";
constexpr std::string_view kThinkOpen = "<think>";
constexpr std::string_view kThinkClose = "</think>";

// Marker policy (docs/chat-formats.md "Escaping"). Every v1 structure starts with one of
// kTextMarkers: user and tool text containing them is refused. JSON (tool descriptions and
// schemas, value results, non-string parameter values) is escaped instead (escape_json_markers).
// The assistant's own words are refused only where the output parser would read them back as
// something else, so every message the parser produces renders again: reasoning may not hold
// </think> (it would end the block), a raw parameter value may not hold </parameter>, and no
// assistant text may hold the end of the assistant turn (a stop string, never in parser output).
const std::vector<std::string_view> kTextMarkers = {"<ai00:", "</ai00:"};
const std::vector<std::string_view> kJsonMarkers = {"<ai00:", "</ai00:", "</tool>", "</result>"};

// seed 000: tool JSON sits inside <tool> with 4 spaces; small objects and arrays stay inline.
const json::WriteStyle kToolStyle{2, false, true, true};
// seed 000 "Complete Tool Call Flow": {"temperature": 22, "condition": "sunny"}.
const json::WriteStyle kResultStyle{0, true, false, false};

std::string indent_lines(std::string_view text, std::string_view pad) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) out.append(pad).append(text.substr(start, end - start));
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

// A name written as an attribute value (tool, parameter, speaker, result id): exactly the names
// the output parser reads back (Cursor::attr): not empty, no '"', '<', '>', space or control
// byte. So every name the parser accepts renders, and no name can close the attribute.
bool valid_attr(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7f || c == '"' || c == '<' || c == '>' || c == ' ') return false;
  }
  return true;
}

ErrorInfo bad_name(const std::string& pointer, std::string_view what, std::string_view name) {
  return make_error(ErrorKind::format,
                    fmt::format("{}: {} \"{}\" cannot be written in ai00 v1 (an attribute value "
                                "may not be empty or contain '\"', '<', '>', a space or a control "
                                "character)",
                                pointer, what, name));
}

struct Tags {
  std::string user, assistant, system, close_assistant, prefix, prefix_thinking;
  std::vector<std::string> stops;
};

Tags make_tags(const Ai00V1Options& o) {
  Tags t;
  t.user = o.role_user;
  t.assistant = o.role_assistant;
  t.system = o.role_system;
  t.close_assistant = "</ai00:" + o.role_assistant + ">";
  t.prefix = o.assistant_prefix;
  t.prefix_thinking = o.assistant_prefix_thinking;
  t.stops = o.default_stop_sequences.empty() ? std::vector<std::string>{t.close_assistant}
                                             : o.default_stop_sequences;
  return t;
}

// seed 000 as data (base/chat_syntax.h); the renderer and parser below write and read the same
// bytes.
ChatSyntax make_syntax(const Tags& t) {
  ChatSyntax s;
  s.thinking = {std::string(kThinkOpen), std::string(kThinkClose), ""};
  ToolCallSyntax& c = s.tool_calls;
  c.label = "ai00_v1_xml";
  c.trigger = std::string(kCallsOpen);
  c.section_open = std::string(kCallsOpen) + "\n";
  c.section_close = std::string(kCallsClose);
  c.call_open = "  <invoke name=\"";
  c.call_close = "  </invoke>\n";
  c.style = CallStyle::xml;
  c.xml = {"\">\n", "    <parameter name=\"", "\">", "</parameter>", "\n", "\"<>"};
  s.end_of_turn = t.close_assistant;
  return s;
}

std::string open_tag(const std::string& role, const std::optional<std::string>& name) {
  return "<ai00:" + role + (name ? " name=\"" + *name + "\"" : "") + ">";
}

}  // namespace

std::string ai00_v1_available_tools(const std::vector<ToolDesc>& tools) {
  std::string out = "<ai00:available_tools>\n";
  for (const auto& t : tools) {
    json::Value j(json::Object{});
    j.set("name", t.name);
    if (t.description) j.set("description", *t.description);
    j.set("input_schema", t.parameters);
    if (t.returns) j.set("returns", *t.returns);
    out += "  <tool name=\"" + t.name + "\">\n";
    out += indent_lines(escape_json_markers(json::write(j, kToolStyle), kJsonMarkers), "    ");
    out += "\n  </tool>\n";
  }
  out += "</ai00:available_tools>";
  return out;
}

Result<std::string> ai00_v1_function_calls(const std::vector<ToolCall>& calls,
                                           const std::string& pointer, std::string_view stop) {
  std::string out(kCallsOpen);
  out += '\n';
  for (size_t k = 0; k < calls.size(); ++k) {
    const ToolCall& c = calls[k];
    const std::string fptr = json::pointer_append(json::pointer_append(pointer, k), "function");
    if (!valid_attr(c.name))
      return bad_name(json::pointer_append(fptr, "name"), "tool name", c.name);
    const std::string aptr = json::pointer_append(fptr, "arguments");
    if (!c.arguments.is_object())
      return make_error(ErrorKind::format,
                        aptr +
                            ": ai00 v1 writes arguments as <parameter> elements, so they must "
                            "be an object");
    out += "  <invoke name=\"" + c.name + "\">\n";
    for (const auto& [key, value] : c.arguments.as_object()) {
      const std::string vptr = json::pointer_append(aptr, key);
      if (!valid_attr(key)) return bad_name(vptr, "parameter name", key);
      // seed 000 / docs/chat-formats.md "Formats": strings raw, other values as compact JSON.
      // A raw string has no escape: it may hold anything but the tag that ends it (and the end
      // of the turn); JSON is escaped.
      std::string text;
      if (value.is_string()) {
        text = value.as_string();
        if (auto e = find_forbidden_marker(text, {"</parameter>", stop}, vptr, kFormat)) return *e;
      } else {
        text = escape_json_markers(json::write(value), {"</parameter>", "<ai00:", "</ai00:"});
      }
      out += "    <parameter name=\"" + key + "\">" + text + "</parameter>\n";
    }
    out += "  </invoke>\n";
  }
  out += kCallsClose;
  return out;
}

Result<std::string> ai00_v1_function_results(const std::vector<const Message*>& results,
                                             const std::vector<std::string>& ids,
                                             const std::vector<std::string>& pointers) {
  std::string out = "<ai00:function_results>\n";
  for (size_t k = 0; k < results.size(); ++k) {
    auto text = flatten_contents(*results[k], pointers[k], kFormat, kResultStyle, kJsonMarkers);
    if (!text) return text.error();
    if (auto e = check_message_markers(*results[k], pointers[k], kTextMarkers, kFormat)) return *e;
    if (!valid_attr(ids[k]))
      return bad_name(json::pointer_append(pointers[k], "tool_call_id"), "tool call id", ids[k]);
    out += "  <result name=\"" + ids[k] + "\">\n";
    out += indent_lines(text.value(), "    ");
    out += "\n  </result>\n";
  }
  out += "</ai00:function_results>";
  return out;
}

namespace {

std::string_view trim(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

// The digits of a JSON number text `t` whose value is an integer (JSON Schema's integers:
// `2`, `2.000`, `1e3`, `-0.5e1`), without fraction or exponent; nullopt for a non-integer or
// for one of more than kMaxDigits digits (kept as a number as written then).
std::optional<std::string> integer_digits(std::string_view t) {
  constexpr long kMaxDigits = 400;
  const bool neg = !t.empty() && t[0] == '-';
  if (neg) t.remove_prefix(1);
  const size_t e = t.find_first_of("eE");
  long exp = 0;
  if (e != std::string_view::npos) {
    std::string_view x = t.substr(e + 1);
    const bool eneg = !x.empty() && x[0] == '-';
    if (!x.empty() && (x[0] == '-' || x[0] == '+')) x.remove_prefix(1);
    for (char c : x) exp = std::min(exp * 10 + (c - '0'), kMaxDigits * 4);
    if (eneg) exp = -exp;
    t = t.substr(0, e);
  }
  const size_t dot = t.find('.');
  std::string digits(t.substr(0, dot));
  if (dot != std::string_view::npos) digits += t.substr(dot + 1);
  const long point = static_cast<long>(dot == std::string_view::npos ? t.size() : dot) + exp;
  if (point > kMaxDigits) return std::nullopt;
  for (long i = std::max(point, 0L); i < static_cast<long>(digits.size()); ++i)
    if (digits[i] != '0') return std::nullopt;  // a non-zero fraction digit
  std::string out = point <= 0 ? "" : digits.substr(0, std::min<size_t>(point, digits.size()));
  if (point > static_cast<long>(digits.size())) out.append(point - digits.size(), '0');
  out.erase(0, std::min(out.find_first_not_of('0'), out.size()));
  if (out.empty()) return std::string("0");
  return neg ? "-" + out : out;
}

// The value of `raw` as JSON type `type`, if it fits.
std::optional<json::Value> as_type(const std::string& raw, std::string_view type) {
  const std::string_view t = trim(raw);
  if (type == "string") return json::Value(raw);  // kept as written, nothing trimmed
  if (type == "number" || type == "integer") {
    if (!json::Value::is_number_text(t)) return std::nullopt;
    if (type == "number") return json::Value::number_from_text(std::string(t));
    // An integer by JSON Schema's rule (a zero fraction counts), written as plain digits so
    // that every JSON reader gets an integer back.
    if (t.find_first_of(".eE") == std::string_view::npos)
      return json::Value::number_from_text(std::string(t));
    auto digits = integer_digits(t);
    if (!digits) return std::nullopt;
    return json::Value::number_from_text(std::move(*digits));
  }
  if (type == "boolean") {
    if (t == "true" || t == "false") return json::Value(t == "true");
    return std::nullopt;
  }
  if (type == "null") {
    if (t == "null") return json::Value();
    return std::nullopt;
  }
  if (type == "object" || type == "array") {
    auto v = json::parse(t);
    if (!v || (type == "object" ? !v.value().is_object() : !v.value().is_array()))
      return std::nullopt;
    return std::move(v).value();
  }
  return std::nullopt;
}

std::optional<json::Value> fit(const std::string& raw, const json::Value& schema, int depth) {
  if (!schema.is_object() || depth > 8) return json::Value(raw);
  for (const char* key : {"anyOf", "oneOf"}) {
    const json::Value* branches = schema.find(key);
    if (!branches || !branches->is_array()) continue;
    // The first branch that fits; a string branch only after every typed branch failed, since
    // any text fits a string.
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& b : branches->as_array()) {
        const json::Value* bt = b.find("type");
        const bool is_string = bt && bt->is_string() && bt->as_string() == "string";
        if ((pass == 0) == is_string) continue;
        if (auto v = fit(raw, b, depth + 1)) return v;
      }
    return std::nullopt;
  }
  std::vector<std::string> types;
  if (const json::Value* t = schema.find("type")) {
    if (t->is_string()) types.push_back(t->as_string());
    if (t->is_array())
      for (const auto& e : t->as_array())
        if (e.is_string()) types.push_back(e.as_string());
  }
  if (types.empty()) {
    // An untyped enum or const: the listed value whose JSON the text is (a string value is
    // matched as raw text first, as the grammar writes it).
    std::vector<const json::Value*> listed;
    if (const json::Value* en = schema.find("enum"); en && en->is_array())
      for (const auto& e : en->as_array()) listed.push_back(&e);
    if (const json::Value* c = schema.find("const")) listed.push_back(c);
    if (!listed.empty()) {
      for (const json::Value* e : listed)
        if (e->is_string() && e->as_string() == raw) return *e;
      auto parsed = json::parse(trim(raw));
      for (const json::Value* e : listed)
        if (parsed && *e == parsed.value()) return *e;
      return std::nullopt;
    }
    return json::Value(raw);  // no type: unknown → string
  }
  std::optional<json::Value> as_string;
  for (const auto& t : types) {
    if (t == "string") {
      as_string = json::Value(raw);
      continue;
    }
    if (auto v = as_type(raw, t)) return v;
  }
  return as_string;
}

}  // namespace

json::Value ai00_v1_type_parameter(const std::string& raw, const json::Value* schema,
                                   std::string& warning) {
  warning.clear();
  if (!schema) return json::Value(raw);
  if (auto v = fit(raw, *schema, 0)) return std::move(*v);
  warning = "the value does not fit its JSON Schema; kept as a string";
  return json::Value(raw);
}

// ---------------------------------------------------------------------------------------------
// Renderer

namespace {

class Ai00V1 final : public ChatFormat {
 public:
  explicit Ai00V1(const Ai00V1Options& o) : tags_(make_tags(o)), syntax_(make_syntax(tags_)) {}
  std::string_view name() const override { return "ai00-v1"; }
  const ChatSyntax& syntax() const override { return syntax_; }
  Result<RenderResult> render(const std::vector<Message>& conv,
                              const RenderOptions& opts) const override;
  std::unique_ptr<OutputParser> make_parser(const ParseOptions& options) const override;

 private:
  std::string assistant_prefix(const std::optional<std::string>& name, bool thinking) const {
    const std::string& custom = thinking ? tags_.prefix_thinking : tags_.prefix;
    if (!custom.empty()) return custom;
    return open_tag(tags_.assistant, name) + "\n" + (thinking ? "<think>\n" : "");
  }
  Result<std::string> simple_turn(const Message& m, const std::string& ptr,
                                  const std::string& extra) const;
  // Renders the assistant turn starting at conv[i]: the message, its tool results and the
  // assistant messages continuing after them. Advances i; sets open_end when the conversation
  // ended with tool results (the turn is left open for the model).
  Result<std::string> assistant_turn(const std::vector<Message>& conv, size_t& i,
                                     bool& open_end) const;
  Result<std::string> assistant_segment(const Message& m, const std::string& ptr) const;

  Tags tags_;
  ChatSyntax syntax_;
};

Result<std::string> Ai00V1::simple_turn(const Message& m, const std::string& ptr,
                                        const std::string& extra) const {
  const std::string& role = m.role == Role::system ? tags_.system : tags_.user;
  // System text is the developer's: only turn markers are refused there.
  const std::vector<std::string> turn_markers = {
      "<ai00:" + tags_.user,       "</ai00:" + tags_.user,  "<ai00:" + tags_.assistant,
      "</ai00:" + tags_.assistant, "<ai00:" + tags_.system, "</ai00:" + tags_.system};
  std::vector<std::string_view> markers(turn_markers.begin(), turn_markers.end());
  if (auto e =
          check_message_markers(m, ptr, m.role == Role::system ? markers : kTextMarkers, kFormat))
    return *e;
  if (m.name && !valid_attr(*m.name))
    return bad_name(json::pointer_append(ptr, "name"), "speaker name", *m.name);
  auto text = flatten_contents(m, ptr, kFormat, kResultStyle, kJsonMarkers);
  if (!text) return text.error();
  std::string body = text.value();
  if (!extra.empty()) body += body.empty() ? extra : "\n\n" + extra;
  return open_tag(role, m.name) + "\n" + body + "\n</ai00:" + role + ">";
}

Result<std::string> Ai00V1::assistant_segment(const Message& m, const std::string& ptr) const {
  // The assistant's words: refused only where they would read back differently (see above).
  Message probe = m;
  probe.reasoning.reset();
  const std::string_view stop = tags_.close_assistant;
  if (auto e = check_message_markers(probe, ptr, {stop}, kFormat)) return *e;
  if (m.reasoning)
    if (auto e = find_forbidden_marker(*m.reasoning, {kThinkClose, stop},
                                       json::pointer_append(ptr, "reasoning"), kFormat))
      return *e;
  auto text = flatten_contents(m, ptr, kFormat, kResultStyle, kJsonMarkers);
  if (!text) return text.error();
  std::string out;
  if (m.reasoning) out += "<think>\n" + *m.reasoning + "\n</think>\n";
  out += text.value();
  if (!m.tool_calls.empty()) {
    auto calls =
        ai00_v1_function_calls(m.tool_calls, json::pointer_append(ptr, "tool_calls"), stop);
    if (!calls) return calls.error();
    if (!text.value().empty()) out += "\n\n";
    out += calls.value();
  }
  return out;
}

Result<std::string> Ai00V1::assistant_turn(const std::vector<Message>& conv, size_t& i,
                                           bool& open_end) const {
  const Message& first = conv[i];
  if (first.name && !valid_attr(*first.name))
    return bad_name(json::pointer_append(message_pointer(i), "name"), "speaker name", *first.name);
  std::string turn = assistant_prefix(first.name, false);
  while (true) {
    const Message& m = conv[i];
    auto seg = assistant_segment(m, message_pointer(i));
    if (!seg) return seg.error();
    turn += seg.value();
    ++i;
    std::vector<const Message*> results;
    std::vector<std::string> ids, ptrs;
    for (; i < conv.size() && conv[i].role == Role::tool; ++i) {
      const size_t k = results.size();
      ptrs.push_back(message_pointer(i));
      if (k >= m.tool_calls.size())
        return make_error(ErrorKind::format, ptrs.back() +
                                                 ": a tool result without a matching call in " +
                                                 message_pointer(i - k - 1) + "/tool_calls");
      results.push_back(&conv[i]);
      // seed 000 names a result by its call id; a call without one is named by its tool.
      std::string id = conv[i].tool_call_id.value_or(m.tool_calls[k].id);
      ids.push_back(id.empty() ? m.tool_calls[k].name : id);
    }
    if (results.empty()) break;
    auto block = ai00_v1_function_results(results, ids, ptrs);
    if (!block) return block.error();
    turn += "\n" + block.value();
    if (i == conv.size()) {
      open_end = true;
      return turn;
    }
    if (conv[i].role != Role::assistant) break;
    turn += "\n\n";  // the model continues the same turn after the results
  }
  return turn + "\n" + tags_.close_assistant;
}

Result<RenderResult> Ai00V1::render(const std::vector<Message>& conv,
                                    const RenderOptions& opts) const {
  if (opts.reflect || opts.introspect)
    return unsupported(opts.reflect ? "reflect" : "introspect",
                       "ai00 v1 has no reflect or introspect blocks (OpenChatML has)");
  for (const auto& t : opts.tools)
    if (!valid_attr(t.name)) return bad_name("tools", "tool name", t.name);
  std::vector<std::string> turns;
  const std::string tools_block = opts.tools.empty() ? "" : ai00_v1_available_tools(opts.tools);
  bool tools_done = tools_block.empty();
  if (!tools_done && (conv.empty() || conv[0].role != Role::system)) {
    turns.push_back("<ai00:" + tags_.system + ">\n" + tools_block + "\n</ai00:" + tags_.system +
                    ">");
    tools_done = true;
  }
  bool open_end = false;
  for (size_t i = 0; i < conv.size();) {
    const Message& m = conv[i];
    if (m.role == Role::tool)
      return make_error(ErrorKind::format, message_pointer(i) +
                                               ": a tool result must follow an assistant "
                                               "message with tool_calls");
    if (m.role == Role::assistant) {
      auto turn = assistant_turn(conv, i, open_end);
      if (!turn) return turn.error();
      turns.push_back(std::move(turn).value());
      continue;
    }
    auto turn = simple_turn(m, message_pointer(i), tools_done ? "" : tools_block);
    if (!turn) return turn.error();
    tools_done = true;
    turns.push_back(std::move(turn).value());
    ++i;
  }
  RenderResult r;
  for (size_t k = 0; k < turns.size(); ++k) r.prompt += (k ? "\n\n" : "") + turns[k];
  const bool thinking = opts.thinking != Thinking::off;
  if (open_end) {
    r.prompt += opts.add_generation_prompt ? "\n\n" : "\n" + tags_.close_assistant;
  } else if (opts.add_generation_prompt) {
    if (opts.assistant_name && !valid_attr(*opts.assistant_name))
      return bad_name("assistant_name", "speaker name", *opts.assistant_name);
    const std::string prefix = assistant_prefix(opts.assistant_name, thinking);
    r.prompt += (r.prompt.empty() ? "" : "\n\n") + prefix;
    r.constraints.thinking_open_in_prompt =
        thinking && prefix.size() >= 8 && prefix.find("<think>", prefix.size() - 8) != prefix.npos;
  }
  r.stop_sequences = tags_.stops;
  r.prepend_token0 = opts.prepend_token0.value_or(false);
  r.constraints.syntax = syntax_;
  r.constraints.tools = opts.tools;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Output parser

enum class Mode { content, reasoning, calls };
enum class Step { match, partial, mismatch };

// A cursor over a call block; "partial" means the text ended inside what could still match.
struct Cursor {
  std::string_view s;
  size_t pos;
  Step lit(std::string_view l) {
    const size_t n = std::min(l.size(), s.size() - pos);
    if (s.compare(pos, n, l.substr(0, n)) != 0) return Step::mismatch;
    if (n < l.size()) return Step::partial;
    pos += l.size();
    return Step::match;
  }
  void skip_ws() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\n' || s[pos] == '\t' || s[pos] == '\r'))
      ++pos;
  }
  bool at_end() const { return pos >= s.size(); }
  // An attribute value up to '"'; mismatch on a byte that cannot be in a name.
  Step attr(std::string& out) {
    const size_t start = pos;
    while (pos < s.size() && s[pos] != '"') {
      const char c = s[pos];
      const auto b = static_cast<unsigned char>(c);
      // The bytes valid_attr refuses: what renders is exactly what parses.
      if (b < 0x20 || b == 0x7f || c == '<' || c == '>' || c == ' ') return Step::mismatch;
      ++pos;
    }
    if (pos >= s.size()) return Step::partial;
    out.assign(s.substr(start, pos - start));
    return out.empty() ? Step::mismatch : Step::match;
  }
};

struct Invoke {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
};

class Ai00V1Parser final : public ParserBase {
 public:
  Ai00V1Parser(const ParseOptions& o, std::vector<std::string> stops)
      : ParserBase(o, std::move(stops)) {
    if (o.thinking_open) mode_ = Mode::reasoning;
  }

 protected:
  void consume(std::string_view text) override;
  void end_input() override;

 private:
  void on_marker(std::string_view m);
  void scan_calls(bool at_end);
  // The unfinished structure up to byte `at` of the block becomes text; parsing resumes in
  // content mode at `at`, so the result never depends on where the chunks were cut.
  void degrade(const std::string& why, size_t at);
  void emit_invoke(const Invoke& inv);
  // Parses the <invoke> at calls_pos_, resuming after its last complete parameter (see inv_).
  Step parse_invoke(Cursor& c);
  const json::Value* param_schema(const std::string& tool, const std::string& key) const;
  void reset_invoke() {
    inv_ = Invoke{};
    inv_open_ = false;
    inv_resume_ = value_searched_ = 0;
  }

  Mode mode_ = Mode::content;
  std::string buf_;              // content/reasoning bytes held as a possible marker prefix
  std::string calls_;            // the call block after <ai00:function_calls>
  size_t calls_pos_ = 0;         // parsed up to here
  size_t block_calls_ = 0;       // calls emitted from this block
  bool calls_dirty_ = false;     // a '>' arrived since the last scan
  size_t dropped_newlines_ = 0;  // newlines before the block, restored if it is not a block
  // The <invoke> being read, kept between scans so that each byte of the block is looked at a
  // bounded number of times (docs/chat-formats.md "Output parsers": linear cost): its name and
  // complete parameters, whether its open tag is parsed, where its next parameter starts, and
  // up to where the current value is known to hold no </parameter>.
  Invoke inv_;
  bool inv_open_ = false;
  size_t inv_resume_ = 0;
  size_t value_searched_ = 0;
};

const json::Value* Ai00V1Parser::param_schema(const std::string& tool,
                                              const std::string& key) const {
  for (const auto& t : options().tools)
    if (t.name == tool)
      if (const json::Value* props = t.parameters.find("properties")) return props->find(key);
  return nullptr;
}

Step Ai00V1Parser::parse_invoke(Cursor& c) {
  Step st;
  if (!inv_open_) {
    if ((st = c.lit("<invoke name=\"")) != Step::match) return st;
    if ((st = c.attr(inv_.name)) != Step::match) return st;
    if ((st = c.lit("\">")) != Step::match) return st;
    inv_open_ = true;
    inv_resume_ = c.pos;
    preview_start(inv_.name);
  }
  c.pos = inv_resume_;
  constexpr std::string_view kValueClose = "</parameter>";
  while (true) {
    c.skip_ws();
    if (c.at_end()) return Step::partial;
    if ((st = c.lit("</invoke>")) != Step::mismatch) return st;
    if ((st = c.lit("<parameter name=\"")) != Step::match) return st;
    std::string pname;
    if ((st = c.attr(pname)) != Step::match) return st;
    if ((st = c.lit("\">")) != Step::match) return st;
    const size_t end = c.s.find(kValueClose, std::max(c.pos, value_searched_));
    if (end == std::string_view::npos) {
      if (c.s.size() >= kValueClose.size())
        value_searched_ = std::max(c.pos, c.s.size() - kValueClose.size() + 1);
      return Step::partial;
    }
    inv_.params.emplace_back(pname, std::string(c.s.substr(c.pos, end - c.pos)));
    {  // the arguments JSON so far, one parameter at a time: {"a":1 then ,"b":"x" then }
      std::string warning;
      std::string piece = inv_.params.size() == 1 ? "{" : ",";
      piece += json::write(json::Value(pname)) + ":" +
               json::write(ai00_v1_type_parameter(inv_.params.back().second,
                                                  param_schema(inv_.name, pname), warning));
      preview_arguments(piece);
    }
    c.pos = end + kValueClose.size();
    inv_resume_ = c.pos;
    value_searched_ = 0;
  }
}

void Ai00V1Parser::consume(std::string_view text) {
  if (mode_ == Mode::calls) {
    calls_.append(text);
    calls_dirty_ = calls_dirty_ || text.find('>') != std::string_view::npos;
    scan_calls(false);
    return;
  }
  buf_.append(text);
  while (!buf_.empty() && !done() && mode_ != Mode::calls) {
    std::vector<std::string_view> ms;
    if (mode_ == Mode::reasoning) {
      ms = {kThinkClose};
    } else {
      ms = {kCallsOpen, kThinkOpen};
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

void Ai00V1Parser::on_marker(std::string_view m) {
  if (m == kThinkOpen) {
    if (anything_emitted()) {  // thinking is only recognised at the start of the turn
      emit_text(m);
      return;
    }
    mode_ = Mode::reasoning;
    skip_reasoning(Skip::one_newline);
  } else if (m == kThinkClose) {
    end_reasoning(1);  // the "\n" the renderer writes before </think>
    mode_ = Mode::content;
    skip_text(Skip::whitespace);
  } else {                            // <ai00:function_calls>
    dropped_newlines_ = end_text(2);  // the blank line the renderer writes before the block
    mode_ = Mode::calls;
    calls_.clear();
    calls_pos_ = 0;
    block_calls_ = 0;
    calls_dirty_ = true;
    reset_invoke();
  }
}

void Ai00V1Parser::emit_invoke(const Invoke& inv) {
  const json::Value* props = nullptr;
  for (const auto& t : options().tools)
    if (t.name == inv.name) props = t.parameters.find("properties");
  json::Value args(json::Object{});
  for (const auto& [key, raw] : inv.params) {
    std::string warning;
    const json::Value* schema = props ? props->find(key) : nullptr;
    json::Value v = ai00_v1_type_parameter(raw, schema, warning);
    if (!warning.empty())
      warn(fmt::format("ai00 v1: {} parameter \"{}\": {}", inv.name, key, warning));
    if (args.find(key)) warn(fmt::format("ai00 v1: {} repeats parameter \"{}\"", inv.name, key));
    args.set(key, std::move(v));
  }
  emit_call(inv.name, args);
  ++block_calls_;
}

void Ai00V1Parser::scan_calls(bool at_end) {
  if (!calls_dirty_ && !at_end) return;  // every step of the block ends with '>'
  calls_dirty_ = false;
  while (true) {
    Cursor c{calls_, calls_pos_};
    c.skip_ws();
    if (c.at_end()) break;
    Step st = c.lit(kCallsClose);
    if (st == Step::match) {
      mode_ = Mode::content;
      set_done();  // docs/chat-formats.md "Formats": the turn ends after the block
      return;
    }
    if (st == Step::partial) break;
    st = parse_invoke(c);
    if (st == Step::partial) break;
    if (st == Step::mismatch) {
      degrade(fmt::format("unexpected text at byte {} of the <ai00:function_calls> block", c.pos),
              c.pos);
      return;
    }
    emit_invoke(inv_);
    reset_invoke();
    calls_pos_ = c.pos;
  }
  if (at_end && cut_by_length()) {  // the token limit cut the block: an incomplete call
    std::string raw = calls_.substr(calls_pos_);
    if (block_calls_ == 0)
      raw = std::string(dropped_newlines_, '\n') + std::string(kCallsOpen) + raw;
    mode_ = Mode::content;
    calls_.clear();
    calls_pos_ = 0;
    const std::string name = inv_open_ ? inv_.name : std::string();
    reset_invoke();
    cut_call(name, std::move(raw));
    return;
  }
  if (at_end) degrade("the <ai00:function_calls> block is not closed", calls_.size());
}

void Ai00V1Parser::degrade(const std::string& why, size_t at) {
  warn("ai00 v1: " + why + "; kept as text");
  preview_abandon();
  std::string raw = calls_.substr(calls_pos_, at - calls_pos_);
  if (block_calls_ == 0) raw = std::string(dropped_newlines_, '\n') + std::string(kCallsOpen) + raw;
  const std::string rest = calls_.substr(at);
  mode_ = Mode::content;
  calls_.clear();
  calls_pos_ = 0;
  reset_invoke();
  emit_text(raw);
  consume_sliced(rest);
}

void Ai00V1Parser::end_input() {
  // A block that degrades hands its rest back to content, which may open another block.
  while (mode_ == Mode::calls && !done()) scan_calls(true);
  if (done()) return;
  // A held partial marker is text of the current mode.
  std::string rest;
  rest.swap(buf_);
  if (mode_ == Mode::reasoning) {
    emit_reasoning(rest);
    end_reasoning(1);
  } else {
    emit_text(rest);
  }
  end_text(1);  // the "\n" the renderer writes before </ai00:assistant>
}

}  // namespace

std::unique_ptr<OutputParser> Ai00V1::make_parser(const ParseOptions& options) const {
  return std::make_unique<Ai00V1Parser>(options, tags_.stops);
}

std::shared_ptr<const ChatFormat> make_ai00_v1(const Ai00V1Options& options) {
  return std::make_shared<Ai00V1>(options);
}

}  // namespace ai00::internal::format
