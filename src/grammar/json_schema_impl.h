// Private to the JSON Schema converter (json_schema.cpp, json_schema_types.cpp): the converter's
// state and its schema dispatch. Each sub-schema becomes one rule; terminals are built by
// schema_regex.h and written through kbnf_writer.h. Errors inside are thrown as SchemaError and
// turned into Result by the public entry points.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "base/json_escape.h"
#include "base/limits.h"
#include "grammar/json_schema.h"
#include "grammar/kbnf_writer.h"
#include "grammar/schema_regex.h"

namespace ai00::internal::grammar {

namespace dom = simdjson::dom;

namespace schema_detail {

struct SchemaError {
  std::string message;
};

enum class Mode { json, raw };

inline const std::set<std::string_view> kAnnotations = {
    "title", "description", "default",  "examples",  "$comment", "$schema",
    "$id",   "deprecated",  "readOnly", "writeOnly", "$defs",    "definitions"};
inline const std::set<std::string_view> kSupported = {"type",
                                                      "properties",
                                                      "required",
                                                      "additionalProperties",
                                                      "enum",
                                                      "const",
                                                      "items",
                                                      "prefixItems",
                                                      "minItems",
                                                      "maxItems",
                                                      "anyOf",
                                                      "oneOf",
                                                      "$ref",
                                                      "minLength",
                                                      "maxLength",
                                                      "pattern",
                                                      "format",
                                                      "minimum",
                                                      "maximum",
                                                      "exclusiveMinimum",
                                                      "exclusiveMaximum"};
inline const char* const kTypes[] = {"null",   "boolean", "object", "array",
                                     "string", "number",  "integer"};

inline std::string pointer_token(std::string_view key) {
  std::string out;
  append_json_pointer_token(out, key);
  return out;
}

inline std::string show(const std::string& pointer) { return pointer.empty() ? "/" : pointer; }

}  // namespace schema_detail
using namespace schema_detail;  // NOLINT: private header of two files

struct SchemaConverter::Impl {
  JsonSchemaOptions opt;
  std::string prefix;
  dom::parser parser;
  dom::element root;
  std::vector<std::string> rule_lines;
  std::map<std::string, std::string> memo;  // mode + pointer -> rule name
  std::set<std::string> names;
  std::vector<std::string> warnings;
  int depth = 0;  // nesting of rule_for calls

  // ---- punctuation (canonical or with bounded whitespace folded in) ------------------------
  std::string punct(const char* canonical, const char* ch, bool ws_before, bool ws_after) const {
    if (!opt.flexible_whitespace) return kbnf_literal(opt.compact ? ch : canonical);
    const std::string ws = "[ \\t\\n]{0," + std::to_string(opt.max_whitespace) + "}";
    return kbnf_regex((ws_before ? ws : "") + regex_escape(ch) + (ws_after ? ws : ""));
  }
  std::string comma() const { return punct(", ", ",", true, true); }
  std::string colon() const { return punct(": ", ":", true, true); }
  std::string lbrace() const { return punct("{", "{", false, true); }
  std::string rbrace() const { return punct("}", "}", true, false); }
  std::string lbrack() const { return punct("[", "[", false, true); }
  std::string rbrack() const { return punct("]", "]", true, false); }
  std::string empty_obj() const {
    if (!opt.flexible_whitespace) return kbnf_literal("{}");
    return kbnf_regex("\\{[ \\t\\n]{0," + std::to_string(opt.max_whitespace) + "}\\}");
  }
  std::string empty_arr() const {
    if (!opt.flexible_whitespace) return kbnf_literal("[]");
    return kbnf_regex("\\[[ \\t\\n]{0," + std::to_string(opt.max_whitespace) + "}\\]");
  }

  // ---- errors ------------------------------------------------------------------------------
  // An unsupported keyword: an error, or a warning in lenient mode (then the caller ignores it).
  void unsupported(const std::string& what, const std::string& pointer) {
    const std::string msg = what + " at " + show(pointer);
    if (!opt.lenient) throw SchemaError{msg};
    warnings.push_back("ignored " + msg);
  }

  // ---- names and rules ---------------------------------------------------------------------
  std::string new_name(const std::string& hint) {
    std::string base = prefix + kbnf_identifier(hint);
    if (base == "start") base += "_";
    std::string name = base;
    for (int k = 2; names.count(name); ++k) name = base + "_" + std::to_string(k);
    names.insert(name);
    return name;
  }
  std::string add_rule(const std::string& hint, const std::string& body) {
    const std::string name = new_name(hint);
    rule_lines.push_back(name + " ::= " + body + ";");
    return name;
  }
  // A helper rule shared by every schema of this converter (memoised under `key`).
  std::string shared_rule(const std::string& key, const std::string& hint,
                          const std::string& body) {
    auto it = memo.find("shared:" + key);
    if (it != memo.end()) return it->second;
    const std::string name = add_rule(hint, body);
    memo["shared:" + key] = name;
    return name;
  }

