// Public entry points of the JSON Schema converter (json_schema.h); the work is in
// json_schema_impl.h (dispatch) and json_schema_types.cpp (per type).
#include "grammar/json_schema.h"

#include <cctype>

#include "base/utf8.h"
#include "grammar/json_schema_impl.h"
#include "grammar/kbnf_parser.h"

namespace ai00::internal::grammar {

namespace {

// Where JSON text first breaks the grammar of RFC 8259 (simdjson reports no position), as
// "byte B (line L, column C): what". Iterative (an explicit stack of open brackets), linear.
std::string locate_json_error(std::string_view t) {
  size_t i = 0;
  std::string what;
  std::string stack;  // open '{' / '['
  auto ws = [&] {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  };
  auto fail = [&](const std::string& w) {
    what = w;
    return false;
  };
  auto string = [&]() -> bool {
    ++i;  // opening quote
    while (i < t.size()) {
      const auto c = static_cast<unsigned char>(t[i]);
      if (c == '"') return ++i, true;
      if (c < 0x20) return fail("a control character inside a string");
      if (c == '\\') {
        if (++i >= t.size()) break;
        if (t[i] == 'u') {
          for (int k = 1; k <= 4; ++k)
            if (i + k >= t.size() || !std::isxdigit(static_cast<unsigned char>(t[i + k])))
              return i += k, fail("a \\u escape needs four hex digits");
          i += 5;
        } else if (std::string_view("\"\\/bfnrt").find(t[i]) != std::string_view::npos) {
          ++i;
        } else {
          return fail("an invalid escape in a string");
        }
        continue;
      }
      uint32_t cp = 0;
      const size_t n = utf8::decode_one(t.substr(i), &cp);
      if (n == 0) return fail("invalid UTF-8 in a string");
      i += n;
    }
    return fail("an unterminated string");
  };
  auto number = [&]() -> bool {
    auto digits = [&] {
      const size_t s = i;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
      return i > s;
    };
    if (t[i] == '-') ++i;
    if (i < t.size() && t[i] == '0') {
      ++i;
    } else if (!digits()) {
      return fail("a malformed number");
    }
    if (i < t.size() && t[i] == '.' && (++i, !digits())) return fail("a malformed number");
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
      ++i;
      if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
      if (!digits()) return fail("a malformed number");
    }
    return true;
  };
  // value: one scalar, or an opening bracket (the loop below continues the container).
  auto value = [&]() -> bool {
    ws();
    if (i >= t.size()) return fail("the text ends where a value is expected");
    const char c = t[i];
    if (c == '{' || c == '[') {
      stack.push_back(c);
      ++i;
      return true;
    }
    if (c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    for (std::string_view word : {"true", "false", "null"})
      if (t.substr(i, word.size()) == word) return i += word.size(), true;
    return fail(std::string("an unexpected ") +
                (c < 0x20 || c > 0x7e ? "byte" : "character `" + std::string(1, c) + "`"));
  };
  // key ':' (the caller stands after '{' or ',').
  auto key = [&]() -> bool {
    ws();
    if (i >= t.size() || t[i] != '"') return fail("expected a string key");
    if (!string()) return false;
    ws();
    if (i >= t.size() || t[i] != ':') return fail("expected `:` after a key");
    ++i;
    return true;
  };
  bool ok = true;
  bool need_value = true;  // a value is due (start, after ':' or after ',' in an array)
  while (ok) {
    if (need_value) {
      const size_t depth = stack.size();
      if (!(ok = value())) break;
      need_value = false;
      if (stack.size() > depth) {  // just opened a container
        ws();
        const char close = stack.back() == '{' ? '}' : ']';
        if (i < t.size() && t[i] == close) {
          ++i;
          stack.pop_back();
        } else if (stack.back() == '{') {
          if (!(ok = key())) break;
          need_value = true;
        } else {
          need_value = true;
        }
        continue;
      }
    }
    ws();
    if (stack.empty()) {
      if (i < t.size()) ok = fail("text after the JSON value");
      break;
    }
    if (i >= t.size()) {
      ok = fail("the text ends inside an unclosed `" + std::string(1, stack.back()) + "`");
      break;
    }
    const char close = stack.back() == '{' ? '}' : ']';
    if (t[i] == close) {
      ++i;
      stack.pop_back();
    } else if (t[i] == ',') {
      ++i;
      if (stack.back() == '{' && !(ok = key())) break;
      need_value = true;
    } else {
      ok = fail(std::string("expected `,` or `") + close + "`");
    }
  }
  if (ok) return "";
  size_t line = 1, col = 1;
  for (size_t k = 0; k < i && k < t.size(); ++k) {
    if (t[k] == '\n') {
      ++line;
      col = 1;
    } else if ((static_cast<unsigned char>(t[k]) & 0xC0) != 0x80) {
      ++col;  // columns count characters
    }
  }
  return "byte " + std::to_string(i) + " (line " + std::to_string(line) + ", column " +
         std::to_string(col) + "): " + what;
}

}  // namespace

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
  if (parsed.error()) {
    const std::string where = locate_json_error(schema_json);
    return make_error(ErrorKind::grammar, std::string("JSON Schema is not valid JSON") +
                                              (where.empty() ? "" : " at " + where) + " (" +
                                              simdjson::error_message(parsed.error()) + ")");
  }
  impl->root = parsed.value_unsafe();
  return SchemaConverter(std::move(impl));
}

