// Tool lists and the unified tool-call grammars built from a chat syntax (tool_grammar.h).
#include "grammar/tool_grammar.h"

#include <simdjson.h>

#include <initializer_list>
#include <set>
#include <utility>

#include "grammar/kbnf_writer.h"

namespace ai00::internal::grammar {

namespace dom = simdjson::dom;

namespace {

struct ToolError {
  ErrorInfo info;
};

[[noreturn]] void fail(ErrorKind kind, std::string message) {
  throw ToolError{make_error(kind, std::move(message))};
}

// ---- tool list -------------------------------------------------------------------------------

ToolSpec parse_tool(dom::element e, std::string ptr) {
  dom::object o;
  if (e.get_object().get(o)) fail(ErrorKind::format, "a tool must be a JSON object at " + ptr);
  dom::object fn;
  if (!o["function"].error()) {
    std::string_view type;
    if (!o["type"].error() && (o["type"].get_string().get(type) || type != "function"))
      fail(ErrorKind::format, "tool `type` must be \"function\" at " + ptr + "/type");
    if (o["function"].get_object().get(fn))
      fail(ErrorKind::format, "`function` must be an object at " + ptr + "/function");
    o = fn;
    ptr += "/function";
  }
  ToolSpec t;
  std::string_view s;
  if (o["name"].error()) fail(ErrorKind::format, "missing tool name at " + ptr + "/name");
  if (o["name"].get_string().get(s) || s.empty())
    fail(ErrorKind::format, "tool name must be a non-empty string at " + ptr + "/name");
  t.name = std::string(s);
  if (!o["description"].error()) {
    if (o["description"].get_string().get(s))
      fail(ErrorKind::format, "tool description must be a string at " + ptr + "/description");
    t.description = std::string(s);
  }
  for (const char* kw : {"parameters", "input_schema", "returns"}) {
    auto v = o[kw];
    if (v.error()) continue;
    const auto type = v.value_unsafe().type();
    if (type != dom::element_type::OBJECT && type != dom::element_type::BOOL)
      fail(ErrorKind::format,
           std::string("`") + kw + "` must be a JSON Schema object at " + ptr + "/" + kw);
    std::string& out = std::string_view(kw) == "returns" ? t.returns_json : t.parameters_json;
    if (!out.empty()) fail(ErrorKind::format, "both `parameters` and `input_schema` at " + ptr);
    out = simdjson::to_string(v.value_unsafe());
  }
  return t;
}

// ---- pieces ----------------------------------------------------------------------------------

// KBNF items joined by spaces; an empty item (an empty marker) is left out.
std::string seq(std::initializer_list<std::string> items) {
  std::string out;
  for (const auto& i : items)
    if (!i.empty()) out += (out.empty() ? "" : " ") + i;
  return out;
}

// A literal, or nothing for an empty marker (KBNF has no empty literal).
std::string lit(const std::string& s) { return s.empty() ? std::string() : kbnf_literal(s); }

std::string alternatives(const std::vector<std::string>& rules) {
  std::string out;
  for (size_t i = 0; i < rules.size(); ++i) out += (i ? " | " : "") + rules[i];
  return out;
}

// #ex'a|b|…'? : one text region that stops before any of the (non-empty) markers.
std::string text_region(const std::vector<std::string>& stops) {
  std::string re;
  for (const auto& s : stops)
    if (!s.empty()) re += (re.empty() ? "" : "|") + regex_escape(s);
  return kbnf_regex(re, RegexKind::complement) + "?";
}

template <typename T>
T take(Result<T> r) {
  if (!r.ok()) throw ToolError{r.error()};
  return std::move(r).value();
}

void require(bool ok, const std::string& what) {
  if (!ok) fail(ErrorKind::invalid_argument, "tool grammar: the chat syntax " + what);
}

// The markers the grammar cannot do without.
void check_syntax(const ChatSyntax& s, ThinkingStart start) {
  const ToolCallSyntax& t = s.tool_calls;
  require(!t.trigger.empty(), "has no tool calls (empty trigger)");
  require(!s.end_of_turn.empty(), "has no end_of_turn marker");
  const std::string& opener = t.section_open.empty() ? t.call_open : t.section_open;
  require(opener.compare(0, t.trigger.size(), t.trigger) == 0,
          "`" + t.label + "`: section_open (or call_open) must start with the trigger");
  if (t.style == CallStyle::xml)
    require(!t.xml.name_close.empty() && !t.xml.param_open.empty() &&
                !t.xml.param_name_close.empty() && !t.xml.value_close.empty(),
            "`" + t.label +
                "`: an xml call needs name_close, param_open, param_name_close and "
                "value_close");
  if (start == ThinkingStart::forced_open)
    require(!s.thinking.close.empty(), "has no thinking markers, so thinking cannot be open");
}

// ---- xml style: NAME name_close (param_open KEY param_name_close RAW value_close param_close)* -

// The regex of an attribute value (tool or parameter name) under the syntax.
std::string xml_name_regex(const XmlCallSyntax& x) {
  std::string cls = "[^";
  for (char c : x.name_forbidden) cls += regex_escape(std::string(1, c));
  return kbnf_regex(cls + "\\x00-\\x1F]+");
}

void check_xml_name(const XmlCallSyntax& x, const std::string& label, const std::string& name,
                    const std::string& ptr) {
  for (unsigned char c : name)
    if (c < 0x20 || x.name_forbidden.find(static_cast<char>(c)) != std::string::npos)
      fail(ErrorKind::format, "name `" + name + "` cannot be written in a " + label +
                                  " call (contains a control byte or one of `" + x.name_forbidden +
                                  "`) at " + ptr);
}

// `value` matches the raw value together with its closing value_close.
std::string xml_param(const XmlCallSyntax& x, const std::string& name_expr,
                      const std::string& value) {
  return seq({lit(x.param_open), name_expr, lit(x.param_name_close), value, lit(x.param_close)});
}

std::string free_value(const XmlCallSyntax& x) {
  return kbnf_regex(regex_escape(x.value_close), RegexKind::complement) + "? " +
         kbnf_literal(x.value_close);
}

struct Builder {
  const std::vector<ToolSpec>& tools;
  const ToolGrammarOptions& opt;
  const ToolCallSyntax& t;
  std::string& g;
  std::vector<std::string>& warnings;

