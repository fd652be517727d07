// Digit ranges, string units and JSON Schema pattern translation (schema_regex.h).
#include "grammar/schema_regex.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/limits.h"
#include "base/utf8.h"
#include "grammar/kbnf_writer.h"

namespace ai00::internal::grammar {

namespace {

// ---------------------------------------------------------------------------------------------
// Digit ranges

std::string group(const std::string& s) {
  return s.find('|') == std::string::npos ? s : "(?:" + s + ")";
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "|" : "") + parts[i];
  return out;
}

std::string digit_class(char a, char b) {
  if (a == b) return std::string(1, a);
  return std::string("[") + a + "-" + b + "]";
}

std::string any_digits(size_t k) {
  if (k == 0) return "";
  if (k == 1) return "[0-9]";
  return "[0-9]{" + std::to_string(k) + "}";
}

// Digit strings of equal length between x and y inclusive (leading zeros allowed inside):
// split on the first digit into a low edge, a full middle block and a high edge.
std::string same_length_range(const std::string& x, const std::string& y) {
  if (x == y) return x;
  const size_t n = x.size();
  if (n == 1) return digit_class(x[0], y[0]);
  const std::string xr = x.substr(1), yr = y.substr(1);
  if (x[0] == y[0]) return x.substr(0, 1) + group(same_length_range(xr, yr));
  const bool x_low = xr.find_first_not_of('0') == std::string::npos;
  const bool y_high = yr.find_first_not_of('9') == std::string::npos;
  std::vector<std::string> alts;
  if (!x_low)
    alts.push_back(x.substr(0, 1) + group(same_length_range(xr, std::string(n - 1, '9'))));
  const char mid_lo = static_cast<char>(x_low ? x[0] : x[0] + 1);
  const char mid_hi = static_cast<char>(y_high ? y[0] : y[0] - 1);
  if (mid_lo <= mid_hi) alts.push_back(digit_class(mid_lo, mid_hi) + any_digits(n - 1));
  if (!y_high)
    alts.push_back(y.substr(0, 1) + group(same_length_range(std::string(n - 1, '0'), yr)));
  return join(alts);
}

uint64_t pow10u(size_t k) {
  uint64_t p = 1;
  while (k--) p *= 10;
  return p;
}

size_t num_digits(uint64_t v) { return std::to_string(v).size(); }

// Canonical non-negative integers in [a, b] (b missing: unbounded), a <= b.
std::string nonneg_range(uint64_t a, std::optional<uint64_t> b) {
  std::vector<std::string> alts;
  const size_t da = num_digits(a), db = b ? num_digits(*b) : da;
  for (size_t len = da; len <= db; ++len) {
    const uint64_t lo = len == da ? a : pow10u(len - 1);
    const uint64_t hi = (b && len == db) ? *b : pow10u(len) - 1;
    alts.push_back(same_length_range(std::to_string(lo), std::to_string(hi)));
  }
  if (!b) alts.push_back("[1-9][0-9]{" + std::to_string(da) + ",}");
  return join(alts);
}

const char* const kAnyFraction = "(?:\\.[0-9]+)?";

// A non-negative decimal I.F: integer part and fraction digits without trailing zeros.
struct Decimal {
  uint64_t int_part = 0;
  std::string frac;
};

// The shortest decimal that reads back as `v` (>= 0, <= 1e18): what the schema author wrote.
Decimal decimal_of(double v) {
  char buf[400];
  for (int prec = 0; prec <= 340; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  Decimal d;
  const size_t dot = s.find('.');
  d.int_part = std::strtoull(s.substr(0, dot).c_str(), nullptr, 10);
  if (dot != std::string::npos) {
    d.frac = s.substr(dot + 1);
    while (!d.frac.empty() && d.frac.back() == '0') d.frac.pop_back();
  }
  return d;
}

// -1, 0, 1 as a < b, a == b, a > b.
int compare(const Decimal& a, const Decimal& b) {
  if (a.int_part != b.int_part) return a.int_part < b.int_part ? -1 : 1;
  return a.frac < b.frac ? -1 : a.frac > b.frac ? 1 : 0;  // no trailing zeros: plain order
}

struct FracBound {
  std::string digits;  // fraction digits of the end point (no trailing zeros)
  bool exclusive = false;
};

// Fraction digit strings F, from digit i on, with lo <= 0.F <= hi (strict where exclusive).
// `lo_tight`/`hi_tight`: the digits so far equal that bound's prefix. `may_end`: F may stop here
// (false only before its first digit). nullopt: no such F.
std::optional<std::string> fraction_digits(const std::optional<FracBound>& lo,
                                           const std::optional<FracBound>& hi, size_t i,
                                           bool lo_tight, bool hi_tight, bool may_end) {
  lo_tight = lo_tight && lo.has_value();
  hi_tight = hi_tight && hi.has_value();
  const std::string any = may_end ? "[0-9]*" : "[0-9]+";
  if (!lo_tight && !hi_tight) return any;
  const bool lo_done = lo_tight && i >= lo->digits.size();
  const bool hi_done = hi_tight && i >= hi->digits.size();
  if (hi_done) {
    // Only zeros may follow, F stays equal to hi (and to lo if that is still tight).
    if (hi->exclusive || (lo_tight && (!lo_done || lo->exclusive))) return std::nullopt;
    return std::string(may_end ? "0*" : "0+");
  }
  if (lo_done && !hi_tight) return lo->exclusive ? std::string("0*[1-9][0-9]*") : any;
  std::vector<std::string> alts;
  // F ends here: below hi (a proper prefix of it); at or above lo only once lo is used up.
  if (may_end && (!lo_tight || (lo_done && !lo->exclusive))) alts.push_back("");
  const char a = lo_tight ? (lo_done ? '0' : lo->digits[i]) : '0';
  const char b = hi_tight ? hi->digits[i] : '9';
  if (a > b) return std::nullopt;
  auto branch = [&](char from, char to, bool lt, bool ht) {
    if (from > to) return;
    if (auto rest = fraction_digits(lo, hi, i + 1, lt, ht, true))
      alts.push_back(digit_class(from, to) + group(*rest));
  };
  if (lo_tight && hi_tight && a == b) {
    branch(a, a, true, true);
  } else {
    if (lo_tight) branch(a, a, true, false);
    branch(lo_tight ? static_cast<char>(a + 1) : '0', hi_tight ? static_cast<char>(b - 1) : '9',
           false, false);
    if (hi_tight) branch(b, b, false, true);
  }
  if (alts.empty()) return std::nullopt;
  const bool can_end = alts.front().empty();
  if (can_end) alts.erase(alts.begin());
  if (alts.empty()) return std::string();
  const std::string body = alts.size() == 1 && !can_end ? alts[0] : "(?:" + join(alts) + ")";
  return can_end ? body + "?" : body;
}

// The optional `.F` of numbers whose integer part equals the end points' integer parts.
std::optional<std::string> fraction_part(const std::optional<FracBound>& lo,
                                         const std::optional<FracBound>& hi) {
  std::vector<std::string> alts;
  // No fraction: the value is I.0.
  const bool zero_ge_lo = !lo || (lo->digits.empty() && !lo->exclusive);
  const bool zero_le_hi = !hi || !hi->digits.empty() || !hi->exclusive;
  if (zero_ge_lo && zero_le_hi) alts.push_back("");
  if (auto f = fraction_digits(lo, hi, 0, true, true, false)) alts.push_back("\\." + *f);
  if (alts.empty()) return std::nullopt;
  if (alts.size() == 1) return alts[0];
  return "(?:" + alts[1] + ")?";
}

// Non-negative reals m written I(.F)? between two decimal end points (each inclusive or
// exclusive; hi may be unbounded): the digit range of the integer part, with the fraction
// constrained only where I equals an end point's integer part. Exact.
std::optional<std::string> magnitude_interval(const Decimal& lo, bool lo_excl,
                                              const std::optional<Decimal>& hi, bool hi_excl) {
  if (hi) {
    const int c = compare(*hi, lo);
    if (c < 0 || (c == 0 && (lo_excl || hi_excl))) return std::nullopt;
  }
  const FracBound lo_f{lo.frac, lo_excl};
  std::vector<std::string> alts;
  if (hi && hi->int_part == lo.int_part) {
    auto f = fraction_part(lo_f, FracBound{hi->frac, hi_excl});
    if (!f) return std::nullopt;
    return std::to_string(lo.int_part) + *f;
  }
  if (auto f = fraction_part(lo_f, std::nullopt)) alts.push_back(std::to_string(lo.int_part) + *f);
  if (!hi) {
    alts.push_back(group(nonneg_range(lo.int_part + 1, std::nullopt)) + kAnyFraction);
  } else {
    if (hi->int_part >= 2 && lo.int_part + 1 <= hi->int_part - 1)
      alts.push_back(group(nonneg_range(lo.int_part + 1, hi->int_part - 1)) + kAnyFraction);
    if (auto f = fraction_part(std::nullopt, FracBound{hi->frac, hi_excl}))
      alts.push_back(std::to_string(hi->int_part) + *f);
  }
  if (alts.empty()) return std::nullopt;
  return join(alts);
}

}  // namespace

std::optional<std::string> integer_range_regex(std::optional<int64_t> lo,
                                               std::optional<int64_t> hi) {
  if (lo && hi && *lo > *hi) return std::nullopt;
  std::vector<std::string> alts;
  if (!lo || *lo < 0) {
    const uint64_t mag_lo = (hi && *hi < 0) ? static_cast<uint64_t>(-*hi) : 1;
    std::optional<uint64_t> mag_hi;
    if (lo) mag_hi = static_cast<uint64_t>(-*lo);
    alts.push_back("-" + group(nonneg_range(mag_lo, mag_hi)));
  }
  if (!hi || *hi >= 0) {
    const uint64_t a = lo ? static_cast<uint64_t>(std::max<int64_t>(*lo, 0)) : 0;
    std::optional<uint64_t> b;
    if (hi) b = static_cast<uint64_t>(*hi);
    alts.push_back(nonneg_range(a, b));
  }
  return join(alts);
}

std::optional<std::string> number_range_regex(std::optional<NumberBound> lo,
                                              std::optional<NumberBound> hi) {
  std::vector<std::string> alts;
  // x < 0: magnitude in (max(0, -hi), -lo].
  if (!lo || lo->value < 0) {
    Decimal m_lo;
    bool m_lo_excl = true;
    if (hi && hi->value < 0) m_lo = decimal_of(-hi->value), m_lo_excl = hi->exclusive;
    std::optional<Decimal> m_hi;
    if (lo) m_hi = decimal_of(-lo->value);
    if (auto r = magnitude_interval(m_lo, m_lo_excl, m_hi, lo && lo->exclusive))
      alts.push_back("-" + group(*r));
  }
  // x >= 0.
  if (!hi || hi->value > 0 || (hi->value == 0 && !hi->exclusive)) {
    Decimal l;
    bool l_excl = false;
    if (lo && lo->value >= 0) l = decimal_of(lo->value), l_excl = lo->exclusive;
    std::optional<Decimal> h;
    if (hi) h = decimal_of(std::max(hi->value, 0.0));
    if (auto r = magnitude_interval(l, l_excl, h, hi && hi->exclusive)) alts.push_back(*r);
  }
  if (alts.empty()) return std::nullopt;
  return join(alts);
}

std::string string_unit_regex(StringEncoding enc) {
  switch (enc) {
    case StringEncoding::json:
      return "(?:[^\"\\\\\\x00-\\x1F]|\\\\[\"\\\\/bfnrt]|"
             "\\\\u(?:[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2})|"
             "\\\\u[dD][89abAB][0-9a-fA-F]{2}\\\\u[dD][c-fC-F][0-9a-fA-F]{2})";
    case StringEncoding::raw:
      return "[\\x{0}-\\x{10FFFF}]";
    case StringEncoding::raw_no_lt:
      return "[^<]";
  }
  return "";
}

namespace {

// A trie over the code points of the excluded keys.
struct KeyTrie {
  std::map<uint32_t, KeyTrie> next;
  bool terminal = false;
};

uint32_t decode_cp(std::string_view s, size_t& i) {
  uint32_t cp = 0;
  const size_t n = utf8::decode_one(s.substr(i), &cp);
  if (n == 0) return static_cast<unsigned char>(s[i++]);  // stray byte: keep it distinct
  i += n;
  return cp;
}

bool json_special(uint32_t cp) { return cp < 0x20 || cp == '"' || cp == '\\'; }

// Paths from `node` that keep the decoded value different from every key: `ended` ones close the
// string (at a node that is no key), the others stop right after the first character that leaves
// the trie (the caller appends any string tail).
std::string excluding_from(const KeyTrie& node, bool ended) {
  std::vector<std::string> alts;
  if (ended && !node.terminal) alts.push_back("\"");
  std::string plain_excl = "\"\\\\\\x00-\\x1F";
  bool special_child = false;
  for (const auto& [cp, child] : node.next) {
    std::string sub = excluding_from(child, ended);
    if (sub.empty()) continue;
    if (json_special(cp)) {
      special_child = true;
      alts.push_back(regex_escape(json_escape(std::string(1, static_cast<char>(cp)))) + group(sub));
    } else {
      plain_excl += regex_code_point(cp);
      alts.push_back(regex_code_point(cp) + group(sub));
    }
  }
  if (!ended) {
    alts.push_back("[^" + plain_excl + "]");
    if (!special_child) alts.push_back("\\\\(?:[\"\\\\/bfnrt]|u[0-9a-fA-F]{4})");
  }
  return join(alts);
}

}  // namespace

size_t excluding_regex_depth(const std::vector<std::string>& keys) {
  size_t longest = 0;
  for (const auto& k : keys) {
    size_t n = 0;
    for (size_t i = 0; i < k.size(); ++n) decode_cp(k, i);
    longest = std::max(longest, n);
  }
  return longest + 2;  // a group per code point, the string's group, the caller's group
}

std::pair<std::string, std::string> json_string_excluding_regex(
    const std::vector<std::string>& keys) {
  KeyTrie root;
  size_t longest = 0;  // code points of the longest key: excluding_from's recursion depth
  for (const auto& k : keys) {
    KeyTrie* n = &root;
    size_t depth = 0;
    for (size_t i = 0; i < k.size(); ++depth) n = &n->next[decode_cp(k, i)];
    n->terminal = true;
    longest = std::max(longest, depth);
  }
  // excluding_from recurses once per code point: callers bound the keys first (the regex could
  // not be parsed past max_nesting_depth anyway), so a long name is an error, not a stack overflow.
  AI00_CHECK(longest <= kMaxNestingDepthCap,
             "json_string_excluding_regex: keys not bounded by the caller");
  std::string ended = excluding_from(root, true);
  return {ended.empty() ? std::string() : "\"" + group(ended),
          "\"" + group(excluding_from(root, false))};
}

}  // namespace ai00::internal::grammar