namespace {

// Runs one converter step, turning the internal SchemaError into a Result error.
template <typename F>
auto guarded(const SchemaConverter::Impl& impl, F&& f) -> Result<decltype(f())> {
  try {
    return f();
  } catch (const SchemaError& e) {
    return make_error(ErrorKind::grammar, impl.humanize(e.message));
  } catch (const Unmergeable& e) {
    return make_error(ErrorKind::grammar, impl.humanize("JSON Schema: " + e.message));
  } catch (const simdjson::simdjson_error& e) {
    return make_error(ErrorKind::grammar, std::string("JSON Schema: ") + e.what());
  }
}

}  // namespace

Result<std::string> SchemaConverter::json_rule(std::string_view pointer) {
  return guarded(*impl_, [&] {
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
  return guarded(*impl_, [&] {
    const std::string p(pointer);
    return impl_->rule_for(p, Mode::raw, std::string(terminator), impl_->hint_for(p));
  });
}

Result<ObjectShape> SchemaConverter::object_shape(std::string_view pointer) {
  return guarded(*impl_, [&] {
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
      if (kKnownUnsupported.count(f.key))
        impl_->unsupported("unsupported JSON Schema keyword `" + std::string(f.key) + "`",
                           p + "/" + pointer_token(f.key));
      else if (!kAnnotations.count(f.key) && !kSupported.count(f.key))
        impl_->warnings.push_back("ignored unknown keyword `" + std::string(f.key) + "` at " + p +
                                  "/" + pointer_token(f.key) + " (an annotation to validators)");
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

const std::vector<std::string>& SchemaConverter::warnings() const {
  for (auto& w : impl_->warnings) w = impl_->humanize(w);
  return impl_->warnings;
}

std::string SchemaConverter::pointer_of_rule(std::string_view rule_name) const {
  for (const auto& [key, name] : impl_->memo) {
    if (name != rule_name) continue;
    if (key.rfind("json:", 0) == 0) return key.substr(5);
    if (key.rfind("raw:", 0) == 0) return key.substr(key.find(':', 4) + 1);
  }
  return "";
}

Result<JsonSchemaGrammar> json_schema_to_kbnf(std::string_view schema_json,
                                              const JsonSchemaOptions& options) {
  auto conv = SchemaConverter::create(schema_json, options, "");
  if (!conv.ok()) return conv.error();
  auto root = conv.value().json_rule("");
  if (!root.ok()) return root.error();
  JsonSchemaGrammar g;
  // JSON text allows whitespace around the value too (RFC 8259 "JSON-text = ws value ws").
  std::string ws;
  if (options.flexible_whitespace && options.outer_whitespace)
    ws = kbnf_regex("[ \\t\\n\\r]" + (options.max_whitespace == 0
                                          ? std::string("*")
                                          : "{0," + std::to_string(options.max_whitespace) + "}")) +
         " ";
  g.kbnf = "start ::= " + ws + root.value() + (ws.empty() ? "" : " " + ws) + ";\n" +
           conv.value().rules_kbnf();
  // A grammar that matches no finite text is an error here already (the engine refuses it too,
  // but `from-schema` prints the KBNF without compiling it).
  auto parsed = parse_kbnf(g.kbnf);
  if (!parsed.ok()) return parsed.error();
  const std::vector<std::string> dead = parsed.value().unproductive_rules();
  if (std::find(dead.begin(), dead.end(), "start") != dead.end()) {
    std::string where;
    for (const auto& name : dead)
      if (name != "start" && where.empty()) where = conv.value().pointer_of_rule(name);
    return make_error(ErrorKind::grammar,
                      "JSON Schema accepts no finite JSON value: the schema at " +
                          (where.empty() ? std::string("/") : where) +
                          " can only be completed through itself (a `$ref` cycle without a "
                          "way out)");
  }
  g.warnings = conv.value().warnings();
  return g;
}

}  // namespace ai00::internal::grammar