  // The tool name at structural: any name the syntax can write, or the named choice's.
  bool named() const { return opt.choice.mode == ToolChoiceMode::named; }

  void xml_structural() {
    const XmlCallSyntax& x = t.xml;
    const std::string name = named() ? kbnf_literal(opt.choice.name) : xml_name_regex(x);
    g += "call ::= " +
         seq({lit(t.call_open), name, lit(x.name_close), "param*", lit(t.call_close)}) + ";\n";
    g += "param ::= " + xml_param(x, xml_name_regex(x), free_value(x)) + ";\n";
  }

  // One tool's parameters as `rule rule? extra*` from its schema.
  std::string xml_params(const ToolSpec& tool, const std::string& ptr, const std::string& prefix) {
    const XmlCallSyntax& x = t.xml;
    SchemaConverter conv =
        take(SchemaConverter::create(tool.parameters_json, opt.schema, prefix + "s_"));
    const ObjectShape shape = take(conv.object_shape(""));
    std::string params;
    for (size_t k = 0; k < shape.properties.size(); ++k) {
      const SchemaProperty& p = shape.properties[k];
      check_xml_name(x, t.label, p.name, ptr + "/parameters" + p.pointer);
      const std::string value = take(conv.raw_rule(p.pointer, x.value_close));
      const std::string rule = prefix + "p" + std::to_string(k);
      g += rule + " ::= " + xml_param(x, kbnf_literal(p.name), value) + ";\n";
      params += " " + rule + (p.required ? "" : "?");
    }
    if (shape.additional) {
      const std::string value = shape.additional_pointer.empty()
                                    ? free_value(x)
                                    : take(conv.raw_rule(shape.additional_pointer, x.value_close));
      g += prefix + "extra ::= " + xml_param(x, xml_name_regex(x), value) + ";\n";
      params += " " + prefix + "extra*";
    }
    g += conv.rules_kbnf();
    warnings.insert(warnings.end(), conv.warnings().begin(), conv.warnings().end());
    return params;
  }

  void xml_schema_aware() {
    std::vector<std::string> calls;
    for (size_t i = 0; i < tools.size(); ++i) {
      const ToolSpec& tool = tools[i];
      if (named() && tool.name != opt.choice.name) continue;
      const std::string ptr = "/" + std::to_string(i);
      check_xml_name(t.xml, t.label, tool.name, ptr + "/name");
      const std::string prefix = "tool" + std::to_string(i) + "_";
      const std::string params = tool.parameters_json.empty() ? "" : xml_params(tool, ptr, prefix);
      g += prefix + "call ::= " + kbnf_literal(t.call_open + tool.name + t.xml.name_close) +
           params + (t.call_close.empty() ? "" : " " + kbnf_literal(t.call_close)) + ";\n";
      calls.push_back(prefix + "call");
    }
    g += "call ::= " + alternatives(calls) + ";\n";
  }

  // ---- json style: {"name": NAME, "arguments": ARGS} in the syntax's key order and layout ----

