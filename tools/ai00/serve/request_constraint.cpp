// The constraint fields of a chat request: bnf_validation, grammar (alias bnf_schema),
// response_format and tool_choice (docs/server.md "Constraints").
#include <string>

#include "api_error.h"
#include "request_fields.h"

namespace ai00::serve {
namespace {

void set_constraint(GenerationRequest& out, Constraint c) {
  if (out.constraint.kind != ConstraintKind::none)
    throw field_error(c.param, "conflicts with " + out.constraint.param +
                                   ": a request takes one grammar, schema or forced tool call");
  out.constraint = std::move(c);
}

ai00_grammar_mode validation_mode(ObjectReader& r) {
  const auto v = r.string("bnf_validation");
  if (!v) return AI00_GRAMMAR_AUTOMATIC;  // seed 003: structural when tools or thinking
  if (*v == "none") return AI00_GRAMMAR_NONE;
  if (*v == "structural") return AI00_GRAMMAR_STRUCTURAL;
  if (*v == "schema_aware") return AI00_GRAMMAR_SCHEMA_AWARE;
  throw field_error(r.at("bnf_validation"),
                    "expected \"none\", \"structural\" or \"schema_aware\", got \"" + *v + "\"");
}

void read_grammar(ObjectReader& r, GenerationRequest& out) {
  for (const char* key : {"grammar", "bnf_schema"}) {
    if (auto g = r.string(key)) {
      if (g->empty()) throw field_error(r.at(key), "must not be empty");
      set_constraint(out, {ConstraintKind::kbnf, *g, r.at(key)});
    }
  }
}

void read_response_format(ObjectReader& r, GenerationRequest& out) {
  const Json* rf = r.find("response_format");
  if (rf == nullptr) return;
  ObjectReader f(*rf, r.at("response_format"));
  const std::string type = f.string("type").value_or("");
  if (type == "json_object") {
    set_constraint(out, {ConstraintKind::json_schema, "{\"type\":\"object\"}", f.pointer()});
  } else if (type == "json_schema") {
    ObjectReader js(f.require("json_schema"), f.at("json_schema"));
    js.string("name");
    js.string("description");
    js.boolean("strict");
    const Json& schema = js.require("schema");
    if (!schema.is_object() && !schema.is_boolean())
      throw field_error(js.at("schema"), "expected an object, got " + json_type_name(schema));
    set_constraint(out, {ConstraintKind::json_schema, schema.dump(), js.at("schema")});
    js.reject_unknown();
  } else if (type != "text") {
    throw field_error(
        f.at("type"),
        "expected \"text\", \"json_object\" or \"json_schema\", got \"" + type + "\"");
  }
  f.reject_unknown();
}

bool tool_listed(const std::string& tools_json, const std::string& name) {
  if (tools_json.empty()) return false;
  for (const Json& t : Json::parse(tools_json))
    if (t.value("name", "") == name) return true;
  return false;
}

// tool_choice into options.tool_choice / tool_choice_name; a forced call is also the request's
// constraint (one per request).
void read_tool_choice(ObjectReader& r, GenerationRequest& out) {
  const Json* tc = r.find("tool_choice");
  if (tc == nullptr) return;
  const std::string at = r.at("tool_choice");
  if (tc->is_string()) {
    const std::string v = tc->get<std::string>();
    if (v == "auto") return;
    if (v == "none") {
      out.options.tool_choice = AI00_TOOL_CHOICE_NONE;
      return;
    }
    if (v != "required")
      throw field_error(
          at, "expected \"auto\", \"none\", \"required\" or a function, got \"" + v + "\"");
    if (out.tools_json.empty()) throw field_error(at, "\"required\" needs /tools");
    set_constraint(out, {ConstraintKind::tool_call, "", at});
    out.options.tool_choice = AI00_TOOL_CHOICE_REQUIRED;
    return;
  }
  ObjectReader c(*tc, at);
  if (c.string("type").value_or("") != "function")
    throw field_error(c.at("type"), "expected \"function\"");
  ObjectReader f(c.require("function"), c.at("function"));
  const std::string name = f.string("name").value_or("");
  if (!tool_listed(out.tools_json, name))
    throw field_error(f.at("name"), "names no function of /tools: \"" + name + "\"");
  f.reject_unknown();
  c.reject_unknown();
  set_constraint(out, {ConstraintKind::tool_call, "", at});
  out.options.tool_choice = AI00_TOOL_CHOICE_NAMED;
  out.options.tool_choice_name = name;
}

// Where the library's tool grammar shapes the reply (tools given, no custom grammar or schema,
// bnf_validation not "none"), tool_choice none and parallel_tool_calls go to the library;
// elsewhere tool_choice none leaves the tools out of the prompt (no call can be made or parsed)
// and parallel_tool_calls is accepted and ignored. A forced call needs the tool grammar and is
// validated by the tools' schemas unless bnf_validation says otherwise.
void apply_tool_choice(GenerationRequest& out) {
  ai00::GenerateOptions& o = out.options;
  const bool tool_grammar = !out.tools_json.empty() && o.grammar_mode != AI00_GRAMMAR_NONE &&
                            (out.constraint.kind == ConstraintKind::none ||
                             out.constraint.kind == ConstraintKind::tool_call);
  if (out.constraint.kind == ConstraintKind::tool_call) {
    if (o.grammar_mode == AI00_GRAMMAR_NONE)
      throw field_error(out.constraint.param,
                        "a forced tool call needs a grammar, but /bnf_validation is \"none\"");
    if (o.grammar_mode == AI00_GRAMMAR_AUTOMATIC) o.grammar_mode = AI00_GRAMMAR_SCHEMA_AWARE;
  }
  if (!tool_grammar) {
    if (o.tool_choice == AI00_TOOL_CHOICE_NONE) out.tools_json.clear();
    o.tool_choice = AI00_TOOL_CHOICE_AUTO;
    return;
  }
  o.parallel_tool_calls = out.parallel_tool_calls;
}

}  // namespace

void read_constraint(ObjectReader& r, GenerationRequest& out) {
  out.options.grammar_mode = validation_mode(r);
  read_grammar(r, out);
  read_response_format(r, out);
  read_tool_choice(r, out);
  apply_tool_choice(out);
}

}  // namespace ai00::serve
