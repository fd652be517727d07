// Private to the JSON Schema converter (json_schema.cpp, json_schema_types.cpp): the converter's
// state and its schema dispatch. Each sub-schema becomes one rule; terminals are built by
// schema_regex.h and written through kbnf_writer.h. Errors inside are thrown as SchemaError and
// turned into Result by the public entry points.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "base/json_escape.h"
#include "base/limits.h"
#include "grammar/json_schema.h"
#include "grammar/kbnf_writer.h"
#include "grammar/matcher.h"
#include "grammar/schema_regex.h"

namespace ai00::internal::grammar {

namespace dom = simdjson::dom;

namespace schema_detail {

struct SchemaError {
  std::string message;
};
// A (sub)schema no value satisfies: an error at the top, a dropped branch inside anyOf / oneOf.
struct EmptySchema : SchemaError {};
// Two schemas whose conjunction or negation cannot be written as a schema this converter
// translates exactly (schema_combine.cpp).
struct Unmergeable {
  std::string message;
};

// Private keyword of combined schemas (never in a user's schema: it starts with a control
// character): a string that is none of the listed ones (the negation of a string enum).
inline const std::string kNotEnumKeyword = "\x01not-enum";
// Likewise: a number that is not an integer (the negation of `type: integer` among numbers).
inline const std::string kFractionKeyword = "\x01fraction";

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
                                                      "exclusiveMaximum",
                                                      "minProperties",
                                                      "maxProperties",
                                                      "propertyNames",
                                                      "patternProperties",
                                                      "dependentRequired",
                                                      "dependencies",
                                                      "multipleOf",
                                                      "allOf",
                                                      "not",
                                                      "if",
                                                      "then",
                                                      "else",
                                                      "uniqueItems",
                                                      "contains",
                                                      "minContains",
                                                      "maxContains",
                                                      kNotEnumKeyword,
                                                      kFractionKeyword};
// Keywords of some JSON Schema draft that assert something this converter does not translate:
// refused by their pointer (lenient: ignored with a warning). Every other unknown keyword is an
// annotation, as a validator reads it (draft 2020-12 core §6.5), and ignored with a warning.
inline const std::set<std::string_view> kKnownUnsupported = {
    "$anchor",          "$dynamicRef",      "$dynamicAnchor",
    "$recursiveRef",    "$recursiveAnchor", "$vocabulary",
    "dependentSchemas", "unevaluatedItems", "unevaluatedProperties",
    "additionalItems",  "disallow",         "divisibleBy",
    "extends"};
inline bool is_annotation(std::string_view k) {
  return kAnnotations.count(k) || (!kSupported.count(k) && !kKnownUnsupported.count(k));
}
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
  std::map<std::string, int> next_suffix;  // base name -> next numeric suffix to try
  std::vector<std::string> warnings;
  int depth = 0;  // nesting of rule_for calls
  // value_expr spells strings (see `spelled`): set by enum_expr for long enums.
  bool spell_values = false;
  static constexpr size_t kMaxLiteralValueBytes = 4096;