  std::string json_call(const std::string& name_expr, const std::string& args_expr) const {
    const JsonCallSyntax& j = t.json;
    const std::string colon = j.compact ? ":" : ": ", comma = j.compact ? "," : ", ";
    const std::string name_key = json_quote(j.name_key) + colon;
    const std::string args_key = json_quote(j.arguments_key) + colon;
    if (j.arguments_first)
      return seq({kbnf_literal("{" + args_key), args_expr, kbnf_literal(comma + name_key),
                  name_expr, kbnf_literal("}")});
    return seq({kbnf_literal("{" + name_key), name_expr, kbnf_literal(comma + args_key), args_expr,
                kbnf_literal("}")});
  }

  JsonSchemaOptions json_options() const {
    JsonSchemaOptions o = opt.schema;
    o.compact = t.json.compact;
    return o;
  }

  void json_structural() {
    JsonSchemaOptions any = json_options();
    any.strict_properties = false;
    SchemaConverter conv = take(SchemaConverter::create(
        R"({"anyOf": [{"type": "object"}, {"type": "string"}]})", any, "json_"));
    const std::string obj = take(conv.json_rule("/anyOf/0"));
    const std::string str =
        named() ? kbnf_literal(json_quote(opt.choice.name)) : take(conv.json_rule("/anyOf/1"));
    g += "call ::= " + seq({lit(t.call_open), json_call(str, obj), lit(t.call_close)}) + ";\n";
    g += conv.rules_kbnf();
  }