  // ---- JSON navigation ---------------------------------------------------------------------
  dom::element resolve(std::string_view pointer, const std::string& context) {
    if (pointer.empty()) return root;
    auto r = root.at_pointer(pointer);
    if (r.error())
      throw SchemaError{"no schema at JSON pointer " + std::string(pointer) + " (" + context + ")"};
    return r.value_unsafe();
  }

  static std::optional<double> number_of(dom::element e) {
    switch (e.type()) {
      case dom::element_type::INT64:
        return static_cast<double>(e.get_int64().value_unsafe());
      case dom::element_type::UINT64:
        return static_cast<double>(e.get_uint64().value_unsafe());
      case dom::element_type::DOUBLE:
        return e.get_double().value_unsafe();
      default:
        return std::nullopt;
    }
  }

  // ---- entry points ------------------------------------------------------------------------
  std::string rule_for(const std::string& pointer, Mode mode, const std::string& terminator,
                       const std::string& hint) {
    const std::string key = (mode == Mode::json ? "json:" : "raw:" + terminator + ":") + pointer;
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
    const std::string name = new_name(hint);
    memo[key] = name;  // before the body: recursive $refs see the name
    // Bounded nesting keeps the converter's recursion far from the stack limit.
    struct DepthGuard {
      int& d;
      ~DepthGuard() { --d; }
    } guard{++depth};
    if (uint32_t max = limits().max_nesting_depth; depth > static_cast<int>(max))
      throw SchemaError{show(pointer) + ": schema nested deeper than the limit max_nesting_depth = " +
                        std::to_string(max)};
    const std::string body = schema_expr(resolve(pointer, "schema"), pointer, mode, terminator);
    rule_lines.push_back(name + " ::= " + body + ";");
    return name;
  }

  std::string hint_for(const std::string& pointer) const {
    const size_t slash = pointer.rfind('/');
    std::string last = slash == std::string::npos ? pointer : pointer.substr(slash + 1);
    return last.empty() ? "root" : last;
  }

  // ---- schema dispatch ---------------------------------------------------------------------
  std::string schema_expr(dom::element s, const std::string& ptr, Mode mode,
                          const std::string& term) {
    if (s.type() == dom::element_type::BOOL) {
      if (s.get_bool().value_unsafe()) return any_expr(mode, term);
      throw SchemaError{"schema `false` accepts nothing at " + show(ptr)};
    }
    if (s.type() != dom::element_type::OBJECT)
      throw SchemaError{"a schema must be an object or a boolean at " + show(ptr)};
    dom::object o = s.get_object().value_unsafe();
    std::set<std::string_view> keys;
    bool constrained = false;
    for (auto field : o) {
      constrained |= kSupported.count(field.key) > 0;
      keys.insert(field.key);
      if (!kAnnotations.count(field.key) && !kSupported.count(field.key))
        unsupported("unsupported JSON Schema keyword `" + std::string(field.key) + "`",
                    ptr + "/" + pointer_token(field.key));
    }
    auto constraint_siblings = [&](std::initializer_list<std::string_view> allowed) {
      for (auto k : keys)
        if (kSupported.count(k) && std::find(allowed.begin(), allowed.end(), k) == allowed.end())
          return std::string(k);
      return std::string();
    };
    if (!constrained) return any_expr(mode, term);  // {} or annotations only: every value
    if (keys.count("$ref")) {
      if (auto k = constraint_siblings({"$ref"}); !k.empty())
        unsupported("`" + k + "` next to `$ref`", ptr + "/" + k);
      return ref_expr(o, ptr, mode, term);
    }
    for (const char* comb : {"anyOf", "oneOf"}) {
      if (!keys.count(comb)) continue;
      if (auto k = constraint_siblings({comb}); !k.empty())
        unsupported("`" + k + "` next to `" + comb + "`", ptr + "/" + k);
      return any_of_expr(o, comb, ptr, mode, term);
    }
    if (keys.count("const") || keys.count("enum")) {
      const char* kw = keys.count("const") ? "const" : "enum";
      if (auto k = constraint_siblings({"const", "enum", "type"}); !k.empty())
        unsupported("`" + k + "` next to `" + kw + "`", ptr + "/" + k);
      return enum_expr(o, kw, ptr, mode, term);
    }
    std::vector<std::string> alts;
    for (const std::string& t : types_of(o, ptr)) alts.push_back(typed_expr(t, o, ptr, mode, term));
    return alts.size() == 1 ? alts[0] : "(" + join_alts(alts) + ")";
  }