  // ---- punctuation (canonical or with whitespace folded in) --------------------------------
  std::string ws_regex() const {
    return "[ \\t\\n\\r]" + (opt.max_whitespace == 0
                                 ? std::string("*")
                                 : "{0," + std::to_string(opt.max_whitespace) + "}");
  }
  std::string punct(const char* canonical, const char* ch, bool ws_before, bool ws_after) const {
    if (!opt.flexible_whitespace) return kbnf_literal(opt.compact ? ch : canonical);
    const std::string ws = ws_regex();
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
    return kbnf_regex("\\{" + ws_regex() + "\\}");
  }
  std::string empty_arr() const {
    if (!opt.flexible_whitespace) return kbnf_literal("[]");
    return kbnf_regex("\\[" + ws_regex() + "\\]");
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
    // The next free suffix per base: probing from 2 every time is quadratic when one base name
    // repeats (20k properties each get a `<object>_rest` rule).
    std::string name = base;
    if (names.count(name)) {
      int& k = next_suffix.emplace(base, 2).first->second;
      do name = base + "_" + std::to_string(k++);
      while (names.count(name));
    }
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

  // `text` spelled as one shared one-byte rule per byte instead of one literal. A literal takes
  // an automaton of its length from the grammar's DFA-state budget, so thousands of distinct
  // literals (the keys of a huge object) would exhaust it; one-byte rules share at most 256
  // two-state automata (docs/grammar.md "Large schemas").
  std::string spelled(std::string_view text) {
    std::string out;
    for (const char c : text) {
      const auto b = static_cast<unsigned char>(c);
      const char hex[] = {"0123456789abcdef"[b >> 4], "0123456789abcdef"[b & 15], 0};
      out +=
          (out.empty() ? "" : " ") + shared_rule(std::string("byte:") + hex, std::string("b") + hex,
                                                 kbnf_literal(std::string(1, c)));
    }
    return out;
  }

  // ---- JSON navigation ---------------------------------------------------------------------
  // Sub-schemas already reached by enumeration (the values of `properties`), by pointer:
  // at_pointer scans an object's keys, so resolving each of n properties that way is quadratic.
  std::map<std::string, dom::element, std::less<>> known;
  // Combined schemas (schema_combine.cpp): documents addressed by pointers "@k[/...]".
  std::vector<std::unique_ptr<dom::parser>> synthetic;
  std::vector<dom::element> synthetic_roots;
  std::map<std::string, std::string> synthetic_origin;  // "@k" -> pointer it was made for
  static std::string object_text(const std::vector<std::pair<std::string, std::string>>& members) {
    std::string out = "{";
    for (size_t i = 0; i < members.size(); ++i)
      out += (i ? "," : "") + json_quote(members[i].first) + ":" + members[i].second;
    return out + "}";
  }
  static std::string any_of_text(const std::vector<std::string>& alts) {
    if (alts.empty()) return "false";
    if (alts.size() == 1) return alts[0];
    std::string out = "{\"anyOf\":[";
    for (size_t i = 0; i < alts.size(); ++i) out += (i ? "," : "") + alts[i];
    return out + "]}";
  }
  std::string conjoin(dom::element a, dom::element b, int depth = 0);
  std::string negate(dom::element s, int depth = 0);
  dom::element without_lone_conditionals(dom::element s);
  // oneOf branches made exclusive: branch i and not any other (when every branch can be negated),
  // else the branches as given, with a warning unless their types are disjoint.
  std::vector<std::string> exclusive_branches(dom::array arr, const std::string& ptr);
  dom::element synthetic_element(const std::string& json);
  std::string synthetic_pointer(const std::string& json, const std::string& origin);
  dom::element follow_ref(std::string_view ref);
  // Messages name the pointer a combined schema was made for instead of "@k".
  std::string humanize(std::string msg) const {
    for (int round = 0; round < 64; ++round) {
      size_t at = msg.find('@');
      while (at != std::string::npos &&
             (at + 1 >= msg.size() || !std::isdigit(static_cast<unsigned char>(msg[at + 1]))))
        at = msg.find('@', at + 1);
      if (at == std::string::npos) break;
      size_t end = at + 1;
      while (end < msg.size() && std::isdigit(static_cast<unsigned char>(msg[end]))) ++end;
      auto it = synthetic_origin.find(msg.substr(at, end - at));
      const std::string origin = it == synthetic_origin.end() ? "" : it->second;
      msg.replace(at, end - at, (origin.empty() ? "/" : origin) + " (combined)");
    }
    return msg;
  }
  static std::string decode_fragment(std::string_view target) {
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
    return decoded;
  }

  dom::element resolve(std::string_view pointer, const std::string& context) {
    if (pointer.empty()) return root;
    if (auto k = known.find(pointer); k != known.end()) return k->second;
    if (pointer[0] == '@') {
      size_t end = 1;
      while (end < pointer.size() && std::isdigit(static_cast<unsigned char>(pointer[end]))) ++end;
      if (end == 1) throw SchemaError{"internal: bad combined schema name " + std::string(pointer)};
      const size_t k = std::stoul(std::string(pointer.substr(1, end - 1)));
      if (k >= synthetic_roots.size())
        throw SchemaError{"internal: no combined schema " + std::string(pointer)};
      if (end == pointer.size()) return synthetic_roots[k];
      auto r = synthetic_roots[k].at_pointer(pointer.substr(end));
      if (r.error())
        throw SchemaError{"no schema at JSON pointer " + std::string(pointer) + " (" + context +
                          ")"};
      return r.value_unsafe();
    }
    if (auto found = walk(pointer)) return *found;
    auto r = root.at_pointer(pointer);  // not found by the walk: at_pointer's error, or a form
    if (r.error())                      // the walk does not read
      throw SchemaError{"no schema at JSON pointer " + std::string(pointer) + " (" + context + ")"};
    return r.value_unsafe();
  }
  // Resolves a "/..." pointer level by level, putting the members of each object or array it
  // passes into `known` once: n references into one `$defs` cost O(n) in all, where at_pointer
  // would scan the siblings for each. Iterative (a pointer may have any number of levels).
  std::set<std::string, std::less<>> indexed;  // pointers whose members are in `known`
  std::optional<dom::element> walk(std::string_view pointer) {
    dom::element cur = root;
    size_t pos = 0;
    while (pos < pointer.size() && pointer[pos] == '/') {
      size_t next = pointer.find('/', pos + 1);
      if (next == std::string_view::npos) next = pointer.size();
      auto k = known.find(pointer.substr(0, next));
      if (k == known.end()) {
        const std::string parent(pointer.substr(0, pos));
        if (!indexed.insert(parent).second) return std::nullopt;  // indexed: no such member
        index_members(parent, cur);
        k = known.find(pointer.substr(0, next));
        if (k == known.end()) return std::nullopt;
      }
      cur = k->second;
      pos = next;
    }
    return pos == pointer.size() ? std::optional<dom::element>(cur) : std::nullopt;
  }
  void index_members(const std::string& parent, dom::element e) {
    if (e.type() == dom::element_type::OBJECT) {
      dom::object obj = e.get_object().value_unsafe();
      for (auto f : obj) known.emplace(parent + "/" + pointer_token(f.key), f.value);
    } else if (e.type() == dom::element_type::ARRAY) {
      dom::array arr = e.get_array().value_unsafe();
      size_t i = 0;
      for (auto v : arr) known.emplace(parent + "/" + std::to_string(i++), v);
    }
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

  // The count keyword `kw` of o (minLength, maxItems, minContains, ...): nullopt when absent,
  // else a whole number in [0, max]; anything else is a SchemaError at ptr/kw.
  static std::optional<uint64_t> count_of(dom::object o, const char* kw, const std::string& ptr,
                                          double max = 1e6);

  // ---- entry points ------------------------------------------------------------------------
  std::string rule_for(const std::string& pointer, Mode mode, const std::string& terminator,
                       const std::string& hint) {
    const std::string key = (mode == Mode::json ? "json:" : "raw:" + terminator + ":") + pointer;
    auto it = memo.find(key);
    if (it != memo.end()) return it->second;
    const std::string name = new_name(hint);
    memo[key] = name;  // before the body: recursive $refs see the name
    // A failed body (an error a caller recovers from) must not leave a name without a rule.
    struct MemoGuard {
      std::map<std::string, std::string>& memo;
      const std::string& key;
      bool done = false;
      ~MemoGuard() {
        if (!done) memo.erase(key);
      }
    } memo_guard{memo, key};
    // Bounded nesting keeps the converter's recursion far from the stack limit.
    struct DepthGuard {
      int& d;
      ~DepthGuard() { --d; }
    } guard{++depth};
    if (uint32_t max = limits().max_nesting_depth; depth > static_cast<int>(max))
      throw SchemaError{
          show(pointer) +
          ": schema nested deeper than the limit max_nesting_depth = " + std::to_string(max)};
    const std::string body = schema_expr(resolve(pointer, "schema"), pointer, mode, terminator);
    rule_lines.push_back(name + " ::= " + body + ";");
    memo_guard.done = true;
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
    s = without_lone_conditionals(s);
    if (s.type() == dom::element_type::BOOL) {
      if (s.get_bool().value_unsafe()) return any_expr(mode, term);
      // EmptySchema: a dropped branch of anyOf / oneOf, a forbidden property or item.
      throw EmptySchema{{"schema `false` accepts nothing at " + show(ptr)}};
    }
    if (s.type() != dom::element_type::OBJECT)
      throw SchemaError{"a schema must be an object or a boolean at " + show(ptr)};
    dom::object o = s.get_object().value_unsafe();
    std::set<std::string_view> keys;
    bool constrained = false;
    for (auto field : o) {
      constrained |= kSupported.count(field.key) > 0;
      keys.insert(field.key);
      if (kKnownUnsupported.count(field.key))
        unsupported("unsupported JSON Schema keyword `" + std::string(field.key) + "`",
                    ptr + "/" + pointer_token(field.key));
      else if (!kAnnotations.count(field.key) && !kSupported.count(field.key))
        warnings.push_back("ignored unknown keyword `" + std::string(field.key) + "` at " + ptr +
                           "/" + pointer_token(field.key) + " (an annotation to validators)");
    }
    auto constraint_siblings = [&](std::initializer_list<std::string_view> allowed) {
      for (auto k : keys)
        if (kSupported.count(k) && std::find(allowed.begin(), allowed.end(), k) == allowed.end())
          return std::string(k);
      return std::string();
    };
    if (!constrained) return any_expr(mode, term);  // {} or annotations only: every value
    // Combinators and keywords beside them are rewritten into simpler schemas
    // (schema_combine.cpp) that are translated in turn; what cannot be rewritten exactly is
    // unsupported (lenient: the combinator alone, or the rest without it).
    auto rest = [&](std::initializer_list<std::string_view> drop) {
      std::vector<std::pair<std::string, std::string>> m;
      for (auto f : o)
        if (std::find(drop.begin(), drop.end(), f.key) == drop.end())
          m.emplace_back(std::string(f.key), simdjson::to_string(f.value));
      return synthetic_element(object_text(m));
    };
    auto combined = [&](const std::string& json, const char* kw) {
      if (json == "false")
        throw EmptySchema{"no value satisfies `" + std::string(kw) +
                          "` and the keywords beside it at " + ptr + "/" + kw};
      return rule_for(synthetic_pointer(json, ptr), mode, term, hint_for(ptr));
    };
    const char* failed = nullptr;
    try {
      if (keys.count("$ref")) {
        if (constraint_siblings({"$ref"}).empty()) return ref_expr(o, ptr, mode, term);
        std::string_view ref;
        if (o["$ref"].get_string().get(ref))
          throw SchemaError{"`$ref` must be a string at " + ptr + "/$ref"};
        failed = "$ref";
        return combined(conjoin(follow_ref(ref), rest({"$ref"})), "$ref");
      }
      for (const char* comb : {"anyOf", "oneOf"}) {
        if (!keys.count(comb)) continue;
        dom::array arr;
        if (o[comb].get_array().get(arr) || arr.size() == 0)
          throw SchemaError{"`" + std::string(comb) + "` must be a non-empty array at " + ptr +
                            "/" + comb};
        failed = comb;
        std::vector<std::string> branches;
        for (auto e : arr) branches.push_back(simdjson::to_string(e));
        const bool one_of = std::string_view(comb) == "oneOf" && branches.size() > 1;
        std::vector<std::string> exclusive;
        if (one_of) exclusive = exclusive_branches(arr, ptr + "/oneOf");
        const bool rewritten = one_of && exclusive != branches;
        if (constraint_siblings({comb}).empty() && !rewritten)
          return any_of_expr(o, comb, ptr, mode, term);
        dom::element others = rest({comb});
        auto build = [&](const std::vector<std::string>& bs) {
          std::vector<std::string> alts;
          for (const auto& b : bs) {
            const std::string c = conjoin(others, synthetic_element(b));
            if (c != "false") alts.push_back(c);
          }
          return combined(any_of_text(alts), comb);
        };
        if (!rewritten) return build(branches);
        try {
          return build(exclusive);
        } catch (const SchemaError&) {
        } catch (const Unmergeable&) {
        }
        // The exclusive form has a part this converter cannot translate: the branches as an
        // anyOf (a value valid under several is accepted).
        warnings.push_back("approximated `oneOf` at " + ptr +
                           "/oneOf: a value valid under several branches is accepted");
        return build(branches);
      }
      if (keys.count("allOf")) {
        dom::array arr;
        if (o["allOf"].get_array().get(arr))
          throw SchemaError{"`allOf` must be an array at " + ptr + "/allOf"};
        failed = "allOf";
        std::string acc = simdjson::to_string(rest({"allOf"}));
        for (auto e : arr) acc = conjoin(synthetic_element(acc), e);
        return combined(acc, "allOf");
      }
      if (keys.count("not")) {
        failed = "not";
        return combined(conjoin(rest({"not"}), synthetic_element(negate(o["not"].value_unsafe()))),
                        "not");
      }
      if (keys.count("if")) {
        failed = "if";
        dom::element others = rest({"if", "then", "else"});
        dom::element cond = o["if"].value_unsafe();
        auto branch = [&](dom::element c, const char* kw) {
          std::string t = conjoin(others, c);
          if (t != "false" && !o[kw].error())
            t = conjoin(synthetic_element(t), o[kw].value_unsafe());
          return t;
        };
        std::vector<std::string> alts;
        for (const std::string& t :
             {branch(cond, "then"), branch(synthetic_element(negate(cond)), "else")})
          if (t != "false") alts.push_back(t);
        return combined(any_of_text(alts), "if");
      }
    } catch (const Unmergeable& u) {
      unsupported("`" + std::string(failed ? failed : "?") + "` cannot be expressed exactly (" +
                      u.message + ")",
                  ptr + "/" + (failed ? failed : ""));
      // lenient: anyOf / oneOf alone; otherwise the rest without the combinators
      for (const char* comb : {"anyOf", "oneOf"})
        if (keys.count(comb)) return any_of_expr(o, comb, ptr, mode, term);
      if (keys.count("$ref")) return ref_expr(o, ptr, mode, term);
    }
    if (keys.count("const") || keys.count("enum")) {
      const char* kw = keys.count("const") ? "const" : "enum";
      if (auto k = constraint_siblings({kw, "type"}); !k.empty()) {
        // Other keywords (an `enum` beside a `const` too): keep the values they accept (each
        // value's JSON text checked against the grammar of the schema without `kw`). Exact.
        if (auto filtered = filter_values(o, kw, rest({kw}), ptr)) return combined(*filtered, kw);
        unsupported("`" + k + "` next to `" + kw + "`", ptr + "/" + k);
      }
      return enum_expr(o, kw, ptr, mode, term);
    }
    // A type whose keywords no value satisfies drops out (`minimum` > `maximum` leaves the other
    // types valid, as a validator reads it); none left: the schema is empty.
    std::vector<std::string> alts;
    std::string empty_reason;
    for (const std::string& t : types_of(o, ptr)) {
      try {
        alts.push_back(typed_expr(t, o, ptr, mode, term));
      } catch (const EmptySchema& empty) {
        empty_reason = empty.message;
      }
    }
    if (alts.empty()) throw EmptySchema{{empty_reason}};
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
    const std::string decoded = decode_fragment(ref.substr(1));
    // A fragment is a JSON pointer ("" or "/..."); refusing anything else also keeps callers
    // out of the "@N" names this converter gives its own combined schemas.
    if (!decoded.empty() && decoded[0] != '/')
      throw SchemaError{"`$ref` fragment \"" + std::string(ref.substr(1)) +
                        "\" is not a JSON pointer (\"#\" or \"#/...\") at " + ptr + "/$ref"};
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
    std::string empty_reason;
    for (auto e : arr) {
      (void)e;
      const std::string sub = ptr + "/" + kw + "/" + std::to_string(i++);
      try {
        alts.push_back(rule_for(sub, mode, term, hint_for(ptr) + "_alt"));
      } catch (const EmptySchema& empty) {
        empty_reason = empty.message;  // a branch no value satisfies adds nothing
      }
    }
    if (alts.empty()) throw EmptySchema{{empty_reason}};
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

  // A grammar expression for the JSON texts a validator finds equal to `v` (const / enum):
  // whitespace as the options say, object members in any order (every order up to
  // kMaxPermutedKeys keys, schema order beyond: documented), integers also as n.0…, decimals
  // with trailing zeros. Strings are matched as written canonically (an escape such as \u0041
  // for A is not recognised: documented).
  static constexpr size_t kMaxPermutedKeys = 5;
  std::string value_expr(dom::element v) {
    switch (v.type()) {
      case dom::element_type::STRING: {
        const std::string text = json_quote(v.get_string().value_unsafe());
        return spell_values ? spelled(text) : kbnf_literal(text);
      }
      case dom::element_type::ARRAY: {
        dom::array arr = v.get_array().value_unsafe();
        if (arr.size() == 0) return empty_arr();
        std::string out = lbrack();
        bool first = true;
        for (auto e : arr) {
          out += (first ? " " : " " + comma() + " ") + value_expr(e);
          first = false;
        }
        return "(" + out + " " + rbrack() + ")";
      }
      case dom::element_type::OBJECT: {
        dom::object obj = v.get_object().value_unsafe();
        std::vector<std::string> members;
        for (auto f : obj) {
          const std::string key =
              opt.flexible_whitespace
                  ? kbnf_literal(json_quote(f.key)) + " " + colon()
                  : kbnf_literal(json_quote(f.key) + (opt.compact ? ":" : ": "));
          members.push_back(key + " " + value_expr(f.value));
        }
        if (members.empty()) return empty_obj();
        std::vector<size_t> order(members.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::vector<std::string> alts;
        do {
          std::string body;
          for (size_t i = 0; i < order.size(); ++i)
            body += (i ? " " + comma() + " " : "") + members[order[i]];
          alts.push_back(body);
        } while (members.size() <= kMaxPermutedKeys &&
                 std::next_permutation(order.begin(), order.end()));
        return "(" + lbrace() + " (" + join_alts(alts) + ") " + rbrace() + ")";
      }
      case dom::element_type::INT64:
      case dom::element_type::UINT64:
        return kbnf_regex(regex_escape(simdjson::to_string(v)) + "(?:\\.0+)?");
      case dom::element_type::DOUBLE: {
        const double d = v.get_double().value_unsafe();
        if (d == std::floor(d) && std::fabs(d) < 1e18) {
          const auto n = static_cast<int64_t>(d);
          return kbnf_regex(
              regex_escape((n == 0 && std::signbit(d) ? "-" : "") + std::to_string(n)) +
              "(?:\\.0+)?");
        }
        const std::string text = simdjson::to_string(v);
        const bool plain = text.find_first_of("eE") == std::string::npos;
        return kbnf_regex(regex_escape(text) + (plain ? "0*" : ""));
      }
      default:
        return kbnf_literal(simdjson::to_string(v));
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
    // A long enum's strings are spelled byte by byte in JSON mode (as the keys of a huge object).
    size_t value_bytes = 0;
    for (auto v : values)
      if (v.type() == dom::element_type::STRING)
        value_bytes += v.get_string().value_unsafe().size() + 2;
    spell_values = value_bytes > kMaxLiteralValueBytes;
    struct Reset {
      bool& b;
      ~Reset() { b = false; }
    } reset{spell_values};
    for (auto v : values) {
      if (!type_matches(v, types)) continue;
      std::string text;
      if (mode == Mode::raw && v.type() == dom::element_type::STRING) {
        std::string_view s = v.get_string().value_unsafe();
        if (s.find(term) != std::string_view::npos)
          throw SchemaError{"enum value contains `" + term + "` at " + ptr + "/" + kw};
        text = std::string(s);  // raw text, not JSON
      } else if (mode == Mode::json) {
        const std::string e = value_expr(v);
        if (seen.insert(e).second) alts.push_back(e);
        continue;
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

  // {"enum": [values of o's const / enum that the schema `others` accepts]}, or nullopt when the
  // check grammar cannot be built yet (a rule still being defined, e.g. inside a recursion).
  std::optional<std::string> filter_values(dom::object o, const char* kw, dom::element others,
                                           const std::string& ptr) {
    std::vector<dom::element> values;
    if (std::string_view(kw) == "const") {
      values.push_back(o["const"].value_unsafe());
    } else {
      dom::array arr;
      if (o["enum"].get_array().get(arr))
        throw SchemaError{"`enum` must be an array at " + ptr + "/enum"};
      for (auto e : arr) values.push_back(e);
    }
    try {
      const std::string check = rule_for(synthetic_pointer(simdjson::to_string(others), ptr),
                                         Mode::json, "", hint_for(ptr) + "_check");
      std::string kbnf = "start ::= " + check + ";\n";
      for (const auto& line : rule_lines) kbnf += line + "\n";
      CompiledGrammar g = CompiledGrammar::compile_kbnf(kbnf, nullptr);
      std::string out = "[";
      for (auto v : values) {
        Matcher m(g);
        if (m.accept_bytes(value_text(v)) && m.is_complete())
          out += (out.size() > 1 ? "," : "") + simdjson::to_string(v);
      }
      if (out.size() == 1) return std::string("false");
      return "{\"enum\":" + out + "]}";
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  // Defined in the second half of this file.
  std::string any_expr(Mode mode, const std::string& term);
  std::string integer_expr(dom::object o, const std::string& ptr);
  std::string number_expr(dom::object o, const std::string& ptr);
  // "" when multipleOf is ignored (lenient); else an expression for the multiples.
  std::string multiple_of_expr(dom::object o, const std::string& ptr, bool integer_only);
  std::string multiple_of_rules(uint64_t p, int d, bool integer_only, bool non_negative);
  std::optional<std::pair<uint64_t, uint64_t>> length_bounds(dom::object o, const std::string& ptr);
  std::optional<std::string> format_regex(dom::object o, const std::string& ptr);
  std::string json_string_expr(dom::object o, const std::string& ptr);
  // A JSON string none of `names` (json_string_excluding_regex). Its regexes nest a group per
  // code point of the longest name, so a name longer than max_nesting_depth is an error at
  // `where`.
  std::string string_excluding_expr(const std::vector<std::string>& names,
                                    const std::string& where);
  std::string raw_string_expr(dom::object o, const std::string& ptr, const std::string& term);
  std::string array_expr(dom::object o, const std::string& ptr);
  std::string contains_expr(dom::object o, const std::string& ptr);
  std::string unique_items_expr(dom::object o, const std::string& ptr, uint64_t min, uint64_t max);
  std::string object_expr(dom::object o, const std::string& ptr);
  // `unlisted_required`: when given, required names missing from `properties` go there instead
  // of being reported.
  ObjectShape shape_of(dom::object o, const std::string& ptr,
                       std::vector<std::string>* unlisted_required = nullptr);
  // propertyNames as a regex over the key's encoded content (between the quotes); nullopt when
  // it allows no key at all.
  std::optional<std::string> property_names_regex(dom::element schema, const std::string& ptr);
  std::optional<int64_t> int_bound(dom::object o, const std::string& ptr, const char* kw);
};

}  // namespace ai00::internal::grammar