  void json_schema_aware() {
    std::vector<std::string> calls;
    for (size_t i = 0; i < tools.size(); ++i) {
      const ToolSpec& tool = tools[i];
      if (named() && tool.name != opt.choice.name) continue;
      const std::string prefix = "tool" + std::to_string(i) + "_";
      std::string args = kbnf_literal("{}");
      if (!tool.parameters_json.empty()) {
        SchemaConverter conv =
            take(SchemaConverter::create(tool.parameters_json, json_options(), prefix + "s_"));
        args = take(conv.json_rule(""));
        g += conv.rules_kbnf();
        warnings.insert(warnings.end(), conv.warnings().begin(), conv.warnings().end());
      }
      g += prefix + "call ::= " +
           seq({lit(t.call_open), json_call(kbnf_literal(json_quote(tool.name)), args),
                lit(t.call_close)}) +
           ";\n";
      calls.push_back(prefix + "call");
    }
    g += "call ::= " + alternatives(calls) + ";\n";
  }
};

// ---- the unified grammar ---------------------------------------------------------------------

std::string thinking_start(const ThinkingSyntax& th, ThinkingStart start) {
  if (th.open.empty()) return "start ::= first_text;\n";  // no thinking block in this syntax
  const std::string block = kbnf_regex(regex_escape(th.close), RegexKind::complement) + "? " +
                            kbnf_literal(th.close) + " after_think";
  if (start == ThinkingStart::optional)
    return "start ::= " + kbnf_literal(th.open) + " " + block + " | first_text;\n";
  return "start ::= " + seq({lit(th.forced_open_completion), block}) + ";\n";
}

// calls ::= section_open call (sep call)* section_close | call (sep call)* before_end? end
// (one call, without the repetition, when parallel calls are off).
std::string calls_rule(const ChatSyntax& s, bool parallel) {
  const ToolCallSyntax& t = s.tool_calls;
  const std::string more = !parallel ? std::string()
                           : t.call_separator.empty()
                               ? "call*"
                               : "(" + kbnf_literal(t.call_separator) + " call)*";
  if (!t.section_close.empty())
    return "calls ::= " + seq({lit(t.section_open), "call", more, kbnf_literal(t.section_close)}) +
           ";\n";
  return "calls ::= " +
         seq({lit(t.section_open), "call", more,
              t.before_end.empty() ? "" : kbnf_literal(t.before_end) + "?",
              kbnf_literal(s.end_of_turn)}) +
         ";\n";
}

// The tool choice against the list: `required` needs a tool to call (schema_aware), `named`
// one of the list's tools.
void check_choice(const std::vector<ToolSpec>& tools, const ToolGrammarOptions& opt,
                  const std::set<std::string>& names) {
  const ToolChoice& c = opt.choice;
  if (c.mode == ToolChoiceMode::named) {
    if (c.name.empty()) fail(ErrorKind::invalid_argument, "tool_choice: the tool name is empty");
    if (!names.count(c.name)) {
      std::string known;
      for (const auto& t : tools) known += (known.empty() ? "" : ", ") + t.name;
      fail(ErrorKind::invalid_argument, "tool_choice names the tool `" + c.name +
                                            "`, which is not among the tools (" +
                                            (known.empty() ? "none given" : known) + ")");
    }
    if (opt.syntax.tool_calls.style == CallStyle::xml)
      check_xml_name(opt.syntax.tool_calls.xml, opt.syntax.tool_calls.label, c.name, "tool_choice");
  }
  if (c.mode == ToolChoiceMode::required && tools.empty() &&
      opt.level == ValidationLevel::schema_aware)
    fail(ErrorKind::invalid_argument, "tool_choice `required` with no tools to call");
}

ToolGrammar build(const std::vector<ToolSpec>& tools, const ToolGrammarOptions& opt) {
  if (opt.level == ValidationLevel::none)
    fail(ErrorKind::invalid_argument, "validation level `none` builds no grammar");
  const ChatSyntax& s = opt.syntax;
  check_syntax(s, opt.thinking);
  std::set<std::string> names;
  for (size_t i = 0; i < tools.size(); ++i)
    if (!names.insert(tools[i].name).second)
      fail(ErrorKind::format,
           "duplicate tool name `" + tools[i].name + "` at /" + std::to_string(i) + "/name");
  check_choice(tools, opt, names);
  const ToolChoiceMode mode = opt.choice.mode;
  const bool forced = mode == ToolChoiceMode::required || mode == ToolChoiceMode::named;
  // schema_aware with an empty list: no call can be valid, so only text remains.
  const bool calls =
      mode != ToolChoiceMode::none && (opt.level == ValidationLevel::structural || !tools.empty());
  // Text never holds the trigger, even where no call may follow (choice none, or schema_aware
  // without tools): the output parser would read a call there.
  const std::string& trigger = s.tool_calls.trigger;
  ToolGrammar out;
  std::string& g = out.kbnf;
  g += thinking_start(s.thinking, opt.thinking);
  if (forced) {
    // No text: the call block right away, or after the thinking block and its whitespace.
    if (opt.thinking == ThinkingStart::optional) g += "first_text ::= calls;\n";
    if (!s.thinking.open.empty())
      g += "after_think ::= " + kbnf_regex("[ \\t\\r\\n]*") + " calls;\n";
  } else {
    const std::string end = opt.allow_eos_end ? " end?" : " end";
    if (opt.thinking == ThinkingStart::optional)
      g += "first_text ::= " + text_region({s.thinking.open, trigger, s.end_of_turn}) + end + ";\n";
    if (!s.thinking.open.empty())
      g += "after_think ::= " + text_region({trigger, s.end_of_turn}) + end + ";\n";
    g += "end ::= " + std::string(calls ? "calls | " : "") + kbnf_literal(s.end_of_turn) + ";\n";
  }
  if (!calls) return out;
  g += calls_rule(s, opt.choice.parallel_calls);
  Builder b{tools, opt, s.tool_calls, g, out.warnings};
  const bool structural = opt.level == ValidationLevel::structural;
  if (s.tool_calls.style == CallStyle::xml) {
    structural ? b.xml_structural() : b.xml_schema_aware();
  } else {
    structural ? b.json_structural() : b.json_schema_aware();
  }
  return out;
}

}  // namespace

const char* tool_choice_name(ToolChoiceMode mode) {
  switch (mode) {
    case ToolChoiceMode::automatic:
      return "auto";
    case ToolChoiceMode::none:
      return "none";
    case ToolChoiceMode::required:
      return "required";
    case ToolChoiceMode::named:
      return "named";
  }
  return "?";
}

Result<std::vector<ToolSpec>> parse_tool_list(std::string_view json) {
  dom::parser parser;
  auto parsed = parser.parse(json.data(), json.size(), true);
  if (parsed.error())
    return make_error(ErrorKind::format, std::string("tool list is not valid JSON: ") +
                                             simdjson::error_message(parsed.error()));
  try {
    dom::element root = parsed.value_unsafe();
    std::string base;
    if (root.type() == dom::element_type::OBJECT && !root["tools"].error()) {
      root = root["tools"].value_unsafe();
      base = "/tools";
    }
    std::vector<ToolSpec> tools;
    if (root.type() == dom::element_type::ARRAY) {
      dom::array arr = root.get_array().value_unsafe();
      size_t i = 0;
      for (auto e : arr) tools.push_back(parse_tool(e, base + "/" + std::to_string(i++)));
    } else {
      tools.push_back(parse_tool(root, base));
    }
    std::set<std::string> names;
    for (size_t i = 0; i < tools.size(); ++i)
      if (!names.insert(tools[i].name).second)
        fail(ErrorKind::format,
             "duplicate tool name `" + tools[i].name + "` at " + base + "/" + std::to_string(i));
    return tools;
  } catch (const ToolError& e) {
    return e.info;
  }
}

Result<ToolGrammar> build_tool_grammar(const std::vector<ToolSpec>& tools,
                                       const ToolGrammarOptions& options) {
  try {
    return build(tools, options);
  } catch (const ToolError& e) {
    return e.info;
  }
}

}  // namespace ai00::internal::grammar
