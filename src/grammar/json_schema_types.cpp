// The per-type parts of the JSON Schema converter (json_schema_impl.h): numbers with bounds,
// strings (JSON and ai00 v1 raw text), arrays and objects, and the generic JSON value rules.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
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
const char* const kIntegerFraction = "(?:\\.0+)?";             // after a bounded integer's digits
const char* const kPlainIntegerRegex = "-?(?:0|[1-9][0-9]*)";  // JsonSchemaOptions::plain_integers
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

// ---- multipleOf ------------------------------------------------------------------------------

namespace {

// The step as p / 10^d with p a positive integer (shortest decimal that reads back as `m`).
std::optional<std::pair<uint64_t, int>> decimal_step(double m) {
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, m);
    if (std::strtod(buf, nullptr) == m) break;
  }
  // buf = "D.DDDDe[+-]XX": digits and exponent.
  std::string digits;
  const char* e = std::strchr(buf, 'e');
  for (const char* c = buf; c < e; ++c)
    if (*c >= '0' && *c <= '9') digits += *c;
  int exp10 = std::atoi(e + 1) - static_cast<int>(digits.size()) + 1;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back(), ++exp10;
  uint64_t p = std::stoull(digits);
  for (; exp10 > 0; --exp10) {
    if (p > 1000000000ull) return std::nullopt;
    p *= 10;
  }
  return std::make_pair(p, -exp10);
}

}  // namespace

// Numbers that are multiples of the step p/10^d, written without exponent: a left-linear grammar
// over the remainder of (value * 10^d) mod p, digit by digit (exact). `integer_only`: the
// fraction is zeros; `non_negative`: no minus sign (minimum 0).
std::string SchemaConverter::Impl::multiple_of_rules(uint64_t p, int d, bool integer_only,
                                                     bool non_negative) {
  // Plain integers (JsonSchemaOptions::plain_integers): no fraction at all, not even zeros.
  const bool plain = integer_only && opt.plain_integers;
  const std::string key = "multipleOf:" + std::to_string(p) + "/" + std::to_string(d) +
                          (plain          ? "p"
                           : integer_only ? "i"
                                          : "n") +
                          (non_negative ? "+" : "");
  auto memo_it = memo.find("shared:" + key);
  if (memo_it != memo.end()) return memo_it->second;
  const std::string hint = "multiple" + std::to_string(p);
  auto digit_class = [](const std::vector<int>& ds) {
    if (ds.size() == 1) return kbnf_literal(std::string(1, static_cast<char>('0' + ds[0])));
    std::string c = "[";
    for (int x : ds) c += static_cast<char>('0' + x);
    return kbnf_regex(c + "]");
  };
  // I[r]: integer parts with value = r (mod p).
  std::vector<std::string> int_rule(p), int_body(p);
  for (uint64_t r = 0; r < p; ++r) int_rule[r] = new_name(hint + "_int");
  for (int first = 1; first <= 9; ++first)
    int_body[first % p] += (int_body[first % p].empty() ? "" : " | ") +
                           kbnf_literal(std::string(1, static_cast<char>('0' + first)));
  for (uint64_t q = 0; q < p; ++q) {
    std::map<uint64_t, std::vector<int>> by_target;
    for (int x = 0; x <= 9; ++x) by_target[(10 * q + x) % p].push_back(x);
    for (const auto& [r, ds] : by_target)
      int_body[r] += (int_body[r].empty() ? "" : " | ") + int_rule[q] + " " + digit_class(ds);
  }
  for (uint64_t r = 0; r < p; ++r) rule_lines.push_back(int_rule[r] + " ::= " + int_body[r] + ";");
  // Whole integer parts: the rules above (no leading zero), and a lone "0" with residue 0.
  std::vector<std::string> part(int_rule);
  part[0] = add_rule(hint + "_int0", int_rule[0] + " | " + kbnf_literal("0"));
  // pow10 residues for the padding check: r * 10^k mod p.
  auto pad_ok = [&](uint64_t r, int k) {
    for (int i = 0; i < k; ++i) r = (r * 10) % p;
    return r == 0;
  };
  std::vector<std::string> ends;
  for (uint64_t r = 0; r < p; ++r)
    if (pad_ok(r, d))
      ends.push_back(part[r] + (d == 0 && !plain ? " " + kbnf_regex("(?:\\.0+)?") : ""));
  if (d > 0 && !plain) {
    // F[j][r]: integer part, '.', j fraction digits, residue r.
    std::vector<std::vector<std::string>> frac(d + 1, std::vector<std::string>(p));
    for (int j = 1; j <= d; ++j)
      for (uint64_t r = 0; r < p; ++r) frac[j][r] = new_name(hint + "_frac");
    std::vector<std::vector<std::string>> body(d + 1, std::vector<std::string>(p));
    for (int j = 0; j < d; ++j)
      for (uint64_t q = 0; q < p; ++q) {
        if (j > 0 && body[j][q].empty()) continue;  // no such state
        const std::string from = j == 0 ? part[q] + " " + kbnf_literal(".") : frac[j][q];
        std::map<uint64_t, std::vector<int>> by_target;
        for (int x = 0; x <= (integer_only ? 0 : 9); ++x) by_target[(10 * q + x) % p].push_back(x);
        for (const auto& [r, ds] : by_target)
          body[j + 1][r] += (body[j + 1][r].empty() ? "" : " | ") + from + " " + digit_class(ds);
      }
    for (int j = 1; j <= d; ++j)
      for (uint64_t r = 0; r < p; ++r) {
        if (body[j][r].empty()) continue;
        rule_lines.push_back(frac[j][r] + " ::= " + body[j][r] + ";");
        if (pad_ok(r, d - j)) ends.push_back(frac[j][r] + (j == d ? " " + kbnf_regex("0*") : ""));
      }
  }
  const std::string value = new_name(hint);
  rule_lines.push_back(value + " ::= " + join_alts(ends) + ";");
  const std::string name =
      add_rule(hint + "_num", (non_negative ? "" : kbnf_regex("-?") + " ") + value);
  memo["shared:" + key] = name;
  return name;
}

