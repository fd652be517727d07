// The per-type parts of the JSON Schema converter (json_schema_impl.h): numbers with bounds,
// strings (JSON and ai00 v1 raw text), arrays and objects, and the generic JSON value rules.
#include <limits>

#include "grammar/json_schema_impl.h"

namespace ai00::internal::grammar {

namespace {

constexpr double kMaxBound = 1e18;  // keeps every digit-range computation inside int64
constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();

// JSON Schema integers are numbers with a zero fractional part (draft 6 on): 1.0 and 1e3 are
// integers. Exact for fractions of zeros and non-negative exponents; a non-zero fraction that an
// exponent cancels (1.5e1) or a negative exponent (100e-2) is refused (docs/grammar.md
// "JSON Schema", approximations).
const char* const kIntegerRegex = "-?(?:0|[1-9][0-9]*)(?:\\.0+)?(?:[eE]\\+?[0-9]+)?";
const char* const kIntegerFraction = "(?:\\.0+)?";  // after a bounded integer's digits
const char* const kNumberRegex = "-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?";

// RFC 3339 / RFC 4122 / RFC 5321 shapes of the `format` values JSON Schema names. None of them
// can produce `"`, `\`, `<` or a control character, so they serve JSON and raw text alike.
std::optional<std::string> known_format(std::string_view f) {
  const std::string date = "[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])";
  const std::string time =
      "(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?"
      "(?:[Zz]|[+\\x{2D}](?:[01][0-9]|2[0-3]):[0-5][0-9])";
  if (f == "date") return date;
  if (f == "time") return time;
  if (f == "date-time") return date + "[Tt]" + time;
  if (f == "uuid")
    return "[0-9a-fA-F]{8}\\x{2D}[0-9a-fA-F]{4}\\x{2D}[0-9a-fA-F]{4}\\x{2D}[0-9a-fA-F]{4}"
           "\\x{2D}[0-9a-fA-F]{12}";
  if (f == "ipv4") {
    const std::string octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])";
    return "(?:" + octet + "\\.){3}" + octet;
  }
  if (f == "email") {
    std::string local = "[A-Za-z0-9";
    for (char c : std::string_view(".!#$%&'*+/=?^_`{|}~-")) local += regex_code_point(c);
    local += "]+";
    const std::string label = "[A-Za-z0-9](?:[A-Za-z0-9\\x{2D}]*[A-Za-z0-9])?";
    return local + "@" + label + "(?:\\." + label + ")*";
  }
  return std::nullopt;
}

}  // namespace

// ---- numbers ---------------------------------------------------------------------------------

struct Bounds {
  std::optional<double> lo, hi;
  bool lo_excl = false, hi_excl = false;
};

static Bounds read_bounds(dom::object o, const std::string& ptr) {
  Bounds b;
  auto read = [&](const char* kw) -> std::optional<double> {
    auto r = o[kw];
    if (r.error()) return std::nullopt;
    if (r.value_unsafe().type() == dom::element_type::BOOL) return std::nullopt;
    auto v = SchemaConverter::Impl::number_of(r.value_unsafe());
    if (!v) throw SchemaError{"`" + std::string(kw) + "` must be a number at " + ptr + "/" + kw};
    if (std::fabs(*v) > kMaxBound)
      throw SchemaError{"`" + std::string(kw) + "` beyond 1e18 is not supported at " + ptr + "/" +
                        kw};
    return v;
  };
  b.lo = read("minimum");
  b.hi = read("maximum");
  // draft 4: exclusiveMinimum/Maximum are booleans qualifying minimum/maximum.
  bool flag;
  if (!o["exclusiveMinimum"].get_bool().get(flag)) b.lo_excl = flag && b.lo;
  if (!o["exclusiveMaximum"].get_bool().get(flag)) b.hi_excl = flag && b.hi;
  if (auto v = read("exclusiveMinimum"); v && (!b.lo || *v >= *b.lo)) b.lo = v, b.lo_excl = true;
  if (auto v = read("exclusiveMaximum"); v && (!b.hi || *v <= *b.hi)) b.hi = v, b.hi_excl = true;
  return b;
}

