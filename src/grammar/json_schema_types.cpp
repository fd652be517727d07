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
        throw EmptySchema{{"no multiple of `multipleOf` lies within the bounds at " + show(ptr)}};
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
  // `type: integer` conjoined with a negated integer (`not: {type: integer}`): no value.
  if (!o[kFractionKeyword].error())
    throw EmptySchema{{"no integer is a number that is not an integer at " + show(ptr)}};
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
  if (!re) throw EmptySchema{{"no integer satisfies the bounds at " + show(ptr)}};
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
  if (!re) throw EmptySchema{{"no number satisfies the bounds at " + show(ptr)}};
  return kbnf_regex(*re);
}

// ---- strings ---------------------------------------------------------------------------------

std::optional<uint64_t> SchemaConverter::Impl::count_of(dom::object o, const char* kw,
                                                        const std::string& ptr, double max) {
  auto r = o[kw];
  if (r.error()) return std::nullopt;
  auto v = number_of(r.value_unsafe());
  if (!v || *v < 0 || *v != std::floor(*v) || *v > max) {
    const std::string bound = max == 1e6 ? "1e6" : std::to_string(static_cast<uint64_t>(max));
    throw SchemaError{"`" + std::string(kw) + "` must be an integer in [0, " + bound + "] at " +
                      ptr + "/" + kw};
  }
  return static_cast<uint64_t>(*v);
}