std::string SchemaConverter::Impl::multiple_of_expr(dom::object o, const std::string& ptr,
                                                    bool integer_only) {
  auto r = o["multipleOf"];
  auto m = number_of(r.value_unsafe());
  if (!m || !(*m > 0) || !std::isfinite(*m))
    throw SchemaError{"`multipleOf` must be a number > 0 at " + ptr + "/multipleOf"};
  const auto step = decimal_step(*m);
  if (!step || step->first * static_cast<uint64_t>(step->second + 1) > 2000) {
    unsupported("`multipleOf` " + simdjson::to_string(r.value_unsafe()) +
                    " (more than 2000 remainder states; steps p/10^d with p*(d+1) <= 2000 are "
                    "exact)",
                ptr + "/multipleOf");
    return "";
  }
  const Bounds b = read_bounds(o, ptr);
  const auto [p, d] = *step;
  if (!b.lo && !b.hi) return multiple_of_rules(p, d, integer_only, false);
  // Bounded: the multiples in range, listed (at most 4096), or the sign alone for minimum 0.
  if (b.lo && *b.lo == 0 && !b.lo_excl && !b.hi) return multiple_of_rules(p, d, integer_only, true);
  if (b.lo && b.hi) {
    const double scale = std::pow(10.0, d);
    const double lo_k = std::ceil(*b.lo * scale / static_cast<double>(p) - 1e-9);
    const double hi_k = std::floor(*b.hi * scale / static_cast<double>(p) + 1e-9);
    if (hi_k - lo_k < 4096) {
      std::vector<std::string> alts;
      for (double k = lo_k; k <= hi_k; ++k) {
        const long double v = static_cast<long double>(k) * p;  // value * 10^d
        const auto iv = static_cast<int64_t>(v);
        // Exclusive bounds drop the end points.
        const double value = static_cast<double>(iv) / scale;
        if ((b.lo_excl && value <= *b.lo) || (b.hi_excl && value >= *b.hi)) continue;
        if (value < *b.lo || value > *b.hi) continue;
        std::string text = std::to_string(iv < 0 ? -iv : iv);
        if (d > 0) {
          if (text.size() <= static_cast<size_t>(d)) text.insert(0, d + 1 - text.size(), '0');
          text.insert(text.size() - d, ".");
          while (text.back() == '0') text.pop_back();
          if (text.back() == '.') text.pop_back();
        }
        const bool is_int = text.find('.') == std::string::npos;
        if (integer_only && !is_int) continue;
        std::string re = (iv < 0 ? "-" : iv == 0 ? "-?" : "") + regex_escape(text);
        if (!(integer_only && opt.plain_integers)) re += is_int ? "(?:\\.0+)?" : "0*";
        alts.push_back(re);
      }
      if (alts.empty())
        throw SchemaError{"no multiple of `multipleOf` lies within the bounds at " + show(ptr)};
      std::string re;
      for (const auto& a : alts) re += (re.empty() ? "" : "|") + a;
      return kbnf_regex("(?:" + re + ")");
    }
  }
  unsupported("`multipleOf` together with bounds that admit more than 4096 multiples",
              ptr + "/multipleOf");
  return "";
}