std::string SchemaConverter::Impl::integer_expr(dom::object o, const std::string& ptr) {
  const Bounds b = read_bounds(o, ptr);
  if (!b.lo && !b.hi) return kbnf_regex(kIntegerRegex);
  std::optional<int64_t> lo, hi;
  if (b.lo) lo = static_cast<int64_t>(b.lo_excl ? std::floor(*b.lo) + 1 : std::ceil(*b.lo));
  if (b.hi) hi = static_cast<int64_t>(b.hi_excl ? std::ceil(*b.hi) - 1 : std::floor(*b.hi));
  auto re = integer_range_regex(lo, hi);
  if (!re) throw SchemaError{"no integer satisfies the bounds at " + show(ptr)};
  return kbnf_regex("(?:" + *re + ")" + kIntegerFraction);
}

std::string SchemaConverter::Impl::number_expr(dom::object o, const std::string& ptr) {
  const Bounds b = read_bounds(o, ptr);
  // Bounded numbers are generated without an exponent (docs/grammar.md "JSON Schema").
  if (!b.lo && !b.hi) return kbnf_regex(kNumberRegex);
  std::optional<NumberBound> lo, hi;
  if (b.lo) lo = NumberBound{*b.lo, b.lo_excl};
  if (b.hi) hi = NumberBound{*b.hi, b.hi_excl};
  auto re = number_range_regex(lo, hi);
  if (!re) throw SchemaError{"no number satisfies the bounds at " + show(ptr)};
  return kbnf_regex(*re);
}

// ---- strings ---------------------------------------------------------------------------------

std::optional<std::pair<uint64_t, uint64_t>> SchemaConverter::Impl::length_bounds(
    dom::object o, const std::string& ptr) {
  auto read = [&](const char* kw) -> std::optional<uint64_t> {
    auto r = o[kw];
    if (r.error()) return std::nullopt;
    auto v = number_of(r.value_unsafe());
    if (!v || *v < 0 || *v != std::floor(*v) || *v > 1e6)
      throw SchemaError{"`" + std::string(kw) + "` must be an integer in [0, 1e6] at " + ptr + "/" +
                        kw};
    return static_cast<uint64_t>(*v);
  };
  auto lo = read("minLength"), hi = read("maxLength");
  if (!lo && !hi) return std::nullopt;
  if (lo && hi && *lo > *hi) throw SchemaError{"minLength > maxLength at " + show(ptr)};
  return std::make_pair(lo.value_or(0), hi.value_or(kUnbounded));
}

std::optional<std::string> SchemaConverter::Impl::format_regex(dom::object o,
                                                               const std::string& ptr) {
  auto r = o["format"];
  if (r.error()) return std::nullopt;
  std::string_view f;
  if (r.get_string().get(f)) throw SchemaError{"`format` must be a string at " + ptr + "/format"};
  auto re = known_format(f);
  if (!re) unsupported("unsupported format `" + std::string(f) + "`", ptr + "/format");
  return re;
}

static std::string repeat_suffix(uint64_t lo, uint64_t hi) {
  if (hi == kUnbounded) return lo == 0 ? "*" : "{" + std::to_string(lo) + ",}";
  if (lo == hi) return "{" + std::to_string(lo) + "}";
  return "{" + std::to_string(lo) + "," + std::to_string(hi) + "}";
}

// The constraint regex of a string schema over the encoded text (nullopt: unconstrained).
// `enc` decides how characters are written; format/pattern/length combinations that a single
// regex cannot intersect are reported (and, in lenient mode, the later keyword is ignored).
static std::optional<std::string> string_constraint(SchemaConverter::Impl& c, dom::object o,
                                                    const std::string& ptr, StringEncoding enc,
                                                    StringEncoding length_enc) {
  auto fmt = c.format_regex(o, ptr);
  std::string_view pattern;
  const bool has_pattern = !o["pattern"].error();
  if (has_pattern && o["pattern"].get_string().get(pattern))
    throw SchemaError{"`pattern` must be a string at " + ptr + "/pattern"};
  auto lengths = c.length_bounds(o, ptr);
  if (fmt) {
    if (has_pattern) c.unsupported("`pattern` together with `format`", ptr + "/pattern");
    if (lengths) c.unsupported("a length limit together with `format`", ptr + "/minLength");
    return fmt;
  }
  if (has_pattern) {
    if (lengths) c.unsupported("a length limit together with `pattern`", ptr + "/maxLength");
    auto re = translate_pattern(pattern, enc);
    if (!re.ok()) {
      c.unsupported(re.error().message, ptr + "/pattern");
    } else {
      return re.value();
    }
  }
  if (lengths)
    return "(?:" + string_unit_regex(length_enc) + ")" +
           repeat_suffix(lengths->first, lengths->second);
  return std::nullopt;
}