std::optional<std::pair<uint64_t, uint64_t>> SchemaConverter::Impl::length_bounds(
    dom::object o, const std::string& ptr) {
  auto lo = count_of(o, "minLength", ptr), hi = count_of(o, "maxLength", ptr);
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

std::string SchemaConverter::Impl::string_excluding_expr(const std::vector<std::string>& names,
                                                         const std::string& where) {
  const uint32_t limit = limits().max_nesting_depth;
  if (const size_t depth = excluding_regex_depth(names); depth > limit)
    throw SchemaError{limit_message(show(where),
                                    "the pattern keeping other strings off a " +
                                        std::to_string(depth - 2) + "-character name (nested " +
                                        std::to_string(depth) + " deep)",
                                    "max_nesting_depth", limit)};
  const auto [ended, left] = json_string_excluding_regex(names);
  // The tail is one shared terminal, not copied per trie node (schema_regex.h).
  const std::string tail =
      shared_rule("string_tail", "string_tail",
                  kbnf_regex("(?:" + string_unit_regex(StringEncoding::json) + ")*\""));
  return "(" + (ended.empty() ? "" : kbnf_regex(ended) + " | ") + kbnf_regex(left) + " " + tail +
         ")";
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
      if (f.key != "type" && f.key != kNotEnumKeyword && !is_annotation(f.key))
        unsupported("`" + std::string(f.key) + "` beside a negated string `enum`",
                    ptr + "/" + pointer_token(f.key));
    return string_excluding_expr(names, ptr);
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

// `contains` with minContains / maxContains (draft 2019-09): the items are split into those
// that satisfy `items` and `contains` (C) and the others (N: `items` alone when there is no
// maxContains, `items` and not `contains` otherwise), and a rule per count of C items so far
// counts them up to max(minContains, maxContains). Exact; refused beside prefixItems, min/maxItems
// and uniqueItems, and when the conjunction or negation cannot be written (schema_combine.cpp).
// "" when the array has no `contains` or minContains is 0 without maxContains (no constraint).
std::string SchemaConverter::Impl::contains_expr(dom::object o, const std::string& ptr) {
  auto c = o["contains"];
  if (c.error()) {
    for (const char* kw : {"minContains", "maxContains"})
      if (!o[kw].error()) unsupported("`" + std::string(kw) + "` without `contains`", ptr);
    return "";
  }
  const uint64_t min = count_of(o, "minContains", ptr, 64).value_or(1);
  const std::optional<uint64_t> max = count_of(o, "maxContains", ptr, 64);
  if (min == 0 && !max) return "";
  if (max && min > *max) throw EmptySchema{{"minContains > maxContains at " + show(ptr)}};
  for (const char* kw : {"prefixItems", "minItems", "maxItems", "uniqueItems"})
    if (!o[kw].error()) {
      unsupported("`" + std::string(kw) + "` beside `contains`", ptr + "/" + kw);
      return "";
    }
  dom::element items = o["items"].error() ? synthetic_element("true") : o["items"].value_unsafe();
  std::string c_text, n_text;
  try {
    c_text = conjoin(items, c.value_unsafe());
    n_text = max ? conjoin(items, synthetic_element(negate(c.value_unsafe())))
                 : simdjson::to_string(items);
  } catch (const Unmergeable& u) {
    unsupported("`contains` cannot be expressed exactly (" + u.message + ")", ptr + "/contains");
    return "";
  }
  auto rule_of = [&](const std::string& json, const char* hint) -> std::string {
    if (json == "false") return "";
    try {
      return rule_for(synthetic_pointer(json, ptr), Mode::json, "", hint_for(ptr) + hint);
    } catch (const EmptySchema&) {
      return "";
    }
  };
  const std::string in = rule_of(c_text, "_contained"), out = rule_of(n_text, "_other");
  if (in.empty() && min > 0) throw EmptySchema{{"no item satisfies `contains` at " + show(ptr)}};
  // tail[k]: the items after the first, k contained items so far (at `top` without maxContains
  // the others are all items, contained ones included).
  const uint64_t top = max ? *max : min;
  std::vector<std::string> tail(top + 1);
  const std::string others = out.empty() ? "''" : "(" + comma() + " " + out + ")*";
  for (uint64_t k = top + 1; k-- > 0;) {
    std::vector<std::string> alts;
    if (k >= min) alts.push_back("''");
    if (!in.empty() && k < top) alts.push_back(comma() + " " + in + " " + tail[k + 1]);
    tail[k] = add_rule(hint_for(ptr) + "_contains", others + " (" + join_alts(alts) + ")");
  }
  std::vector<std::string> first;
  if (!out.empty()) first.push_back(out + " " + tail[0]);
  if (!in.empty() && top > 0) first.push_back(in + " " + tail[1]);
  std::vector<std::string> alts;
  if (min == 0) alts.push_back(empty_arr());
  if (!first.empty()) alts.push_back(lbrack() + " (" + join_alts(first) + ") " + rbrack());
  if (alts.empty()) throw EmptySchema{{"no array satisfies `contains` at " + show(ptr)}};
  return alts.size() == 1 ? alts[0] : "(" + join_alts(alts) + ")";
}

std::string SchemaConverter::Impl::array_expr(dom::object o, const std::string& ptr) {
  if (std::string e = contains_expr(o, ptr); !e.empty()) return e;
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
    try {
      extra = rule_for(ptr + "/items", Mode::json, "", hint_for(ptr) + "_item");
    } catch (const EmptySchema&) {
      extra.clear();  // no value satisfies `items`: only the prefix
    }
  }
  const uint64_t k = prefix_rules.size();
  const uint64_t min = count_of(o, "minItems", ptr).value_or(0);
  uint64_t max = count_of(o, "maxItems", ptr).value_or(kUnbounded);
  if (extra.empty()) max = std::min(max, k);
  if (min > max) throw EmptySchema{{"no array length satisfies the item limits at " + show(ptr)}};
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
    if (!is_annotation(f.key) && f.key != "type" && f.key != "enum" && f.key != "const") return "";
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
    throw EmptySchema{{"no array of distinct items satisfies minItems at " + show(ptr)}};
  return "(" + join_alts(alts) + ")";
}

// ---- objects (shape_of, object_expr: schema_object.cpp) -----------------------------------

std::optional<std::string> SchemaConverter::Impl::property_names_regex(dom::element e,
                                                                       const std::string& ptr) {
  if (e.type() != dom::element_type::OBJECT)
    throw SchemaError{"`propertyNames` must be a schema at " + show(ptr)};
  dom::object o = e.get_object().value_unsafe();
  for (auto f : o) {
    const std::string_view k = f.key;
    if (is_annotation(k)) continue;
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