  static std::string join_alts(const std::vector<std::string>& alts) {
    std::string out;
    for (size_t i = 0; i < alts.size(); ++i) out += (i ? " | " : "") + alts[i];
    return out;
  }

  // The types named by `type` (empty when absent: every type).
  std::vector<std::string> declared_types(dom::object o, const std::string& ptr) {
    std::vector<std::string> out;
    auto t = o["type"];
    if (t.error()) return out;
    std::vector<std::string_view> listed;
    if (t.value_unsafe().type() == dom::element_type::STRING) {
      listed.push_back(t.value_unsafe().get_string().value_unsafe());
    } else if (t.value_unsafe().type() == dom::element_type::ARRAY) {
      dom::array arr = t.value_unsafe().get_array().value_unsafe();
      for (auto e : arr) {
        if (e.type() != dom::element_type::STRING)
          throw SchemaError{"`type` entries must be strings at " + ptr + "/type"};
        listed.push_back(e.get_string().value_unsafe());
      }
    } else {
      throw SchemaError{"`type` must be a string or an array at " + ptr + "/type"};
    }
    for (auto n : listed) {
      if (std::find(std::begin(kTypes), std::end(kTypes), n) == std::end(kTypes))
        throw SchemaError{"unknown type `" + std::string(n) + "` at " + ptr + "/type"};
      if (std::find(out.begin(), out.end(), n) == out.end()) out.emplace_back(n);
    }
    if (out.empty()) throw SchemaError{"empty `type` array at " + ptr + "/type"};
    return out;
  }

  // The types to generate: declared ones (integer folded into number when both are named), or
  // every type when `type` is absent.
  std::vector<std::string> types_of(dom::object o, const std::string& ptr) {
    std::vector<std::string> declared = declared_types(o, ptr), out;
    if (declared.empty()) {
      for (const char* name : kTypes)
        if (std::string_view(name) != "integer") out.push_back(name);  // number covers integer
      return out;
    }
    const bool has_number = std::find(declared.begin(), declared.end(), "number") != declared.end();
    for (const auto& n : declared)
      if (!(n == "integer" && has_number)) out.push_back(n);
    return out;
  }

  // In raw mode every expression includes the terminator: a raw string needs it inside its
  // terminal to stay exact (raw_string_expr), and the other types simply append it.
  std::string typed_expr(const std::string& t, dom::object o, const std::string& ptr, Mode mode,
                         const std::string& term) {
    if (t == "string" && mode == Mode::raw) return raw_string_expr(o, ptr, term);
    std::string e;
    if (t == "null") {
      e = kbnf_literal("null");
    } else if (t == "boolean") {
      e = "(" + kbnf_literal("true") + " | " + kbnf_literal("false") + ")";
    } else if (t == "integer") {
      e = integer_expr(o, ptr);
    } else if (t == "number") {
      e = number_expr(o, ptr);
    } else if (t == "string") {
      e = json_string_expr(o, ptr);
    } else if (t == "array") {
      e = array_expr(o, ptr);
    } else {
      e = object_expr(o, ptr);
    }
    return mode == Mode::raw ? e + " " + kbnf_literal(term) : e;
  }

  // ---- combinators -------------------------------------------------------------------------
  std::string ref_expr(dom::object o, const std::string& ptr, Mode mode, const std::string& term) {
    std::string_view ref;
    if (o["$ref"].get_string().get(ref))
      throw SchemaError{"`$ref` must be a string at " + ptr + "/$ref"};
    if (ref.empty() || ref[0] != '#')
      throw SchemaError{"only local references (\"#/...\") are supported at " + ptr + "/$ref"};
    std::string target(ref.substr(1));
    std::string decoded;  // URI fragments may percent-encode
    auto hex = [](char h) {
      return (h >= '0' && h <= '9')   ? h - '0'
             : (h >= 'a' && h <= 'f') ? h - 'a' + 10
             : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                      : -1;
    };
    for (size_t i = 0; i < target.size(); ++i) {
      if (target[i] == '%' && i + 2 < target.size() && hex(target[i + 1]) >= 0 &&
          hex(target[i + 2]) >= 0) {
        decoded += static_cast<char>(hex(target[i + 1]) * 16 + hex(target[i + 2]));
        i += 2;
      } else {
        decoded += target[i];
      }
    }
    resolve(decoded, "$ref at " + ptr + "/$ref");
    return rule_for(decoded, mode, term, hint_for(decoded));
  }

