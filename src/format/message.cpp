// Message model: JSON import with JSON-pointer errors, and export (see message.h).
#include "format/message.h"

namespace ai00::internal::format {

const char* role_name(Role r) {
  switch (r) {
    case Role::system:
      return "system";
    case Role::user:
      return "user";
    case Role::assistant:
      return "assistant";
    case Role::tool:
      return "tool";
  }
  return "user";
}

const char* part_type_name(PartType t) {
  switch (t) {
    case PartType::text:
      return "text";
    case PartType::value:
      return "value";
    case PartType::function:
      return "function";
    case PartType::image:
      return "image";
  }
  return "text";
}

std::string Message::text() const {
  std::string out;
  for (const auto& p : contents)
    if (p.type == PartType::text) out += p.text;
  return out;
}

bool operator==(const Message& a, const Message& b) {
  return a.role == b.role && a.contents == b.contents && a.reasoning == b.reasoning &&
         a.tool_calls == b.tool_calls && a.tool_call_id == b.tool_call_id && a.name == b.name &&
         a.id == b.id;
}

namespace {

std::string where(const std::string& pointer) { return pointer.empty() ? "(root)" : pointer; }

ErrorInfo field_error(const std::string& pointer, const std::string& what) {
  return make_error(ErrorKind::format, where(pointer) + ": " + what);
}

ErrorInfo type_error(const std::string& pointer, json::Type expected, const json::Value& got) {
  return field_error(pointer, std::string("expected ") + json::type_phrase(expected) + ", got " +
                                  json::type_phrase(got.type()));
}

// Reads an optional string member; null counts as absent. Returns false (and sets err) on a
// member of another type.
bool opt_string(const json::Value& obj, std::string_view key, const std::string& pointer,
                std::optional<std::string>& out, std::optional<ErrorInfo>& err) {
  const json::Value* v = obj.find(key);
  if (!v || v->is_null()) return true;
  if (!v->is_string()) {
    err = type_error(json::pointer_append(pointer, key), json::Type::string, *v);
    return false;
  }
  out = v->as_string();
  return true;
}

// Reads a seed field and its alias; both present with different values is an error.
bool opt_string_alias(const json::Value& obj, std::string_view key, std::string_view alias,
                      const std::string& pointer, std::optional<std::string>& out,
                      std::optional<ErrorInfo>& err) {
  std::optional<std::string> a, b;
  if (!opt_string(obj, key, pointer, a, err) || !opt_string(obj, alias, pointer, b, err))
    return false;
  if (a && b && *a != *b) {
    err = field_error(json::pointer_append(pointer, alias),
                      "conflicts with " + json::pointer_append(pointer, key));
    return false;
  }
  out = a ? a : b;
  return true;
}

Result<Part> part_from_json(const json::Value& v, const std::string& pointer) {
  if (!v.is_object()) return type_error(pointer, json::Type::object, v);
  const json::Value* type = v.find("type");
  const std::string tptr = json::pointer_append(pointer, "type");
  if (!type) return field_error(tptr, "missing (text, value, function or image)");
  if (!type->is_string()) return type_error(tptr, json::Type::string, *type);
  const std::string& t = type->as_string();
  auto member = [&](const char* key, bool must_be_object) -> Result<json::Value> {
    const json::Value* m = v.find(key);
    const std::string mptr = json::pointer_append(pointer, key);
    if (!m) return field_error(mptr, std::string("missing in a ") + t + " part");
    if (must_be_object && !m->is_object()) return type_error(mptr, json::Type::object, *m);
    return *m;
  };
  if (t == "text") {
    const json::Value* text = v.find("text");
    const std::string xptr = json::pointer_append(pointer, "text");
    if (!text) return field_error(xptr, "missing in a text part");
    if (!text->is_string()) return type_error(xptr, json::Type::string, *text);
    return Part::make_text(text->as_string());
  }
  PartType pt;
  Result<json::Value> data = json::Value();
  if (t == "value") {
    pt = PartType::value;
    data = member("value", false);
  } else if (t == "function") {
    pt = PartType::function;
    data = member("function", true);
  } else if (t == "image") {
    pt = PartType::image;
    data = member("image", false);
  } else {
    return field_error(tptr,
                       "unknown part type \"" + t + "\" (expected text, value, function or image)");
  }
  if (!data) return data.error();
  return Part{pt, {}, std::move(data).value()};
}

Result<std::vector<Part>> parts_from_json(const json::Value& v, const std::string& pointer) {
  std::vector<Part> parts;
  if (v.is_null()) return parts;
  if (v.is_string()) {
    parts.push_back(Part::make_text(v.as_string()));
    return parts;
  }
  if (!v.is_array()) return type_error(pointer, json::Type::array, v);
  const auto& a = v.as_array();
  for (size_t i = 0; i < a.size(); ++i) {
    auto p = part_from_json(a[i], json::pointer_append(pointer, i));
    if (!p) return p.error();
    parts.push_back(std::move(p).value());
  }
  return parts;
}

Result<Role> role_from_json(const json::Value& m, const std::string& pointer) {
  const json::Value* r = m.find("role");
  const std::string rptr = json::pointer_append(pointer, "role");
  if (!r) return field_error(rptr, "missing (system, user, assistant or tool)");
  if (!r->is_string()) return type_error(rptr, json::Type::string, *r);
  const std::string& s = r->as_string();
  if (s == "system") return Role::system;
  if (s == "user") return Role::user;
  if (s == "assistant") return Role::assistant;
  if (s == "tool" || s == "observation") return Role::tool;  // ai00 v0 says "observation"
  return field_error(rptr, "unknown role \"" + s + "\" (expected system, user, assistant or tool)");
}

Result<ToolCall> tool_call_from_json(const json::Value& v, const std::string& pointer) {
  if (!v.is_object()) return type_error(pointer, json::Type::object, v);
  std::optional<ErrorInfo> err;
  ToolCall call;
  if (const json::Value* t = v.find("type"); t && !t->is_null()) {
    if (!t->is_string() || t->as_string() != "function")
      return field_error(json::pointer_append(pointer, "type"), "expected \"function\"");
  }
  // The seed nests name and arguments in `function`; a flat {id, name, arguments} is accepted.
  const json::Value* fn = v.find("function");
  std::string fptr = json::pointer_append(pointer, "function");
  if (!fn) {
    fn = &v;
    fptr = pointer;
  } else if (!fn->is_object()) {
    return type_error(fptr, json::Type::object, *fn);
  }
  std::optional<std::string> id, inner_id, name;
  if (!opt_string(v, "id", pointer, id, err)) return *err;
  if (fn != &v && !opt_string(*fn, "id", fptr, inner_id, err)) return *err;
  if (id && inner_id && *id != *inner_id)
    return field_error(json::pointer_append(fptr, "id"),
                       "conflicts with " + json::pointer_append(pointer, "id"));
  call.id = id ? *id : inner_id.value_or("");
  const std::string nptr = json::pointer_append(fptr, "name");
  const json::Value* n = fn->find("name");
  if (!n) return field_error(nptr, "missing");
  if (!n->is_string()) return type_error(nptr, json::Type::string, *n);
  if (n->as_string().empty()) return field_error(nptr, "empty tool name");
  call.name = n->as_string();
  const json::Value* args = fn->find("arguments");
  if (!args || args->is_null()) {
    call.arguments = json::Value(json::Object{});
  } else if (args->is_string()) {  // OpenAI sends arguments as JSON text
    auto parsed = json::parse(args->as_string());
    if (!parsed)
      return field_error(json::pointer_append(fptr, "arguments"),
                         "a string that is not valid JSON (" + parsed.error().message + ")");
    call.arguments = std::move(parsed).value();
  } else {
    call.arguments = *args;
  }
  return call;
}

Result<std::vector<ToolCall>> tool_calls_from_json(const json::Value& m, Role role,
                                                   const std::string& pointer) {
  std::vector<ToolCall> calls;
  const json::Value* tc = m.find("tool_calls");
  const std::string tptr = json::pointer_append(pointer, "tool_calls");
  if (!tc || tc->is_null()) return calls;
  if (!tc->is_array()) return type_error(tptr, json::Type::array, *tc);
  if (role != Role::assistant && !tc->as_array().empty())
    return field_error(tptr, "only assistant messages carry tool calls");
  for (size_t i = 0; i < tc->as_array().size(); ++i) {
    auto c = tool_call_from_json(tc->as_array()[i], json::pointer_append(tptr, i));
    if (!c) return c.error();
    calls.push_back(std::move(c).value());
  }
  return calls;
}

Result<std::vector<Part>> contents_from_json(const json::Value& m, const std::string& pointer) {
  const json::Value* contents = m.find("contents");
  const json::Value* content = m.find("content");
  Result<std::vector<Part>> a = std::vector<Part>{}, b = std::vector<Part>{};
  if (contents) a = parts_from_json(*contents, json::pointer_append(pointer, "contents"));
  if (!a) return a.error();
  if (content) b = parts_from_json(*content, json::pointer_append(pointer, "content"));
  if (!b) return b.error();
  if (contents && content && !contents->is_null() && !content->is_null() && a.value() != b.value())
    return field_error(json::pointer_append(pointer, "content"),
                       "conflicts with " + json::pointer_append(pointer, "contents"));
  return contents && !contents->is_null() ? std::move(a) : std::move(b);
}

}  // namespace

Result<Message> message_from_json(const json::Value& v, const std::string& pointer) {
  if (!v.is_object()) return type_error(pointer, json::Type::object, v);
  Message m;
  auto role = role_from_json(v, pointer);
  if (!role) return role.error();
  m.role = role.value();
  auto parts = contents_from_json(v, pointer);
  if (!parts) return parts.error();
  m.contents = std::move(parts).value();
  std::optional<ErrorInfo> err;
  if (!opt_string_alias(v, "reasoning", "thinking", pointer, m.reasoning, err)) return *err;
  auto calls = tool_calls_from_json(v, m.role, pointer);
  if (!calls) return calls.error();
  m.tool_calls = std::move(calls).value();
  if (!opt_string(v, "name", pointer, m.name, err) || !opt_string(v, "id", pointer, m.id, err) ||
      !opt_string(v, "tool_call_id", pointer, m.tool_call_id, err))
    return *err;
  if (m.tool_call_id && m.role != Role::tool)
    return field_error(json::pointer_append(pointer, "tool_call_id"),
                       "only tool messages carry tool_call_id");
  if (m.role == Role::tool && !m.tool_call_id && m.id) m.tool_call_id = m.id;  // Ailoy reuses id
  return m;
}

Result<std::vector<Message>> conversation_from_json(const json::Value& v) {
  if (!v.is_array()) return type_error("", json::Type::array, v);
  std::vector<Message> out;
  for (size_t i = 0; i < v.as_array().size(); ++i) {
    auto m = message_from_json(v.as_array()[i], json::pointer_append("", i));
    if (!m) return m.error();
    out.push_back(std::move(m).value());
  }
  return out;
}

Result<std::vector<Message>> parse_conversation(std::string_view json_text) {
  auto v = json::parse(json_text);
  if (!v) return v.error();
  return conversation_from_json(v.value());
}

Result<ToolDesc> tool_from_json(const json::Value& v, const std::string& pointer) {
  if (!v.is_object()) return type_error(pointer, json::Type::object, v);
  const json::Value* obj = &v;
  std::string ptr = pointer;
  if (const json::Value* fn = v.find("function")) {  // OpenAI wrapper {type, function}
    ptr = json::pointer_append(pointer, "function");
    if (!fn->is_object()) return type_error(ptr, json::Type::object, *fn);
    obj = fn;
  }
  ToolDesc t;
  const json::Value* name = obj->find("name");
  const std::string nptr = json::pointer_append(ptr, "name");
  if (!name) return field_error(nptr, "missing");
  if (!name->is_string()) return type_error(nptr, json::Type::string, *name);
  if (name->as_string().empty()) return field_error(nptr, "empty tool name");
  t.name = name->as_string();
  std::optional<ErrorInfo> err;
  if (!opt_string(*obj, "description", ptr, t.description, err)) return *err;
  const json::Value* params = obj->find("parameters");
  const json::Value* schema = obj->find("input_schema");  // seed 000 (Anthropic style)
  if (params && schema && *params != *schema)
    return field_error(json::pointer_append(ptr, "input_schema"),
                       "conflicts with " + json::pointer_append(ptr, "parameters"));
  const json::Value* p = params ? params : schema;
  const std::string pptr = json::pointer_append(ptr, params ? "parameters" : "input_schema");
  if (p && !p->is_object()) return type_error(pptr, json::Type::object, *p);
  t.parameters = p ? *p : json::Value(json::Object{{"type", json::Value("object")}});
  if (const json::Value* r = obj->find("returns"); r && !r->is_null()) {
    if (!r->is_object())
      return type_error(json::pointer_append(ptr, "returns"), json::Type::object, *r);
    t.returns = *r;
  }
  return t;
}

Result<std::vector<ToolDesc>> tools_from_json(const json::Value& v) {
  if (!v.is_array()) return type_error("", json::Type::array, v);
  std::vector<ToolDesc> out;
  for (size_t i = 0; i < v.as_array().size(); ++i) {
    auto t = tool_from_json(v.as_array()[i], json::pointer_append("", i));
    if (!t) return t.error();
    for (const auto& prev : out)
      if (prev.name == t.value().name)
        return field_error(json::pointer_append(json::pointer_append("", i), "name"),
                           "duplicate tool name \"" + prev.name + "\"");
    out.push_back(std::move(t).value());
  }
  return out;
}

Result<std::vector<ToolDesc>> parse_tools(std::string_view json_text) {
  auto v = json::parse(json_text);
  if (!v) return v.error();
  return tools_from_json(v.value());
}

json::Value to_json(const Message& m) {
  json::Value o(json::Object{});
  o.set("role", role_name(m.role));
  if (m.id) o.set("id", *m.id);
  if (m.tool_call_id) o.set("tool_call_id", *m.tool_call_id);
  if (m.name) o.set("name", *m.name);
  json::Value parts(json::Array{});
  for (const auto& p : m.contents) {
    json::Value jp(json::Object{});
    jp.set("type", part_type_name(p.type));
    if (p.type == PartType::text) {
      jp.set("text", p.text);
    } else {
      jp.set(part_type_name(p.type), p.data);
    }
    parts.push_back(std::move(jp));
  }
  o.set("contents", std::move(parts));
  if (m.reasoning) o.set("reasoning", *m.reasoning);
  if (!m.tool_calls.empty()) {
    json::Value calls(json::Array{});
    for (const auto& c : m.tool_calls) {
      json::Value fn(json::Object{});
      fn.set("name", c.name);
      fn.set("arguments", c.arguments);
      calls.push_back(json::Value(json::Object{
          {"id", json::Value(c.id)}, {"type", json::Value("function")}, {"function", fn}}));
    }
    o.set("tool_calls", std::move(calls));
  }
  return o;
}

json::Value to_json(const std::vector<Message>& conversation) {
  json::Value a(json::Array{});
  for (const auto& m : conversation) a.push_back(to_json(m));
  return a;
}

json::Value to_json(const ToolDesc& t) {
  json::Value o(json::Object{});
  o.set("name", t.name);
  if (t.description) o.set("description", *t.description);
  o.set("parameters", t.parameters);
  if (t.returns) o.set("returns", *t.returns);
  return o;
}

}  // namespace ai00::internal::format
