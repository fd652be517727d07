// Public entry points of the JSON Schema converter (json_schema.h); the work is in
// json_schema_impl.h (dispatch) and json_schema_types.cpp (per type).
#include "grammar/json_schema.h"

#include "grammar/json_schema_impl.h"

namespace ai00::internal::grammar {

SchemaConverter::SchemaConverter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SchemaConverter::SchemaConverter(SchemaConverter&&) noexcept = default;
SchemaConverter& SchemaConverter::operator=(SchemaConverter&&) noexcept = default;
SchemaConverter::~SchemaConverter() = default;

Result<SchemaConverter> SchemaConverter::create(std::string_view schema_json,
                                                JsonSchemaOptions options,
                                                std::string rule_prefix) {
  auto impl = std::make_unique<Impl>();
  impl->opt = options;
  impl->prefix = std::move(rule_prefix);
  auto parsed = impl->parser.parse(schema_json.data(), schema_json.size(), true);
  if (parsed.error())
    return make_error(ErrorKind::grammar, std::string("JSON Schema is not valid JSON: ") +
                                              simdjson::error_message(parsed.error()));
  impl->root = parsed.value_unsafe();
  return SchemaConverter(std::move(impl));
}

namespace {

// Runs one converter step, turning the internal SchemaError into a Result error.
template <typename F>
auto guarded(F&& f) -> Result<decltype(f())> {
  try {
    return f();
  } catch (const SchemaError& e) {
    return make_error(ErrorKind::grammar, e.message);
  } catch (const simdjson::simdjson_error& e) {
    return make_error(ErrorKind::grammar, std::string("JSON Schema: ") + e.what());
  }
}

}  // namespace

Result<std::string> SchemaConverter::json_rule(std::string_view pointer) {
  return guarded([&] {
    const std::string p(pointer);
    return impl_->rule_for(p, Mode::json, "", impl_->hint_for(p));
  });
}

Result<std::string> SchemaConverter::raw_rule(std::string_view pointer,
                                              std::string_view terminator) {
  if (terminator.empty() || terminator[0] != '<' ||
      terminator.find('<', 1) != std::string_view::npos)
    return make_error(ErrorKind::invalid_argument,
                      "raw_rule: the terminator must start with its only '<'");
  return guarded([&] {
    const std::string p(pointer);
    return impl_->rule_for(p, Mode::raw, std::string(terminator), impl_->hint_for(p));
  });
}

Result<ObjectShape> SchemaConverter::object_shape(std::string_view pointer) {
  return guarded([&] {
    std::string p(pointer);
    dom::element s = impl_->resolve(p, "object schema");
    // Follow $ref chains (bounded: a cycle of pure references describes no object).
    for (int hops = 0; s.type() == dom::element_type::OBJECT && !s["$ref"].error(); ++hops) {
      std::string_view ref;
      if (s["$ref"].get_string().get(ref) || ref.empty() || ref[0] != '#' || hops > 32)
        throw SchemaError{"unresolvable `$ref` at " + p + "/$ref"};
      p = std::string(ref.substr(1));
      s = impl_->resolve(p, "$ref");
    }
    if (s.type() == dom::element_type::BOOL && s.get_bool().value_unsafe()) {
      ObjectShape any;
      any.additional = true;
      return any;
    }
    if (s.type() != dom::element_type::OBJECT)
      throw SchemaError{"expected an object schema at " + show(p)};
    dom::object o = s.get_object().value_unsafe();
    for (auto f : o)
      if (!kAnnotations.count(f.key) && !kSupported.count(f.key))
        impl_->unsupported("unsupported JSON Schema keyword `" + std::string(f.key) + "`",
                           p + "/" + pointer_token(f.key));
    auto declared = impl_->declared_types(o, p);
    if (!declared.empty() &&
        std::find(declared.begin(), declared.end(), "object") == declared.end())
      throw SchemaError{"expected `type: object` at " + show(p) + "/type"};
    for (const char* kw : {"anyOf", "oneOf", "enum", "const"})
      if (!o[kw].error())
        impl_->unsupported("`" + std::string(kw) + "` on a parameter object", p + "/" + kw);
    return impl_->shape_of(o, p);
  });
}

std::string SchemaConverter::rules_kbnf() const {
  std::string out;
  for (const auto& line : impl_->rule_lines) out += line + "\n";
  return out;
}

const std::vector<std::string>& SchemaConverter::warnings() const { return impl_->warnings; }

Result<JsonSchemaGrammar> json_schema_to_kbnf(std::string_view schema_json,
                                              const JsonSchemaOptions& options) {
  auto conv = SchemaConverter::create(schema_json, options, "");
  if (!conv.ok()) return conv.error();
  auto root = conv.value().json_rule("");
  if (!root.ok()) return root.error();
  JsonSchemaGrammar g;
  g.kbnf = "start ::= " + root.value() + ";\n" + conv.value().rules_kbnf();
  g.warnings = conv.value().warnings();
  return g;
}

}  // namespace ai00::internal::grammar