  std::string any_of_expr(dom::object o, const char* kw, const std::string& ptr, Mode mode,
                          const std::string& term) {
    dom::array arr;
    if (o[kw].get_array().get(arr) || arr.size() == 0)
      throw SchemaError{"`" + std::string(kw) + "` must be a non-empty array at " + ptr + "/" + kw};
    std::vector<std::string> alts;
    size_t i = 0;
    for (auto e : arr) {
      (void)e;
      const std::string sub = ptr + "/" + kw + "/" + std::to_string(i++);
      alts.push_back(rule_for(sub, mode, term, hint_for(ptr) + "_alt"));
    }
    return alts.size() == 1 ? alts[0] : "(" + join_alts(alts) + ")";
  }

  // JSON text of a value, canonical (key order kept, separators of this converter's style).
  std::string value_text(dom::element v) {
    switch (v.type()) {
      case dom::element_type::STRING:
        return json_quote(v.get_string().value_unsafe());
      case dom::element_type::ARRAY: {
        std::string out = "[";
        bool first = true;
        dom::array arr = v.get_array().value_unsafe();
        for (auto e : arr) {
          out += (first ? "" : opt.compact ? "," : ", ") + value_text(e);
          first = false;
        }
        return out + "]";
      }
      case dom::element_type::OBJECT: {
        std::string out = "{";
        bool first = true;
        dom::object obj = v.get_object().value_unsafe();
        for (auto f : obj) {
          out += std::string(first         ? ""
                             : opt.compact ? ","
                                           : ", ") +
                 json_quote(f.key) + (opt.compact ? ":" : ": ") + value_text(f.value);
          first = false;
        }
        return out + "}";
      }
      default:
        return simdjson::to_string(v);
    }
  }

  static bool type_matches(dom::element v, const std::vector<std::string>& types) {
    if (types.empty()) return true;
    for (const auto& t : types) {
      switch (v.type()) {
        case dom::element_type::NULL_VALUE:
          if (t == "null") return true;
          break;
        case dom::element_type::BOOL:
          if (t == "boolean") return true;
          break;
        case dom::element_type::STRING:
          if (t == "string") return true;
          break;
        case dom::element_type::ARRAY:
          if (t == "array") return true;
          break;
        case dom::element_type::OBJECT:
          if (t == "object") return true;
          break;
        case dom::element_type::DOUBLE: {
          const double d = v.get_double().value_unsafe();
          if (t == "number" || (t == "integer" && d == std::floor(d))) return true;
          break;
        }
        default:
          if (t == "number" || t == "integer") return true;
      }
    }
    return false;
  }

  std::string enum_expr(dom::object o, const char* kw, const std::string& ptr, Mode mode,
                        const std::string& term) {
    std::vector<dom::element> values;
    if (std::string_view(kw) == "const") {
      values.push_back(o["const"].value_unsafe());
    } else {
      dom::array arr;
      if (o["enum"].get_array().get(arr))
        throw SchemaError{"`enum` must be an array at " + ptr + "/enum"};
      for (auto e : arr) values.push_back(e);
    }
    std::vector<std::string> types = declared_types(o, ptr);
    std::vector<std::string> alts;
    std::set<std::string> seen;
    for (auto v : values) {
      if (!type_matches(v, types)) continue;
      std::string text;
      if (mode == Mode::raw && v.type() == dom::element_type::STRING) {
        std::string_view s = v.get_string().value_unsafe();
        if (s.find(term) != std::string_view::npos)
          throw SchemaError{"enum value contains `" + term + "` at " + ptr + "/" + kw};
        text = std::string(s);  // raw text, not JSON
      } else {
        text = value_text(v);
      }
      if (mode == Mode::raw) text += term;
      if (seen.insert(text).second) alts.push_back(kbnf_literal(text));
    }
    if (alts.empty())
      throw SchemaError{"`" + std::string(kw) + "` allows no value of the schema's type at " + ptr +
                        "/" + kw};
    return alts.size() == 1 ? alts[0] : "(" + join_alts(alts) + ")";
  }

  // Defined in the second half of this file.
  std::string any_expr(Mode mode, const std::string& term);
  std::string integer_expr(dom::object o, const std::string& ptr);
  std::string number_expr(dom::object o, const std::string& ptr);
  std::optional<std::pair<uint64_t, uint64_t>> length_bounds(dom::object o, const std::string& ptr);
  std::optional<std::string> format_regex(dom::object o, const std::string& ptr);
  std::string json_string_expr(dom::object o, const std::string& ptr);
  std::string raw_string_expr(dom::object o, const std::string& ptr, const std::string& term);
  std::string array_expr(dom::object o, const std::string& ptr);
  std::string object_expr(dom::object o, const std::string& ptr);
  ObjectShape shape_of(dom::object o, const std::string& ptr);
  std::optional<int64_t> int_bound(dom::object o, const std::string& ptr, const char* kw);
};

}  // namespace ai00::internal::grammar