std::string SchemaConverter::Impl::json_string_expr(dom::object o, const std::string& ptr) {
  auto re = string_constraint(*this, o, ptr, StringEncoding::json, StringEncoding::json);
  if (re) return kbnf_regex("\"" + *re + "\"");
  return shared_rule("string", "string",
                     kbnf_regex("\"(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
}

std::string SchemaConverter::Impl::raw_string_expr(dom::object o, const std::string& ptr,
                                                   const std::string& term) {
  const std::string term_lit = kbnf_literal(term);
  const std::string free = kbnf_regex(regex_escape(term), RegexKind::complement);
  auto fmt = format_regex(o, ptr);
  const bool has_pattern = !o["pattern"].error();
  auto lengths = length_bounds(o, ptr);
  if (fmt || has_pattern) {
    // A format never produces '<'; a pattern is written without '<' so it cannot run into term.
    auto re =
        string_constraint(*this, o, ptr, StringEncoding::raw_no_lt, StringEncoding::raw_no_lt);
    if (re) return kbnf_regex(*re) + " " + term_lit;
  }
  if (!lengths) return free + "? " + term_lit;
  const uint64_t min = lengths->first, max = lengths->second;
  if (max == 0) return term_lit;
  if (max == kUnbounded) {
    // #ex is non-empty (exact for min 1); the first min-1 characters avoid '<' so term cannot
    // start among them.
    if (min <= 1) return free + (min == 0 ? "? " : " ") + term_lit;
    return kbnf_regex("[^<]{" + std::to_string(min - 1) + "}") + " " + free + " " + term_lit;
  }
  // Bounded: an early-end terminal ends at the first term, so the value before it cannot contain
  // term. One counter keeps its automaton at about |term| x max states. A lower bound m is met
  // by m leading characters other than '<', so term cannot start among them (an exact "does not
  // start with term" costs a counter per prefix of term: 10x the states).
  const std::string any = string_unit_regex(StringEncoding::raw);
  const std::string tail = kbnf_regex(
      any + "{0," + std::to_string(max - min) + "}" + regex_escape(term), RegexKind::early);
  if (min == 0) return tail;
  return kbnf_regex("[^<]{" + std::to_string(min) + "}") + " " + tail;
}

// ---- arrays ----------------------------------------------------------------------------------

std::string SchemaConverter::Impl::array_expr(dom::object o, const std::string& ptr) {
  std::vector<std::string> prefix_rules;
  dom::array prefix;
  if (!o["prefixItems"].error()) {
    if (o["prefixItems"].get_array().get(prefix))
      throw SchemaError{"`prefixItems` must be an array at " + ptr + "/prefixItems"};
    for (size_t i = 0; i < prefix.size(); ++i)
      prefix_rules.push_back(rule_for(ptr + "/prefixItems/" + std::to_string(i), Mode::json, "",
                                      hint_for(ptr) + "_item" + std::to_string(i)));
  }
  std::string extra;  // rule for items after the prefix; empty when none are allowed
  auto items = o["items"];
  if (items.error()) {
    extra = any_expr(Mode::json, "");
  } else if (items.value_unsafe().type() == dom::element_type::BOOL) {
    if (items.value_unsafe().get_bool().value_unsafe()) extra = any_expr(Mode::json, "");
  } else if (items.value_unsafe().type() == dom::element_type::ARRAY) {
    unsupported("`items` as an array (use `prefixItems`)", ptr + "/items");
    extra = any_expr(Mode::json, "");
  } else {
    extra = rule_for(ptr + "/items", Mode::json, "", hint_for(ptr) + "_item");
  }
  auto count = [&](const char* kw, uint64_t fallback) {
    auto r = o[kw];
    if (r.error()) return fallback;
    auto v = number_of(r.value_unsafe());
    if (!v || *v < 0 || *v != std::floor(*v) || *v > 1e6)
      throw SchemaError{"`" + std::string(kw) + "` must be an integer in [0, 1e6] at " + ptr + "/" +
                        kw};
    return static_cast<uint64_t>(*v);
  };
  const uint64_t k = prefix_rules.size();
  const uint64_t min = count("minItems", 0);
  uint64_t max = count("maxItems", kUnbounded);
  if (extra.empty()) max = std::min(max, k);
  if (min > max) throw SchemaError{"no array length satisfies the item limits at " + show(ptr)};
  if (max == 0) return empty_arr();
  auto item = [&](uint64_t p) { return p < k ? prefix_rules[p] : extra; };
  // Items p.. when at least one item precedes them (each starts with a comma).
  std::string tail;
  if (max == kUnbounded) {
    tail = "(" + comma() + " " + extra + ")*";
  }
  const uint64_t p_end = max == kUnbounded ? std::max(min, k) : max;
  int depth = 0;  // nesting of optional groups in `tail`
  for (uint64_t p = p_end; p-- > 1;) {
    const std::string it = comma() + " " + item(p) + (tail.empty() ? "" : " " + tail);
    if (p < min) {
      tail = it;
    } else if (++depth >= 16) {
      // Long optional chains become rules so the grammar text never nests deeply.
      tail = "(" + add_rule(hint_for(ptr) + "_tail", it) + ")?";
      depth = 0;
    } else {
      tail = "(" + it + ")?";
    }
  }
  const std::string body = item(0) + (tail.empty() ? "" : " " + tail);
  const std::string full = lbrack() + " " + body + " " + rbrack();
  return min == 0 ? "(" + empty_arr() + " | " + full + ")" : full;
}

// ---- objects ---------------------------------------------------------------------------------

ObjectShape SchemaConverter::Impl::shape_of(dom::object o, const std::string& ptr) {
  ObjectShape shape;
  auto props = o["properties"];
  if (!props.error()) {
    dom::object po;
    if (props.get_object().get(po))
      throw SchemaError{"`properties` must be an object at " + ptr + "/properties"};
    for (auto f : po) {
      shape.properties.push_back(
          {std::string(f.key), ptr + "/properties/" + pointer_token(f.key), false});
      known.emplace(shape.properties.back().pointer, f.value);
    }
  }
  std::map<std::string_view, size_t> index;  // name -> position (linear in many properties)
  for (size_t i = 0; i < shape.properties.size(); ++i)
    index.emplace(shape.properties[i].name, i);
  auto req = o["required"];
  if (!req.error()) {
    dom::array ra;
    if (req.get_array().get(ra))
      throw SchemaError{"`required` must be an array at " + ptr + "/required"};
    size_t i = 0;
    for (auto e : ra) {
      std::string_view name;
      if (e.get_string().get(name))
        throw SchemaError{"`required` entries must be strings at " + ptr + "/required/" +
                          std::to_string(i)};
      auto at = index.find(name);
      if (at != index.end()) shape.properties[at->second].required = true;
      if (at == index.end())
        unsupported("required property `" + std::string(name) + "` not listed in `properties`",
                    ptr + "/required/" + std::to_string(i));
      ++i;
    }
  }
  auto add = o["additionalProperties"];
  if (add.error()) {
    // Strict by default only next to listed properties: {"type": "object"} alone (seed 002's
    // `arguments`) means any object.
    shape.additional = !opt.strict_properties || props.error();
  } else if (add.value_unsafe().type() == dom::element_type::BOOL) {
    shape.additional = add.value_unsafe().get_bool().value_unsafe();
  } else {
    shape.additional = true;
    shape.additional_pointer = ptr + "/additionalProperties";
  }
  return shape;
}

std::string SchemaConverter::Impl::object_expr(dom::object o, const std::string& ptr) {
  const ObjectShape shape = shape_of(o, ptr);
  std::vector<std::string> kv;
  for (const auto& p : shape.properties) {
    const std::string value = rule_for(p.pointer, Mode::json, "", p.name);
    const std::string key = opt.flexible_whitespace
                                ? kbnf_literal(json_quote(p.name)) + " " + colon()
                                : kbnf_literal(json_quote(p.name) + (opt.compact ? ":" : ": "));
    kv.push_back(key + " " + value);
  }
  std::string add_kv;
  if (shape.additional) {
    const std::string value =
        shape.additional_pointer.empty()
            ? any_expr(Mode::json, "")
            : rule_for(shape.additional_pointer, Mode::json, "", "additional");
    std::string key;
    if (shape.properties.empty()) {
      key = shared_rule("string", "string",
                        kbnf_regex("\"(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
    } else {
      // Additional keys never repeat a listed one (JSON Schema applies additionalProperties only
      // to other names).
      std::vector<std::string> names;
      for (const auto& p : shape.properties) names.push_back(p.name);
      const auto [ended, left] = json_string_excluding_regex(names);
      const std::string tail =
          shared_rule("string_tail", "string_tail",
                      kbnf_regex("(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
      key = "(" + (ended.empty() ? "" : kbnf_regex(ended) + " | ") + kbnf_regex(left) + " " + tail +
            ")";
    }
    add_kv = key + " " + colon() + " " + value;
  }
  const size_t n = kv.size();
  // rest[i]: the properties from i on, each after a comma (something precedes them).
  std::vector<std::string> rest(n + 1);
  rest[n] = add_kv.empty() ? "" : "(" + comma() + " " + add_kv + ")*";
  for (size_t i = n; i-- > 0;) {
    const std::string item = comma() + " " + kv[i];
    const std::string tail = rest[i + 1].empty() ? "" : " " + rest[i + 1];
    rest[i] = (shape.properties[i].required ? item : "(" + item + ")?") + tail;
    // Many properties: name each suffix once, so the first-property alternatives below stay
    // linear in size instead of quadratic.
    if (n > 6) rest[i] = add_rule(hint_for(ptr) + "_rest", rest[i]);
  }
  std::vector<std::string> firsts;
  bool any_required = false;
  for (size_t j = 0; j < n; ++j) {
    firsts.push_back(kv[j] + (rest[j + 1].empty() ? "" : " " + rest[j + 1]));
    if (shape.properties[j].required) {
      any_required = true;
      break;
    }
  }
  if (!any_required && !add_kv.empty()) firsts.push_back(add_kv + " " + rest[n]);
  if (firsts.empty()) return empty_obj();
  const std::string full = lbrace() + " (" + join_alts(firsts) + ") " + rbrace();
  return any_required ? full : "(" + empty_obj() + " | " + full + ")";
}

// ---- any value -------------------------------------------------------------------------------

std::string SchemaConverter::Impl::any_expr(Mode mode, const std::string& term) {
  if (mode == Mode::raw)
    return kbnf_regex(regex_escape(term), RegexKind::complement) + "? " + kbnf_literal(term);
  auto it = memo.find("shared:value");
  if (it != memo.end()) return it->second;
  const std::string value = new_name("value");
  memo["shared:value"] = value;
  const std::string str = shared_rule(
      "string", "string", kbnf_regex("\"(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
  const std::string num = shared_rule("number", "number", kbnf_regex(kNumberRegex));
  const std::string obj = add_rule(
      "object", empty_obj() + " | " + lbrace() + " " + str + " " + colon() + " " + value + " (" +
                    comma() + " " + str + " " + colon() + " " + value + ")* " + rbrace());
  const std::string arr = add_rule("array", empty_arr() + " | " + lbrack() + " " + value + " (" +
                                                comma() + " " + value + ")* " + rbrack());
  rule_lines.push_back(value + " ::= " + obj + " | " + arr + " | " + str + " | " + num + " | " +
                       kbnf_literal("true") + " | " + kbnf_literal("false") + " | " +
                       kbnf_literal("null") + ";");
  return value;
}

}  // namespace ai00::internal::grammar
