// Tool lists and the unified tool-call grammars of ai00 v1 and OpenChatML (tool_grammar.h).
#include "grammar/tool_grammar.h"

#include <simdjson.h>

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

// ---- markers ---------------------------------------------------------------------------------

struct Markers {
  std::string think_open, think_close, stop, call_open;
};

Markers markers_of(ToolFormat f) {
  if (f == ToolFormat::openchatml)
    return {"<|start_reason|>", "<|end_reason|>", "<|im_end|>", "<|function_call|>"};
  return {"<think>", "</think>", "</ai00:assistant>", "<ai00:function_calls>"};
}

// #ex'a|b|…'? : one text region that stops before any of the markers.
std::string text_region(const std::vector<std::string>& stops) {
  std::string re;
  for (size_t i = 0; i < stops.size(); ++i) re += (i ? "|" : "") + regex_escape(stops[i]);
  return kbnf_regex(re, RegexKind::complement) + "?";
}

// ai00 v1 attribute values (tool and parameter names) sit between `name="` and `">`.
void check_xml_name(const std::string& name, const std::string& ptr) {
  for (unsigned char c : name)
    if (c == '"' || c == '<' || c == '>' || c < 0x20)
      fail(ErrorKind::format, "name `" + name +
                                  "` cannot be written in an ai00 v1 call (contains "
                                  "a quote, angle bracket or control character) at " +
                                  ptr);
}

template <typename T>
T take(Result<T> r) {
  if (!r.ok()) throw ToolError{r.error()};
  return std::move(r).value();
}

// ---- ai00 v1 ---------------------------------------------------------------------------------

const char* const kParamEnd = "</parameter>";
const char* const kXmlName = "[^\"<>\\x00-\\x1F]+";

// `value` matches the raw value together with its closing `</parameter>`.
std::string ai00_param_line(const std::string& name_expr, const std::string& value) {
  return kbnf_literal("    <parameter name=\"") + " " + name_expr + " " + kbnf_literal("\">") +
         " " + value + " " + kbnf_literal("\n");
}

std::string free_value() {
  return kbnf_regex(regex_escape(kParamEnd), RegexKind::complement) + "? " +
         kbnf_literal(kParamEnd);
}

void ai00_structural_calls(std::string& g) {
  g += "invoke ::= " + kbnf_literal("  <invoke name=\"") + " " + kbnf_regex(kXmlName) + " " +
       kbnf_literal("\">\n") + " param* " + kbnf_literal("  </invoke>\n") + ";\n";
  g += "param ::= " + ai00_param_line(kbnf_regex(kXmlName), free_value()) + ";\n";
}

void ai00_schema_calls(const std::vector<ToolSpec>& tools, const ToolGrammarOptions& opt,
                       std::string& g, std::vector<std::string>& warnings) {
  std::vector<std::string> invokes;
  for (size_t i = 0; i < tools.size(); ++i) {
    const ToolSpec& t = tools[i];
    const std::string ptr = "/" + std::to_string(i);
    check_xml_name(t.name, ptr + "/name");
    const std::string prefix = "tool" + std::to_string(i) + "_";
    std::string params;
    if (!t.parameters_json.empty()) {
      SchemaConverter conv =
          take(SchemaConverter::create(t.parameters_json, opt.schema, prefix + "s_"));
      const ObjectShape shape = take(conv.object_shape(""));
      for (size_t k = 0; k < shape.properties.size(); ++k) {
        const SchemaProperty& p = shape.properties[k];
        check_xml_name(p.name, ptr + "/parameters" + p.pointer);
        const std::string value = take(conv.raw_rule(p.pointer, kParamEnd));
        const std::string rule = prefix + "p" + std::to_string(k);
        g += rule + " ::= " + ai00_param_line(kbnf_literal(p.name), value) + ";\n";
        params += " " + rule + (p.required ? "" : "?");
      }
      if (shape.additional) {
        const std::string value = shape.additional_pointer.empty()
                                      ? free_value()
                                      : take(conv.raw_rule(shape.additional_pointer, kParamEnd));
        g += prefix + "extra ::= " + ai00_param_line(kbnf_regex(kXmlName), value) + ";\n";
        params += " " + prefix + "extra*";
      }
      g += conv.rules_kbnf();
      warnings.insert(warnings.end(), conv.warnings().begin(), conv.warnings().end());
    }
    g += prefix + "invoke ::= " + kbnf_literal("  <invoke name=\"" + t.name + "\">\n") + params +
         " " + kbnf_literal("  </invoke>\n") + ";\n";
    invokes.push_back(prefix + "invoke");
  }
  std::string alts;
  for (size_t i = 0; i < invokes.size(); ++i) alts += (i ? " | " : "") + invokes[i];
  g += "invoke ::= " + alts + ";\n";
}

// ---- OpenChatML ------------------------------------------------------------------------------