std::string SchemaConverter::Impl::integer_expr(dom::object o, const std::string& ptr) {
  if (!o["multipleOf"].error()) {
    std::string e = multiple_of_expr(o, ptr, true);
    if (!e.empty()) return e;
  }
  const Bounds b = read_bounds(o, ptr);
  if (!b.lo && !b.hi) return kbnf_regex(opt.plain_integers ? kPlainIntegerRegex : kIntegerRegex);
  std::optional<int64_t> lo, hi;
  if (b.lo) lo = static_cast<int64_t>(b.lo_excl ? std::floor(*b.lo) + 1 : std::ceil(*b.lo));
  if (b.hi) hi = static_cast<int64_t>(b.hi_excl ? std::ceil(*b.hi) - 1 : std::floor(*b.hi));
  auto re = integer_range_regex(lo, hi);
  if (!re) throw SchemaError{"no integer satisfies the bounds at " + show(ptr)};
  return kbnf_regex("(?:" + *re + ")" + (opt.plain_integers ? "" : kIntegerFraction));
}

std::string SchemaConverter::Impl::number_expr(dom::object o, const std::string& ptr) {
  if (!o[kFractionKeyword].error()) {
    // A number that is not an integer (a negated `type: integer`): a non-zero fraction digit and
    // no exponent beyond what keeps it fractional is not tracked, so exponents are not offered.
    for (const char* kw :
         {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
      if (!o[kw].error())
        unsupported("`" + std::string(kw) + "` on a number that must not be an integer",
                    ptr + "/" + kw);
    return kbnf_regex("-?(?:0|[1-9][0-9]*)\\.[0-9]*[1-9][0-9]*");
  }
  if (!o["multipleOf"].error()) {
    std::string e = multiple_of_expr(o, ptr, false);
    if (!e.empty()) return e;
  }
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
  if (auto ne = o[kNotEnumKeyword]; !ne.error()) {
    // A string none of the listed ones (a negated string enum, schema_combine.cpp); the other
    // string keywords of such a schema are not combined with it.
    std::vector<std::string> names;
    dom::array arr;
    if (ne.get_array().get(arr)) throw SchemaError{"internal: bad negated enum at " + show(ptr)};
    for (auto e : arr) names.emplace_back(e.get_string().value_unsafe());
    for (auto f : o)
      if (f.key != "type" && f.key != kNotEnumKeyword && !kAnnotations.count(f.key))
        unsupported("`" + std::string(f.key) + "` beside a negated string `enum`",
                    ptr + "/" + pointer_token(f.key));
    const auto [ended, left] = json_string_excluding_regex(names);
    const std::string tail =
        shared_rule("string_tail", "string_tail",
                    kbnf_regex("(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
    return "(" + (ended.empty() ? "" : kbnf_regex(ended) + " | ") + kbnf_regex(left) + " " + tail +
           ")";
  }
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
  bool unique = false;
  if (auto u = o["uniqueItems"]; !u.error() && u.get_bool().get(unique))
    throw SchemaError{"`uniqueItems` must be a boolean at " + ptr + "/uniqueItems"};
  if (unique && max > 1) {
    if (auto e = unique_items_expr(o, ptr, min, max); !e.empty()) return e;
    warnings.push_back("approximated `uniqueItems` at " + ptr +
                       "/uniqueItems: not enforced (duplicate items are accepted) except for "
                       "items from a finite set of at most 5 values");
  }
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

// uniqueItems where the items come from a finite set (an enum, a const, booleans, null) of at
// most 5 values: every sequence of distinct values, listed (exact). "" otherwise.
std::string SchemaConverter::Impl::unique_items_expr(dom::object o, const std::string& ptr,
                                                     uint64_t min, uint64_t max) {
  if (!o["prefixItems"].error()) return "";
  auto items = o["items"];
  if (items.error() || items.value_unsafe().type() != dom::element_type::OBJECT) return "";
  dom::object io = items.value_unsafe().get_object().value_unsafe();
  std::vector<dom::element> domain;
  for (auto f : io)
    if (!kAnnotations.count(f.key) && f.key != "type" && f.key != "enum" && f.key != "const")
      return "";
  const std::vector<std::string> types = declared_types(io, ptr + "/items");
  if (!io["const"].error()) {
    domain.push_back(io["const"].value_unsafe());
  } else if (!io["enum"].error()) {
    dom::array arr;
    if (io["enum"].get_array().get(arr)) return "";
    for (auto v : arr) domain.push_back(v);
  } else {
    for (const auto& t : types) {
      if (t == "boolean") {
        domain.push_back(synthetic_element("true"));
        domain.push_back(synthetic_element("false"));
      } else if (t == "null") {
        domain.push_back(synthetic_element("null"));
      } else {
        return "";
      }
    }
  }
  std::vector<std::string> values;
  std::set<std::string> seen;
  for (auto v : domain)
    if (type_matches(v, types) && seen.insert(value_text(v)).second)
      values.push_back(value_expr(v));
  if (values.empty() || values.size() > 5) return "";
  std::vector<std::string> alts;
  if (min == 0) alts.push_back(empty_arr());
  std::vector<size_t> seq;
  std::vector<uint8_t> used(values.size(), 0);
  std::function<void()> walk = [&] {
    if (!seq.empty() && seq.size() >= min) {
      std::string a = lbrack();
      for (size_t i = 0; i < seq.size(); ++i) a += (i ? " " + comma() + " " : " ") + values[seq[i]];
      alts.push_back(a + " " + rbrack());
    }
    if (seq.size() >= max) return;
    for (size_t i = 0; i < values.size(); ++i) {
      if (used[i]) continue;
      used[i] = 1;
      seq.push_back(i);
      walk();
      seq.pop_back();
      used[i] = 0;
    }
  };
  walk();
  if (alts.empty())
    throw SchemaError{"no array of distinct items satisfies minItems at " + show(ptr)};
  return "(" + join_alts(alts) + ")";
}

// ---- objects ---------------------------------------------------------------------------------

ObjectShape SchemaConverter::Impl::shape_of(dom::object o, const std::string& ptr,
                                            std::vector<std::string>* unlisted_required) {
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
  for (size_t i = 0; i < shape.properties.size(); ++i) index.emplace(shape.properties[i].name, i);
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
      if (at == index.end() && unlisted_required != nullptr)
        unlisted_required->emplace_back(name);
      else if (at == index.end())
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

std::optional<std::string> SchemaConverter::Impl::property_names_regex(dom::element e,
                                                                       const std::string& ptr) {
  if (e.type() != dom::element_type::OBJECT)
    throw SchemaError{"`propertyNames` must be a schema at " + show(ptr)};
  dom::object o = e.get_object().value_unsafe();
  for (auto f : o) {
    const std::string_view k = f.key;
    if (kAnnotations.count(k)) continue;
    if (k == "type" || k == "pattern" || k == "minLength" || k == "maxLength" || k == "format" ||
        k == "enum" || k == "const")
      continue;
    unsupported("`" + std::string(k) + "` inside `propertyNames`", ptr + "/" + pointer_token(k));
  }
  auto types = declared_types(o, ptr);
  if (!types.empty() && std::find(types.begin(), types.end(), "string") == types.end())
    return std::nullopt;  // keys are strings: no key is allowed
  for (const char* kw : {"const", "enum"}) {
    if (o[kw].error()) continue;
    std::vector<dom::element> values;
    if (std::string_view(kw) == "const") {
      values.push_back(o[kw].value_unsafe());
    } else {
      dom::array arr;
      if (o[kw].get_array().get(arr))
        throw SchemaError{"`enum` must be an array at " + ptr + "/enum"};
      for (auto v : arr) values.push_back(v);
    }
    std::string alts;
    for (auto v : values) {
      if (v.type() != dom::element_type::STRING) continue;
      const std::string q = json_quote(v.get_string().value_unsafe());
      alts += (alts.empty() ? "" : "|") + regex_escape(q.substr(1, q.size() - 2));
    }
    if (alts.empty()) return std::nullopt;
    return "(?:" + alts + ")";
  }
  auto re = string_constraint(*this, o, ptr, StringEncoding::json, StringEncoding::json);
  return re ? *re : "(?:" + string_unit_regex(StringEncoding::json) + ")*";
}

// Objects (docs/grammar.md "JSON Schema"): members are laid out by a state machine whose state is
// (which listed properties are present, how many members so far). With at most kMaxAnyOrder
// listed properties the set is tracked, so they come in any order (exact); with more, the
// position in schema order is tracked (properties in schema order: documented). Extra members
// (patternProperties, additionalProperties) may come anywhere in the first mode and after the
// listed ones in the second. The member count serves minProperties / maxProperties, the set
// dependentRequired.
namespace {
constexpr size_t kMaxAnyOrder = 8;
constexpr size_t kMaxExcludedKeys = 256;
constexpr size_t kMaxObjectStates = 1u << 14;
// Past this many bytes of listed keys, keys are spelled byte by byte (Impl::spelled) so that
// their automata stay within the DFA-state budget.
constexpr size_t kMaxLiteralKeyBytes = 4096;
}  // namespace

std::string SchemaConverter::Impl::object_expr(dom::object o, const std::string& ptr) {
  std::vector<std::string> unlisted_required;
  ObjectShape shape = shape_of(o, ptr, &unlisted_required);
  auto count = [&](const char* kw) -> std::optional<uint64_t> {
    auto r = o[kw];
    if (r.error()) return std::nullopt;
    auto v = number_of(r.value_unsafe());
    if (!v || *v < 0 || *v != std::floor(*v) || *v > 1e6)
      throw SchemaError{"`" + std::string(kw) + "` must be an integer in [0, 1e6] at " + ptr + "/" +
                        kw};
    return static_cast<uint64_t>(*v);
  };
  const uint64_t min_p = count("minProperties").value_or(0);
  const std::optional<uint64_t> max_p = count("maxProperties");
  if (max_p && min_p > *max_p) throw SchemaError{"minProperties > maxProperties at " + show(ptr)};

  // propertyNames: a regex over whole key texts; listed names it refuses cannot occur.
  std::optional<std::string> key_re;
  bool no_keys = false;
  if (auto pn = o["propertyNames"]; !pn.error()) {
    dom::element e = pn.value_unsafe();
    if (e.type() == dom::element_type::BOOL) {
      no_keys = !e.get_bool().value_unsafe();
    } else {
      key_re = property_names_regex(e, ptr + "/propertyNames");
      no_keys = !key_re;
    }
  }
  std::optional<CompiledGrammar> key_check;
  if (key_re)
    key_check = CompiledGrammar::compile_kbnf(
        "start ::= " + kbnf_regex("\"" + *key_re + "\"") + ";", nullptr);
  auto name_ok = [&](const std::string& name) {
    if (no_keys) return false;
    if (!key_check) return true;
    Matcher m(*key_check);
    return m.accept_bytes(json_quote(name)) && m.is_complete();
  };

  // Listed properties, plus names that `required` / dependentRequired mention without listing:
  // those are extra keys that must (or may) be present, valued by additionalProperties.
  struct Prop {
    std::string name, value;  // value: rule name
    bool required = false;
  };
  std::vector<Prop> props;
  std::map<std::string, size_t> index;
  auto extra_value = [&]() {
    return shape.additional_pointer.empty()
               ? any_expr(Mode::json, "")
               : rule_for(shape.additional_pointer, Mode::json, "", "additional");
  };
  auto add_prop = [&](const std::string& name, const std::string& value, bool required) {
    index[name] = props.size();
    props.push_back({name, value, required});
  };
  std::vector<std::string> forbidden;  // listed with the schema `false`: never present
  for (const auto& p : shape.properties) {
    dom::element ps = resolve(p.pointer, "property");
    if (ps.type() == dom::element_type::BOOL && !ps.get_bool().value_unsafe()) {
      if (p.required)
        throw SchemaError{"no object satisfies: `" + p.name +
                          "` is required and its schema is "
                          "false at " +
                          show(p.pointer)};
      forbidden.push_back(p.name);
      continue;
    }
    if (!name_ok(p.name)) {
      if (p.required)
        throw SchemaError{"no object satisfies `required` `" + p.name +
                          "` and `propertyNames` at " + show(ptr)};
      continue;
    }
    add_prop(p.name, "", p.required);
  }
  auto mention = [&](const std::string& name, bool required, const std::string& where) {
    auto it = index.find(name);
    if (it != index.end()) {
      props[it->second].required |= required;
      return true;
    }
    if (!shape.additional || !name_ok(name)) {
      if (required)
        throw SchemaError{"no object satisfies: `" + name +
                          "` is required but no such key is allowed at " + where};
      return false;
    }
    add_prop(name, "", required);
    return true;
  };
  for (const auto& name : unlisted_required) mention(name, true, ptr + "/required");
  // dependentRequired (draft 2019-09) and the array form of draft-7 `dependencies`.
  std::vector<std::pair<size_t, std::vector<size_t>>> deps;
  std::vector<size_t> banned;  // listed names a dependency makes impossible
  for (const char* kw : {"dependentRequired", "dependencies"}) {
    auto d = o[kw];
    if (d.error()) continue;
    dom::object dobj;
    if (d.get_object().get(dobj))
      throw SchemaError{"`" + std::string(kw) + "` must be an object at " + ptr + "/" + kw};
    for (auto f : dobj) {
      const std::string where = ptr + "/" + kw + "/" + pointer_token(f.key);
      dom::array arr;
      if (f.value.get_array().get(arr)) {
        unsupported("`" + std::string(kw) + "` with a schema value (dependentSchemas)", where);
        continue;
      }
      const bool trigger = mention(std::string(f.key), false, where);
      std::vector<size_t> needs;
      bool possible = true;
      for (auto e : arr) {
        std::string_view n;
        if (e.get_string().get(n))
          throw SchemaError{"dependency names must be strings at " + where};
        if (mention(std::string(n), false, where)) {
          needs.push_back(index[std::string(n)]);
        } else {
          possible = false;
        }
      }
      if (!trigger) continue;
      if (!possible) {
        banned.push_back(index[std::string(f.key)]);
      } else {
        deps.emplace_back(index[std::string(f.key)], std::move(needs));
      }
    }
  }
  for (size_t b : banned)
    if (props[b].required)
      throw SchemaError{"no object satisfies the dependencies of `" + props[b].name + "` at " +
                        show(ptr)};
  // Value rules (listed ones by their schema, the others by additionalProperties).
  {
    std::map<std::string_view, const SchemaProperty*> listed;
    for (const auto& sp : shape.properties) listed.emplace(sp.name, &sp);
    for (auto& p : props) {
      auto it = listed.find(p.name);
      p.value = it != listed.end() ? rule_for(it->second->pointer, Mode::json, "", p.name)
                                   : extra_value();
    }
  }

  // Extra members: patternProperties keys, then other keys (additionalProperties).
  std::vector<std::string> extra_alts;
  if (auto pp = o["patternProperties"]; !pp.error()) {
    dom::object ppo;
    if (pp.get_object().get(ppo))
      throw SchemaError{"`patternProperties` must be an object at " + ptr + "/patternProperties"};
    for (auto f : ppo) {
      const std::string where = ptr + "/patternProperties/" + pointer_token(f.key);
      auto re = translate_pattern(f.key, StringEncoding::json);
      if (!re.ok()) {
        unsupported(re.error().message, where);
        continue;
      }
      if (key_re) {
        unsupported("`patternProperties` together with `propertyNames`", where);
        continue;
      }
      const std::string value = rule_for(where, Mode::json, "", hint_for(ptr) + "_pattern");
      extra_alts.push_back(kbnf_regex("\"" + re.value() + "\"") + " " + colon() + " " + value);
    }
    if (!extra_alts.empty())
      warnings.push_back(
          "approximated `patternProperties` at " + ptr +
          "/patternProperties: a key matching several patterns is checked against one of them, a "
          "listed property against its `properties` schema only, and other keys against "
          "additionalProperties without excluding pattern matches");
  }
  if (shape.additional && !no_keys) {
    std::string key;
    std::vector<std::string> names = forbidden;
    for (const auto& p : props) names.push_back(p.name);
    if (key_re) {
      key = kbnf_regex("\"" + *key_re + "\"");
      if (!names.empty())
        warnings.push_back("approximated `propertyNames` at " + ptr +
                           "/propertyNames: an extra key may repeat a listed name");
    } else if (names.empty() || names.size() > kMaxExcludedKeys) {
      // Past kMaxExcludedKeys names the exclusion automaton outgrows the grammar's state
      // budget: any key (documented approximation, warned).
      if (!names.empty())
        warnings.push_back("approximated `additionalProperties` at " + show(ptr) +
                           ": with more than " + std::to_string(kMaxExcludedKeys) +
                           " listed properties an extra key may repeat a listed name");
      key = shared_rule("string", "string",
                        kbnf_regex("\"(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
    } else {
      // Extra keys never repeat a listed one (JSON Schema applies additionalProperties only to
      // other names).
      const auto [ended, left] = json_string_excluding_regex(names);
      const std::string tail =
          shared_rule("string_tail", "string_tail",
                      kbnf_regex("(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
      key = "(" + (ended.empty() ? "" : kbnf_regex(ended) + " | ") + kbnf_regex(left) + " " + tail +
            ")";
    }
    extra_alts.push_back(key + " " + colon() + " " + extra_value());
  }
  const std::string extra = extra_alts.empty() ? ""
                            : extra_alts.size() == 1
                                ? extra_alts[0]
                                : add_rule(hint_for(ptr) + "_extra", join_alts(extra_alts));

  // Member layouts.
  size_t key_bytes = 0;
  for (const auto& p : props) key_bytes += p.name.size() + 2;
  auto key_of = [&](const std::string& text) {
    return key_bytes > kMaxLiteralKeyBytes ? spelled(text) : kbnf_literal(text);
  };
  std::vector<std::string> kv;
  for (const auto& p : props) {
    const std::string key = opt.flexible_whitespace
                                ? key_of(json_quote(p.name)) + " " + colon()
                                : key_of(json_quote(p.name) + (opt.compact ? ":" : ": "));
    kv.push_back(key + " " + p.value);
  }
  // In schema order each member appears in two states (before and after the first member): one
  // rule per member keeps the grammar's text linear with a small factor.
  if (props.size() > kMaxAnyOrder) {
    for (size_t i = 0; i < kv.size(); ++i) kv[i] = add_rule(props[i].name + "_member", kv[i]);
  }
  std::vector<uint8_t> is_banned(props.size(), 0);
  for (size_t b : banned) is_banned[b] = 1;

  const size_t n = props.size();
  // Member counts are tracked up to `cap` (exactly up to maxProperties; saturating above
  // minProperties, at least 1 for the comma).
  const uint64_t cap = max_p ? *max_p : std::max<uint64_t>(min_p, 1);
  const bool any_order = n <= kMaxAnyOrder && ((uint64_t{1} << n) * (cap + 1)) <= kMaxObjectStates;
  if (!any_order) {
    if (!deps.empty())
      unsupported(
          "`dependentRequired` with more than " + std::to_string(kMaxAnyOrder) + " properties",
          ptr + "/dependentRequired");
    if (cap > 1 && (n + 1) * (cap + 1) > kMaxObjectStates * 64)
      throw SchemaError{"minProperties / maxProperties too large for " + std::to_string(n) +
                        " properties at " + show(ptr)};
  }
  const std::string comma_expr = any_order ? comma() : shared_rule("comma", "comma", comma());
  auto sep = [&](uint64_t c) { return c == 0 ? std::string() : comma_expr + " "; };
  auto can_end = [&](uint64_t set, uint64_t c) {
    if (c == 0 || c < min_p) return false;
    if (!any_order) return true;  // required ones cannot be skipped in schema order
    for (size_t i = 0; i < n; ++i)
      if (props[i].required && !((set >> i) & 1)) return false;
    for (const auto& [a, needs] : deps)
      if ((set >> a) & 1)
        for (size_t b : needs)
          if (!((set >> b) & 1)) return false;
    return true;
  };
  // One rule per reachable, completable state; "" when a state cannot complete.
  std::map<std::pair<uint64_t, uint64_t>, std::string> state_rule;
  const std::string hint = hint_for(ptr) + "_members";
  // Body of state (pos_or_set, c) given the rules of its successors.
  auto body_of = [&](uint64_t key, uint64_t c,
                     const std::function<std::string(uint64_t, uint64_t)>& next) -> std::string {
    std::vector<std::string> alts;
    const bool room = !max_p || c < *max_p;
    const uint64_t c1 = std::min(c + 1, cap);
    const bool saturated = !max_p && c == cap && !extra.empty();
    bool at_end = any_order || key == n;
    if (at_end && can_end(any_order ? key : 0, c)) alts.push_back("''");
    if (any_order) {
      for (size_t i = 0; i < n && room; ++i) {
        if ((key >> i) & 1 || is_banned[i]) continue;
        const std::string r = next(key | (uint64_t{1} << i), c1);
        if (!r.empty()) alts.push_back(sep(c) + kv[i] + " " + r);
      }
    } else if (key < n) {
      if (!props[key].required || is_banned[key]) {
        const std::string r = next(key + 1, c);
        if (!r.empty()) alts.push_back(r);
      }
      if (room && !is_banned[key]) {
        const std::string r = next(key + 1, c1);
        if (!r.empty()) alts.push_back(sep(c) + kv[key] + " " + r);
      }
    }
    if (!extra.empty() && room && at_end && !saturated) {
      const std::string r = next(key, c1);
      if (!r.empty()) alts.push_back(sep(c) + extra + " " + r);
    }
    if (alts.empty()) return "";
    std::string body = join_alts(alts);
    if (saturated && at_end) body = "(" + comma() + " " + extra + ")* (" + body + ")";
    return body;
  };
  std::function<std::string(uint64_t, uint64_t)> get;
  if (any_order) {
    get = [&](uint64_t set, uint64_t c) -> std::string {
      auto it = state_rule.find({set, c});
      if (it != state_rule.end()) return it->second;
      state_rule[{set, c}] = "";  // no cycles: every step adds a member or saturates (loop)
      const std::string body = body_of(set, c, get);
      const std::string name = body.empty() ? "" : add_rule(hint, body);
      state_rule[{set, c}] = name;
      return name;
    };
  } else {
    // Schema order: build from the last position back, iteratively (n may be large).
    for (uint64_t i = n + 1; i-- > 0;)
      for (uint64_t c = cap + 1; c-- > 0;) {
        const std::string body = body_of(i, c, [&](uint64_t k, uint64_t cc) {
          auto it = state_rule.find({k, cc});
          return it == state_rule.end() ? std::string() : it->second;
        });
        if (!body.empty()) state_rule[{i, c}] = add_rule(hint, body);
      }
    get = [&](uint64_t k, uint64_t c) {
      auto it = state_rule.find({k, c});
      return it == state_rule.end() ? std::string() : it->second;
    };
  }
  const std::string first = get(0, 0);
  bool empty_ok = min_p == 0;
  for (const auto& p : props) empty_ok &= !p.required;
  std::vector<std::string> alts;
  if (empty_ok) alts.push_back(empty_obj());
  if (!first.empty()) alts.push_back(lbrace() + " " + first + " " + rbrace());
  if (alts.empty()) throw SchemaError{"no object satisfies the schema at " + show(ptr)};
  return alts.size() == 1 ? alts[0] : "(" + join_alts(alts) + ")";
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
