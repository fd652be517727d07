// Combining JSON Schemas for the converter (json_schema_impl.h): the conjunction of two schemas
// (allOf, keywords beside anyOf / oneOf, if/then/else) and the negation of a schema (not, the
// `else` branch, exclusive oneOf), written as new schema documents that the converter then
// translates like any other (docs/grammar.md "JSON Schema").
//
// Both work on JSON text built from the parsed schema; `$ref`s inside stay document-absolute, so
// the synthetic documents resolve them against the original root. What cannot be combined
// exactly (two different patterns, a negated pattern, …) throws Unmergeable, which the caller
// reports as unsupported with the JSON pointer.
#include <algorithm>
#include <cmath>
#include <set>

#include "grammar/json_schema_impl.h"

namespace ai00::internal::grammar {

namespace {

const char* const kAllTypes[] = {"null", "boolean", "object", "array", "string", "number"};

std::string text_of(dom::element e) { return simdjson::to_string(e); }

std::string quote(std::string_view s) { return json_quote(s); }

// The set of JSON types a `type` keyword names ("integer" kept apart from "number").
std::set<std::string> type_set(dom::element t) {
  std::set<std::string> out;
  if (t.type() == dom::element_type::STRING) {
    out.emplace(t.get_string().value_unsafe());
  } else if (t.type() == dom::element_type::ARRAY) {
    dom::array arr = t.get_array().value_unsafe();
    for (auto e : arr)
      if (e.type() == dom::element_type::STRING) out.emplace(e.get_string().value_unsafe());
  }
  return out;
}

std::set<std::string> intersect_types(const std::set<std::string>& a,
                                      const std::set<std::string>& b) {
  std::set<std::string> out;
  for (const auto& t : a) {
    if (b.count(t)) out.insert(t);
    if (t == "number" && b.count("integer")) out.insert("integer");
    if (t == "integer" && b.count("number")) out.insert("integer");
  }
  return out;
}

std::string types_text(const std::set<std::string>& types) {
  std::string out = "[";
  bool first = true;
  for (const auto& t : types) {
    out += (first ? "" : ",") + quote(t);
    first = false;
  }
  return out + "]";
}

const std::set<std::string_view> kLower = {"minimum", "exclusiveMinimum", "minLength", "minItems",
                                           "minProperties"};
const std::set<std::string_view> kUpper = {"maximum", "exclusiveMaximum", "maxLength", "maxItems",
                                           "maxProperties"};

}  // namespace

// `then` / `else` without `if` beside them, and `if` without either, constrain nothing (draft
// 2020-12 §10.2.2): dropped before a schema is translated or combined, so that a `then` in one
// allOf entry never meets an `if` of another.
dom::element SchemaConverter::Impl::without_lone_conditionals(dom::element s) {
  if (s.type() != dom::element_type::OBJECT) return s;
  dom::object o = s.get_object().value_unsafe();
  const bool has_if = !o["if"].error(), has_branch = !o["then"].error() || !o["else"].error();
  if (has_if == has_branch) return s;
  std::vector<std::pair<std::string, std::string>> kept;
  for (auto f : o)
    if (has_if ? f.key != "if" : (f.key != "then" && f.key != "else"))
      kept.emplace_back(std::string(f.key), text_of(f.value));
  return synthetic_element(object_text(kept));
}

// ---- conjunction -------------------------------------------------------------------------------

std::string SchemaConverter::Impl::conjoin(dom::element a, dom::element b, int depth) {
  if (depth > 16) throw Unmergeable{"schemas combined more than 16 levels deep"};
  a = without_lone_conditionals(a);
  b = without_lone_conditionals(b);
  if (a.type() == dom::element_type::BOOL)
    return a.get_bool().value_unsafe() ? text_of(b) : "false";
  if (b.type() == dom::element_type::BOOL)
    return b.get_bool().value_unsafe() ? text_of(a) : "false";
  if (a.type() != dom::element_type::OBJECT || b.type() != dom::element_type::OBJECT)
    throw Unmergeable{"a schema must be an object or a boolean"};
  dom::object oa = a.get_object().value_unsafe(), ob = b.get_object().value_unsafe();
  // References are followed first (their targets combine like inline schemas).
  for (dom::object* side : {&oa, &ob}) {
    std::string_view ref;
    if ((*side)["$ref"].get_string().get(ref)) continue;
    dom::element target = follow_ref(ref);
    std::vector<std::pair<std::string, std::string>> rest;
    for (auto f : *side)
      if (f.key != "$ref") rest.emplace_back(std::string(f.key), text_of(f.value));
    const std::string rest_text = object_text(rest);
    dom::element rest_elem = synthetic_element(rest_text);
    dom::element other = side == &oa ? b : a;
    const std::string merged_side = conjoin(target, rest_elem, depth + 1);
    return conjoin(synthetic_element(merged_side), other, depth + 1);
  }
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string_view> done;
  auto has = [](dom::object o, std::string_view k) { return !o[k].error(); };
  std::vector<std::string> all_of;  // conjuncts kept apart (both sides have the keyword)
  for (auto fa : oa) {
    const std::string_view k = fa.key;
    if (k == "$defs" || k == "definitions") continue;
    done.insert(k);
    if (!has(ob, k)) {
      out.emplace_back(std::string(k), text_of(fa.value));
      continue;
    }
    dom::element va = fa.value, vb = ob[k].value_unsafe();
    if (text_of(va) == text_of(vb) && k != "anyOf" && k != "oneOf") {
      out.emplace_back(std::string(k), text_of(va));
      continue;
    }
    if (k == "type") {
      const auto t = intersect_types(type_set(va), type_set(vb));
      if (t.empty()) return "false";
      out.emplace_back("type", types_text(t));
    } else if (kLower.count(k) || kUpper.count(k)) {
      auto x = number_of(va), y = number_of(vb);
      if (!x || !y) throw Unmergeable{"`" + std::string(k) + "` values must be numbers"};
      const double v = kLower.count(k) ? std::max(*x, *y) : std::min(*x, *y);
      out.emplace_back(std::string(k), *x == v ? text_of(va) : text_of(vb));
    } else if (k == "required") {
      std::set<std::string> names;
      std::string arr = "[";
      for (dom::element side : {va, vb}) {
        dom::array ra;
        if (side.get_array().get(ra)) throw Unmergeable{"`required` must be an array"};
        for (auto e : ra) {
          std::string_view n;
          if (e.get_string().get(n)) throw Unmergeable{"`required` entries must be strings"};
          if (names.emplace(n).second) arr += (arr.size() > 1 ? "," : "") + quote(n);
        }
      }
      out.emplace_back("required", arr + "]");
    } else if (k == "properties" || k == "patternProperties" || k == "dependentRequired") {
      dom::object pa, pb;
      if (va.get_object().get(pa) || vb.get_object().get(pb))
        throw Unmergeable{"`" + std::string(k) + "` must be an object"};
      std::vector<std::pair<std::string, std::string>> props;
      for (auto f : pa) {
        auto other = pb[f.key];
        if (other.error()) {
          props.emplace_back(std::string(f.key), text_of(f.value));
        } else if (k == "dependentRequired") {
          throw Unmergeable{"`dependentRequired` of one name on both sides"};
        } else {
          props.emplace_back(std::string(f.key), conjoin(f.value, other.value_unsafe(), depth + 1));
        }
      }
      for (auto f : pb)
        if (pa[f.key].error()) props.emplace_back(std::string(f.key), text_of(f.value));
      out.emplace_back(std::string(k), object_text(props));
    } else if (k == "items" || k == "additionalProperties" || k == "propertyNames") {
      out.emplace_back(std::string(k), conjoin(va, vb, depth + 1));
    } else if (k == "enum" || k == "const") {
      // Values of both (compared as canonical JSON text).
      auto values = [&](dom::element v, bool is_const) {
        std::vector<dom::element> vs;
        if (is_const) {
          vs.push_back(v);
        } else {
          dom::array arr;
          if (v.get_array().get(arr)) throw Unmergeable{"`enum` must be an array"};
          for (auto e : arr) vs.push_back(e);
        }
        return vs;
      };
      std::set<std::string> right;
      for (auto v : values(vb, k == "const")) right.insert(value_text(v));
      std::string arr = "[";
      for (auto v : values(va, k == "const"))
        if (right.count(value_text(v))) arr += (arr.size() > 1 ? "," : "") + text_of(v);
      if (arr.size() == 1) return "false";
      out.emplace_back("enum", arr + "]");
    } else if (k == "uniqueItems") {
      bool x = false, y = false;
      if (va.get_bool().get(x)) x = false;
      if (vb.get_bool().get(y)) y = false;
      out.emplace_back("uniqueItems", x || y ? "true" : "false");
    } else if (k == "multipleOf") {
      auto x = number_of(va), y = number_of(vb);
      if (x && y && *x == std::floor(*x) && *y == std::floor(*y) && *x < 1e9 && *y < 1e9) {
        const auto p = static_cast<uint64_t>(*x), q = static_cast<uint64_t>(*y);
        uint64_t g = p, h = q;
        while (h) std::swap(g, h), h %= g;
        out.emplace_back("multipleOf", std::to_string(p / g * q));
      } else {
        throw Unmergeable{"two different `multipleOf` steps that are not integers"};
      }
    } else if (k == "anyOf" || k == "oneOf" || k == "allOf" || k == "not" || k == "if" ||
               k == "then" || k == "else") {
      // Both sides have a combinator: keep one side's, the other becomes a conjunct.
      out.emplace_back(std::string(k), text_of(va));
      all_of.push_back(object_text({{std::string(k), text_of(vb)}}));
    } else if (is_annotation(k)) {
      out.emplace_back(std::string(k), text_of(va));
    } else {
      throw Unmergeable{"two different `" + std::string(k) + "` values"};
    }
  }
  for (auto fb : ob) {
    const std::string_view k = fb.key;
    if (done.count(k) || k == "$defs" || k == "definitions") continue;
    out.emplace_back(std::string(k), text_of(fb.value));
  }
  // additionalProperties applies to names outside ITS side's properties: a property only the
  // other side lists must also satisfy it.
  for (auto [x, y] : {std::pair{oa, ob}, std::pair{ob, oa}}) {
    auto add = x["additionalProperties"];
    if (add.error() || (add.value_unsafe().type() == dom::element_type::BOOL &&
                        add.value_unsafe().get_bool().value_unsafe()))
      continue;
    if (!x["patternProperties"].error() || !y["patternProperties"].error())
      throw Unmergeable{"`additionalProperties` combined with `patternProperties`"};
    dom::object yp;
    if (y["properties"].get_object().get(yp)) continue;
    dom::object xp;
    const bool x_has = !x["properties"].get_object().get(xp);
    for (auto& [key, value] : out) {
      if (key != "properties") continue;
      std::vector<std::pair<std::string, std::string>> props;
      dom::element merged_props = synthetic_element(value);
      dom::object mp = merged_props.get_object().value_unsafe();
      for (auto f : mp) {
        const bool in_x = x_has && !xp[f.key].error();
        const bool in_y = !yp[f.key].error();
        props.emplace_back(std::string(f.key), !in_x && in_y
                                                   ? conjoin(f.value, add.value_unsafe(), depth + 1)
                                                   : text_of(f.value));
      }
      value = object_text(props);
    }
  }
  if (!all_of.empty()) {
    // One `allOf` key: a kept side's own allOf takes the other conjuncts too (a second key of the
    // same name would be lost when the text is parsed again).
    auto kept =
        std::find_if(out.begin(), out.end(), [](const auto& kv) { return kv.first == "allOf"; });
    std::string arr = kept == out.end() ? "[" : kept->second.substr(0, kept->second.size() - 1);
    for (size_t i = 0; i < all_of.size(); ++i) arr += (i || arr.size() > 1 ? "," : "") + all_of[i];
    if (kept == out.end())
      out.emplace_back("allOf", arr + "]");
    else
      kept->second = arr + "]";
  }
  return object_text(out);
}

// Whether no value can satisfy two of the schemas (their `type`s share nothing).
static bool types_disjoint(const std::vector<dom::element>& es) {
  std::vector<std::set<std::string>> types;
  for (auto e : es) {
    std::set<std::string> t;
    if (e.type() == dom::element_type::OBJECT && !e["type"].error())
      t = type_set(e["type"].value_unsafe());
    if (t.empty()) t = {"null", "boolean", "object", "array", "string", "number", "integer"};
    if (t.count("number")) t.insert("integer");
    types.push_back(t);
  }
  for (size_t i = 0; i < types.size(); ++i)
    for (size_t j = i + 1; j < types.size(); ++j)
      for (const auto& t : types[i])
        if (types[j].count(t)) return false;
  return true;
}

// ---- negation ----------------------------------------------------------------------------------

std::string SchemaConverter::Impl::negate(dom::element s, int depth) {
  s = without_lone_conditionals(s);
  if (depth > 16) throw Unmergeable{"schemas negated more than 16 levels deep"};
  if (s.type() == dom::element_type::BOOL) return s.get_bool().value_unsafe() ? "false" : "true";
  if (s.type() != dom::element_type::OBJECT)
    throw Unmergeable{"a schema must be an object or a boolean"};
  dom::object o = s.get_object().value_unsafe();
  std::string_view ref;
  if (!o["$ref"].get_string().get(ref)) {
    dom::object rest_check = o;
    size_t n = 0;
    for (auto f : rest_check) n += is_annotation(f.key) ? 0 : 1;
    if (n != 1) throw Unmergeable{"`$ref` with sibling keywords under a negation"};
    return negate(follow_ref(ref), depth + 1);
  }
  // not (A and B and ...) = not A or not B or ...: one alternative per keyword, each saying the
  // value has the keyword's type and violates it.
  std::vector<std::string> alts;
  const std::set<std::string> declared =
      o["type"].error() ? std::set<std::string>{} : type_set(o["type"].value_unsafe());
  auto typed = [&](const char* type, std::vector<std::pair<std::string, std::string>> kw) {
    kw.insert(kw.begin(), {"type", quote(type)});
    return object_text(kw);
  };
  for (auto f : o) {
    const std::string_view k = f.key;
    const dom::element v = f.value;
    if (is_annotation(k)) continue;
    if (k == "type") {
      std::set<std::string> others;
      for (const char* t : kAllTypes) {
        const bool named = declared.count(t) > 0;
        if (std::string_view(t) == "number" && !named && declared.count("integer")) {
          // number but not integer: a number with a non-zero fraction
          alts.push_back(object_text({{"type", "\"number\""}, {kFractionKeyword, "true"}}));
          continue;
        }
        if (!named) others.insert(t);
      }
      if (!others.empty()) alts.push_back(object_text({{"type", types_text(others)}}));
    } else if (k == "minimum" || k == "exclusiveMinimum" || k == "maximum" ||
               k == "exclusiveMaximum") {
      if (v.type() == dom::element_type::BOOL) continue;  // draft-4 flag: with its bound
      const char* flipped = k == "minimum"            ? "exclusiveMaximum"
                            : k == "exclusiveMinimum" ? "maximum"
                            : k == "maximum"          ? "exclusiveMinimum"
                                                      : "minimum";
      alts.push_back(typed("number", {{flipped, text_of(v)}}));
    } else if (k == "minLength" || k == "minItems" || k == "minProperties") {
      auto n = number_of(v);
      if (!n) throw Unmergeable{"`" + std::string(k) + "` must be a number"};
      if (*n < 1) continue;  // always true: its negation adds nothing
      const char* type = k == "minLength" ? "string" : k == "minItems" ? "array" : "object";
      const std::string upper = k == "minLength"  ? "maxLength"
                                : k == "minItems" ? "maxItems"
                                                  : "maxProperties";
      alts.push_back(typed(type, {{upper, std::to_string(static_cast<uint64_t>(*n) - 1)}}));
    } else if (k == "maxLength" || k == "maxItems" || k == "maxProperties") {
      auto n = number_of(v);
      if (!n) throw Unmergeable{"`" + std::string(k) + "` must be a number"};
      const char* type = k == "maxLength" ? "string" : k == "maxItems" ? "array" : "object";
      const std::string lower = k == "maxLength"  ? "minLength"
                                : k == "maxItems" ? "minItems"
                                                  : "minProperties";
      alts.push_back(typed(type, {{lower, std::to_string(static_cast<uint64_t>(*n) + 1)}}));
    } else if (k == "required") {
      dom::array ra;
      if (v.get_array().get(ra)) throw Unmergeable{"`required` must be an array"};
      for (auto e : ra) {
        std::string_view n;
        if (e.get_string().get(n)) throw Unmergeable{"`required` entries must be strings"};
        alts.push_back(typed("object", {{"properties", object_text({{std::string(n), "false"}})}}));
      }
    } else if (k == "properties") {
      dom::object po;
      if (v.get_object().get(po)) throw Unmergeable{"`properties` must be an object"};
      for (auto p : po) {
        const std::string neg = negate(p.value, depth + 1);
        if (neg == "false") continue;
        alts.push_back(typed("object", {{"required", "[" + quote(p.key) + "]"},
                                        {"properties", object_text({{std::string(p.key), neg}})}}));
      }
    } else if (k == "items" && v.type() != dom::element_type::ARRAY && o["prefixItems"].error()) {
      // Some item violates the item schema: [..., bad, ...] needs "contains".
      const std::string neg = negate(v, depth + 1);
      if (neg != "false")
        throw Unmergeable{"the negation of `items` (an array with one bad item anywhere)"};
    } else if (k == "enum" || k == "const") {
      std::vector<dom::element> vs;
      if (k == "const") {
        vs.push_back(v);
      } else {
        dom::array arr;
        if (v.get_array().get(arr)) throw Unmergeable{"`enum` must be an array"};
        for (auto e : arr) vs.push_back(e);
      }
      // Every type but those of the listed values, and per listed type the other values.
      std::set<std::string> listed;
      std::string strings = "[";
      bool has_true = false, has_false = false;
      for (auto e : vs) {
        switch (e.type()) {
          case dom::element_type::STRING:
            listed.insert("string");
            strings += (strings.size() > 1 ? "," : "") + text_of(e);
            break;
          case dom::element_type::NULL_VALUE:
            listed.insert("null");
            break;
          case dom::element_type::BOOL:
            listed.insert("boolean");
            (e.get_bool().value_unsafe() ? has_true : has_false) = true;
            break;
          default:
            throw Unmergeable{"the negation of a non-string `" + std::string(k) + "` value"};
        }
      }
      std::set<std::string> others;
      for (const char* t : kAllTypes)
        if (!listed.count(t)) others.insert(t);
      if (!others.empty()) alts.push_back(object_text({{"type", types_text(others)}}));
      if (listed.count("string"))
        alts.push_back(object_text({{"type", "\"string\""}, {kNotEnumKeyword, strings + "]"}}));
      if (listed.count("boolean") && !(has_true && has_false))
        alts.push_back(has_true ? "{\"const\":false}" : "{\"const\":true}");
    } else if (k == "not") {
      alts.push_back(text_of(v));
    } else if (k == "anyOf") {
      dom::array arr;
      if (v.get_array().get(arr)) throw Unmergeable{"`anyOf` must be an array"};
      std::string acc = "true";
      for (auto e : arr)
        acc = conjoin(synthetic_element(acc), synthetic_element(negate(e, depth + 1)), depth + 1);
      alts.push_back(acc);
    } else if (k == "allOf") {
      dom::array arr;
      if (v.get_array().get(arr)) throw Unmergeable{"`allOf` must be an array"};
      for (auto e : arr) alts.push_back(negate(e, depth + 1));
    } else if (k == "additionalProperties" || k == "$defs" || k == "definitions") {
      if (k == "additionalProperties") throw Unmergeable{"the negation of `additionalProperties`"};
    } else {
      throw Unmergeable{"the negation of `" + std::string(k) + "`"};
    }
  }
  alts.erase(std::remove(alts.begin(), alts.end(), "false"), alts.end());
  return any_of_text(alts);
}

std::vector<std::string> SchemaConverter::Impl::exclusive_branches(dom::array arr,
                                                                   const std::string& ptr) {
  std::vector<dom::element> es;
  for (auto e : arr) es.push_back(e);
  std::vector<std::string> out;
  if (types_disjoint(es)) {
    for (auto e : es) out.push_back(simdjson::to_string(e));
    return out;  // anyOf is exact already
  }
  try {
    std::vector<std::string> negs;
    for (auto e : es) negs.push_back(negate(e));
    for (size_t i = 0; i < es.size(); ++i) {
      std::string b = simdjson::to_string(es[i]);
      for (size_t j = 0; j < es.size() && b != "false"; ++j)
        if (j != i) b = conjoin(synthetic_element(b), synthetic_element(negs[j]));
      out.push_back(b);
    }
    return out;
  } catch (const Unmergeable&) {
    out.clear();
  }
  warnings.push_back("approximated `oneOf` at " + ptr +
                     ": a value valid under several branches is accepted (a branch cannot be "
                     "negated)");
  for (auto e : es) out.push_back(simdjson::to_string(e));
  return out;
}

// ---- documents ---------------------------------------------------------------------------------

dom::element SchemaConverter::Impl::synthetic_element(const std::string& json) {
  synthetic.push_back(std::make_unique<dom::parser>());
  auto r = synthetic.back()->parse(json);
  if (r.error()) throw SchemaError{"internal: a combined schema is not JSON: " + json};
  synthetic_roots.push_back(r.value_unsafe());
  return synthetic_roots.back();
}

std::string SchemaConverter::Impl::synthetic_pointer(const std::string& json,
                                                     const std::string& origin) {
  synthetic_element(json);
  const std::string ptr = "@" + std::to_string(synthetic.size() - 1);
  synthetic_origin[ptr] = origin;
  return ptr;
}

dom::element SchemaConverter::Impl::follow_ref(std::string_view ref) {
  if (ref.empty() || ref[0] != '#') throw Unmergeable{"a non-local `$ref`"};
  return resolve(decode_fragment(ref.substr(1)), "$ref");
}

}  // namespace ai00::internal::grammar