void openchatml_calls(const std::vector<ToolSpec>& tools, const ToolGrammarOptions& opt,
                      std::string& g, std::vector<std::string>& warnings) {
  const std::string open = kbnf_literal("{\"arguments\": ");
  if (opt.level == ValidationLevel::structural) {
    JsonSchemaOptions any = opt.schema;
    any.strict_properties = false;
    SchemaConverter conv = take(SchemaConverter::create(
        R"({"anyOf": [{"type": "object"}, {"type": "string"}]})", any, "json_"));
    const std::string obj = take(conv.json_rule("/anyOf/0"));
    const std::string str = take(conv.json_rule("/anyOf/1"));
    g += "call_json ::= " + open + " " + obj + " " + kbnf_literal(", \"name\": ") + " " + str +
         " " + kbnf_literal("}") + ";\n";
    g += conv.rules_kbnf();
    return;
  }
  std::vector<std::string> calls;
  for (size_t i = 0; i < tools.size(); ++i) {
    const ToolSpec& t = tools[i];
    const std::string prefix = "tool" + std::to_string(i) + "_";
    std::string args = kbnf_literal("{}");
    if (!t.parameters_json.empty()) {
      SchemaConverter conv =
          take(SchemaConverter::create(t.parameters_json, opt.schema, prefix + "s_"));
      args = take(conv.json_rule(""));
      g += conv.rules_kbnf();
      warnings.insert(warnings.end(), conv.warnings().begin(), conv.warnings().end());
    }
    // Seed 002 key order: arguments first, so each tool is its own alternative and the Earley
    // matcher keeps them all alive until the name decides.
    g += prefix + "call ::= " + open + " " + args + " " +
         kbnf_literal(", \"name\": " + json_quote(t.name) + "}") + ";\n";
    calls.push_back(prefix + "call");
  }
  std::string alts;
  for (size_t i = 0; i < calls.size(); ++i) alts += (i ? " | " : "") + calls[i];
  g += "call_json ::= " + alts + ";\n";
}

// ---- the unified grammar ---------------------------------------------------------------------

std::string thinking_start(const Markers& m, ThinkingStart start) {
  const std::string block = kbnf_regex(regex_escape(m.think_close), RegexKind::complement) + "? " +
                            kbnf_literal(m.think_close) + " after_think";
  switch (start) {
    case ThinkingStart::optional:
      return "start ::= " + kbnf_literal(m.think_open) + " " + block + " | first_text;\n";
    case ThinkingStart::forced_open:
      return "start ::= " + block + ";\n";
    case ThinkingStart::forced_open_goose:
      return "start ::= " + kbnf_literal(m.think_open.substr(m.think_open.size() - 1)) + " " +
             block + ";\n";
  }
  return "";
}

ToolGrammar build(const std::vector<ToolSpec>& tools, const ToolGrammarOptions& opt) {
  if (opt.level == ValidationLevel::none)
    fail(ErrorKind::invalid_argument, "validation level `none` builds no grammar");
  std::set<std::string> names;
  for (size_t i = 0; i < tools.size(); ++i)
    if (!names.insert(tools[i].name).second)
      fail(ErrorKind::format,
           "duplicate tool name `" + tools[i].name + "` at /" + std::to_string(i) + "/name");
  const Markers m = markers_of(opt.format);
  // schema_aware with an empty list: no call can be valid, so only text remains.
  const bool calls = opt.level == ValidationLevel::structural || !tools.empty();
  ToolGrammar out;
  std::string& g = out.kbnf;
  g += thinking_start(m, opt.thinking);
  std::vector<std::string> after = {m.stop}, first = {m.think_open, m.stop};
  if (calls) after.insert(after.begin(), m.call_open), first.insert(first.begin() + 1, m.call_open);
  const std::string end = opt.allow_eos_end ? " end?" : " end";
  if (opt.thinking == ThinkingStart::optional)
    g += "first_text ::= " + text_region(first) + end + ";\n";
  g += "after_think ::= " + text_region(after) + end + ";\n";
  g += "end ::= " + std::string(calls ? "calls | " : "") + kbnf_literal(m.stop) + ";\n";
  if (!calls) return out;
  if (opt.format == ToolFormat::ai00_v1) {
    g += "calls ::= " + kbnf_literal(m.call_open + "\n") + " invoke+ " +
         kbnf_literal("</ai00:function_calls>") + ";\n";
    if (opt.level == ValidationLevel::structural) {
      ai00_structural_calls(g);
    } else {
      ai00_schema_calls(tools, opt, g, out.warnings);
    }
  } else {
    g += "calls ::= call (" + kbnf_literal("\n") + " call)* " + kbnf_literal("\n") + "? " +
         kbnf_literal(m.stop) + ";\n";
    g += "call ::= " + kbnf_literal(m.call_open + "\n") + " call_json;\n";
    openchatml_calls(tools, opt, g, out.warnings);
  }
  return out;
}

}  // namespace

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

Result<ToolFormat> parse_tool_format(std::string_view name) {
  if (name == "ai00-v1") return ToolFormat::ai00_v1;
  if (name == "openchatml") return ToolFormat::openchatml;
  return make_error(ErrorKind::invalid_argument, "unknown tool format `" + std::string(name) +
                                                     "` (expected ai00-v1 or openchatml)");
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
