// Rust `regex` syntax -> regex syntax tree (regex_internal.h), plus range-set helpers and the
// Unicode property lookup.
#include <algorithm>
#include <cstring>

#include "base/limits.h"
#include "base/utf8.h"
#include "grammar/regex_internal.h"

namespace ai00::internal::grammar {

namespace unicode_data {
struct Category {
  const char* name;
  const uint32_t* pairs;
  size_t n_pairs;
};
extern const Category kCategories[];
extern const size_t kNumCategories;
struct Script {
  const char* name;
  const char* alias;
  const uint32_t* pairs;
  size_t n_pairs;
};
extern const Script kScripts[];  // unicode_scripts.cpp
extern const size_t kNumScripts;
}  // namespace unicode_data

namespace {

void add_category(std::string_view two_letter_prefix, CodeRanges& out) {
  for (size_t i = 0; i < unicode_data::kNumCategories; ++i) {
    const auto& c = unicode_data::kCategories[i];
    if (std::string_view(c.name).substr(0, two_letter_prefix.size()) != two_letter_prefix) continue;
    for (size_t k = 0; k < c.n_pairs; ++k) out.push_back({c.pairs[2 * k], c.pairs[2 * k + 1]});
  }
}

struct LongName {
  const char* long_name;
  const char* code;
};
const LongName kLongNames[] = {
    {"Letter", "L"},
    {"Uppercase_Letter", "Lu"},
    {"Lowercase_Letter", "Ll"},
    {"Titlecase_Letter", "Lt"},
    {"Modifier_Letter", "Lm"},
    {"Other_Letter", "Lo"},
    {"Mark", "M"},
    {"Nonspacing_Mark", "Mn"},
    {"Spacing_Mark", "Mc"},
    {"Enclosing_Mark", "Me"},
    {"Number", "N"},
    {"Decimal_Number", "Nd"},
    {"Digit", "Nd"},
    {"Letter_Number", "Nl"},
    {"Other_Number", "No"},
    {"Punctuation", "P"},
    {"Connector_Punctuation", "Pc"},
    {"Dash_Punctuation", "Pd"},
    {"Open_Punctuation", "Ps"},
    {"Close_Punctuation", "Pe"},
    {"Initial_Punctuation", "Pi"},
    {"Final_Punctuation", "Pf"},
    {"Other_Punctuation", "Po"},
    {"Symbol", "S"},
    {"Math_Symbol", "Sm"},
    {"Currency_Symbol", "Sc"},
    {"Modifier_Symbol", "Sk"},
    {"Other_Symbol", "So"},
    {"Separator", "Z"},
    {"Space_Separator", "Zs"},
    {"Line_Separator", "Zl"},
    {"Paragraph_Separator", "Zp"},
    {"Other", "C"},
    {"Control", "Cc"},
    {"Format", "Cf"},
    {"Private_Use", "Co"},
    {"Unassigned", "Cn"},
    {"Surrogate", "Cs"},
};

std::string canonical(std::string_view name) {
  // Rust ignores case, spaces, '_' and '-' when matching property names.
  std::string s;
  for (char c : name)
    if (c != ' ' && c != '_' && c != '-') s += static_cast<char>(std::tolower(c));
  return s;
}

// A script by long or short name (Script values; Script_Extensions is approximated by Script).
bool add_script(const std::string& want, CodeRanges& out) {
  for (size_t i = 0; i < unicode_data::kNumScripts; ++i) {
    const auto& s = unicode_data::kScripts[i];
    if (canonical(s.name) != want && canonical(s.alias) != want) continue;
    for (size_t k = 0; k < s.n_pairs; ++k) out.push_back({s.pairs[2 * k], s.pairs[2 * k + 1]});
    return true;
  }
  return false;
}

}  // namespace

bool unicode_property(std::string_view name, CodeRanges& out) {
  std::string want = canonical(name);
  bool scripts_only = false;
  if (auto eq = want.find('='); eq != std::string::npos) {  // gc=L, general_category=L, sc=Han
    std::string key = want.substr(0, eq);
    scripts_only = key == "sc" || key == "script" || key == "scx" || key == "scriptextensions";
    if (key != "gc" && key != "generalcategory" && !scripts_only) return false;
    want = want.substr(eq + 1);
  }
  CodeRanges r;
  if (scripts_only) {
    if (!add_script(want, r)) return false;
  } else if (want == "any") {
    r.push_back({0, rx::kMaxCodePoint});
  } else if (want == "ascii") {
    r.push_back({0, 0x7F});
  } else if (want == "whitespace" || want == "space" || want == "wspace") {
    for (auto p : std::initializer_list<std::pair<uint32_t, uint32_t>>{{9, 13},
                                                                       {32, 32},
                                                                       {0x85, 0x85},
                                                                       {0xA0, 0xA0},
                                                                       {0x1680, 0x1680},
                                                                       {0x2000, 0x200A},
                                                                       {0x2028, 0x2029},
                                                                       {0x202F, 0x202F},
                                                                       {0x205F, 0x205F},
                                                                       {0x3000, 0x3000}})
      r.push_back(p);
  } else if (want == "alphabetic" || want == "alpha") {
    add_category("L", r);
    add_category("Nl", r);
  } else {
    std::string code;
    for (const auto& ln : kLongNames)
      if (canonical(ln.long_name) == want || canonical(ln.code) == want) code = ln.code;
    if (!code.empty()) {
      add_category(code, r);
    } else if (!add_script(want, r)) {  // \p{Han}, \p{Greek} as Rust reads them
      return false;
    }
  }
  rx::normalize(r);
  out.insert(out.end(), r.begin(), r.end());
  rx::normalize(out);
  return true;
}

namespace rx {

void normalize(CodeRanges& r) {
  std::sort(r.begin(), r.end());
  CodeRanges out;
  for (auto p : r) {
    if (!out.empty() && p.first <= out.back().second + 1)
      out.back().second = std::max(out.back().second, p.second);
    else
      out.push_back(p);
  }
  r.swap(out);
}

CodeRanges negate(const CodeRanges& r) {
  CodeRanges out;
  uint32_t next = 0;
  for (auto p : r) {
    if (p.first > next) out.push_back({next, p.first - 1});
    next = p.second + 1;
  }
  if (next <= kMaxCodePoint) out.push_back({next, kMaxCodePoint});
  return out;
}

CodeRanges intersect(const CodeRanges& a, const CodeRanges& b) {
  CodeRanges out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    uint32_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo <= hi) out.push_back({lo, hi});
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

void add_ascii_case(CodeRanges& r) {
  CodeRanges extra;
  for (auto p : r) {
    for (uint32_t c = std::max<uint32_t>(p.first, 'A'); c <= std::min<uint32_t>(p.second, 'Z'); ++c)
      extra.push_back({c + 32, c + 32});
    for (uint32_t c = std::max<uint32_t>(p.first, 'a'); c <= std::min<uint32_t>(p.second, 'z'); ++c)
      extra.push_back({c - 32, c - 32});
  }
  r.insert(r.end(), extra.begin(), extra.end());
  normalize(r);
}

namespace {

struct Flags {
  bool icase = false, dotall = false, verbose = false;
};

class RegexParser {
 public:
  explicit RegexParser(std::string_view p) : p_(p), max_depth_(limits().max_nesting_depth) {}

  Result<Ast> run() {
    Flags f;
    int root = parse_alt(f);
    if (err_.message.empty() && i_ < p_.size()) fail("unmatched `)`");
    if (!err_.message.empty()) return err_;
    ast_.root = root;
    return std::move(ast_);
  }

 private:
  void fail(const std::string& what) {
    if (err_.message.empty())
      err_ = make_error(ErrorKind::grammar, "regex offset " + std::to_string(i_) + ": " + what);
  }
  bool failed() const { return !err_.message.empty(); }
  int add(Node n) {
    ast_.nodes.push_back(std::move(n));
    return static_cast<int>(ast_.nodes.size() - 1);
  }
  int add_chars(CodeRanges r, const Flags& f) {
    if (f.icase) add_ascii_case(r);
    Node n;
    n.kind = NodeKind::chars;
    n.ranges = std::move(r);
    return add(std::move(n));
  }

  void skip_verbose(const Flags& f) {
    if (!f.verbose) return;
    while (i_ < p_.size()) {
      char c = p_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i_;
      } else if (c == '#') {
        while (i_ < p_.size() && p_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  int parse_alt(Flags& f) {
    std::vector<int> alts{parse_concat(f)};
    while (!failed() && i_ < p_.size() && p_[i_] == '|') {
      ++i_;
      alts.push_back(parse_concat(f));
    }
    if (alts.size() == 1) return alts[0];
    Node n;
    n.kind = NodeKind::alternate;
    n.kids = std::move(alts);
    return add(std::move(n));
  }

  int parse_concat(Flags& f) {
    std::vector<int> items;
    while (!failed()) {
      skip_verbose(f);
      if (i_ >= p_.size() || p_[i_] == '|' || p_[i_] == ')') break;
      int atom = parse_atom(f);
      if (atom == -2) continue;  // a flag group such as (?i) changed f and matched nothing
      if (failed()) break;
      skip_verbose(f);
      atom = parse_quantifiers(atom);
      items.push_back(atom);
    }
    if (items.size() == 1) return items[0];
    Node n;
    n.kind = items.empty() ? NodeKind::empty : NodeKind::concat;
    n.kids = std::move(items);
    return add(std::move(n));
  }

  bool parse_number(int& out) {
    size_t start = i_;
    long v = 0;
    while (i_ < p_.size() && p_[i_] >= '0' && p_[i_] <= '9' && v < 100000)
      v = v * 10 + (p_[i_++] - '0');
    out = static_cast<int>(v);
    return i_ > start;
  }

  int parse_quantifiers(int atom) {
    while (!failed() && i_ < p_.size()) {
      char c = p_[i_];
      int lo, hi;
      if (c == '*') {
        lo = 0, hi = -1, ++i_;
      } else if (c == '+') {
        lo = 1, hi = -1, ++i_;
      } else if (c == '?') {
        lo = 0, hi = 1, ++i_;
      } else if (c == '{') {
        size_t save = i_++;
        if (!parse_number(lo)) {
          i_ = save;
          fail("expected a repetition count after `{`");
          return atom;
        }
        hi = lo;
        if (i_ < p_.size() && p_[i_] == ',') {
          ++i_;
          if (!parse_number(hi)) hi = -1;
        }
        if (i_ >= p_.size() || p_[i_] != '}') {
          fail("expected `}` closing the repetition");
          return atom;
        }
        ++i_;
        if (hi >= 0 && hi < lo) {
          fail("repetition {m,n} with n < m");
          return atom;
        }
      } else {
        break;
      }
      if (i_ < p_.size() && p_[i_] == '?') ++i_;  // lazy: same language
      if (ast_.nodes[atom].kind == NodeKind::assert_start ||
          ast_.nodes[atom].kind == NodeKind::assert_end) {
        fail("repetition of an anchor");
        return atom;
      }
      Node n;
      n.kind = NodeKind::repeat;
      n.kids = {atom};
      n.min = lo;
      n.max = hi;
      atom = add(std::move(n));
    }
    return atom;
  }

  bool parse_flags(Flags& f, bool& scoped) {
    // after "(?": flags then ')' (sets f) or ':' (scoped group)
    bool neg = false;
    while (i_ < p_.size() && p_[i_] != ')' && p_[i_] != ':') {
      char c = p_[i_++];
      if (c == '-') {
        neg = true;
      } else if (c == 'i') {
        f.icase = !neg;
      } else if (c == 's') {
        f.dotall = !neg;
      } else if (c == 'x') {
        f.verbose = !neg;
      } else if (c == 'm' || c == 'u' || c == 'U' || c == 'R') {
        // m: ^/$ stay terminal anchors (a terminal is one item); u: always Unicode; U, R: no
        // effect on the language.
      } else {
        --i_;
        fail(std::string("unknown flag `") + c + "`");
        return false;
      }
    }
    if (i_ >= p_.size()) {
      fail("expected `)` or `:` after the flags");
      return false;
    }
    scoped = p_[i_++] == ':';
    return true;
  }

  int parse_group(Flags& f) {
    if (depth_ >= max_depth_) {  // bounded recursion: hostile input cannot exhaust the stack
      fail(limit_message("", "group nesting", "max_nesting_depth", max_depth_));
      return -1;
    }
    ++i_;  // '('
    Flags inner = f;
    if (p_.compare(i_, 1, "?") == 0) {
      ++i_;
      if (p_.compare(i_, 2, "P<") == 0 || p_.compare(i_, 1, "<") == 0) {
        size_t close = p_.find('>', i_);
        if (close == std::string_view::npos) {
          fail("expected `>` closing the group name");
          return -1;
        }
        i_ = close + 1;
      } else if (p_.compare(i_, 1, "=") == 0 || p_.compare(i_, 1, "!") == 0 ||
                 p_.compare(i_, 2, "<=") == 0) {
        fail("look-around is not supported (Rust regex syntax)");
        return -1;
      } else {
        bool scoped = false;
        if (!parse_flags(inner, scoped)) return -1;
        if (!scoped) {
          f = inner;  // (?flags) applies to the rest of the enclosing group
          return -2;
        }
      }
    }
    ++depth_;
    int body = parse_alt(inner);
    --depth_;
    if (failed()) return -1;
    if (i_ >= p_.size() || p_[i_] != ')') {
      fail("expected `)` closing the group");
      return -1;
    }
    ++i_;
    return body;
  }

  int parse_atom(Flags& f) {
    char c = p_[i_];
    switch (c) {
      case '(':
        return parse_group(f);
      case '[': {
        CodeRanges r;
        if (!parse_class(f, r)) return -1;
        return add_chars(std::move(r), f);
      }
      case '.': {
        ++i_;
        CodeRanges r =
            f.dotall ? CodeRanges{{0, kMaxCodePoint}} : CodeRanges{{0, 9}, {11, kMaxCodePoint}};
        return add_chars(std::move(r), Flags{});
      }
      case '^':
        ++i_;
        return add(Node{NodeKind::assert_start, {}, {}, 0, 0});
      case '$':
        ++i_;
        return add(Node{NodeKind::assert_end, {}, {}, 0, 0});
      case '*':
      case '+':
      case '?':
      case '{':
        fail(std::string("repetition operator `") + c + "` with nothing to repeat");
        return -1;
      case '\\': {
        ++i_;
        if (i_ < p_.size() && p_[i_] == 'A')
          return ++i_, add(Node{NodeKind::assert_start, {}, {}, 0, 0});
        if (i_ < p_.size() && p_[i_] == 'z')
          return ++i_, add(Node{NodeKind::assert_end, {}, {}, 0, 0});
        CodeRanges r;
        if (!parse_escape(r, /*in_class=*/false)) return -1;
        return add_chars(std::move(r), f);
      }
      default: {
        uint32_t cp = decode_utf8();
        if (failed()) return -1;
        return add_chars({{cp, cp}}, f);
      }
    }
  }

  uint32_t decode_utf8() {
    uint32_t cp = 0;
    const size_t len = utf8::decode_one(p_.substr(i_), &cp);
    if (len == 0) {
      fail("invalid UTF-8 in the regex");
      return 0;
    }
    i_ += len;
    return cp;
  }

  bool parse_hex(int digits, uint32_t& cp) {
    cp = 0;
    if (i_ < p_.size() && p_[i_] == '{') {
      size_t close = p_.find('}', i_);
      if (close == std::string_view::npos || close == i_ + 1 || close - i_ > 9) {
        fail("expected hex digits and `}`");
        return false;
      }
      for (size_t k = i_ + 1; k < close; ++k) {
        char h = p_[k];
        int v = std::isxdigit(static_cast<unsigned char>(h))
                    ? (std::isdigit(h) ? h - '0' : (std::tolower(h) - 'a' + 10))
                    : -1;
        if (v < 0) {
          fail("expected a hex digit");
          return false;
        }
        cp = cp * 16 + v;
      }
      i_ = close + 1;
    } else {
      for (int k = 0; k < digits; ++k, ++i_) {
        char h = i_ < p_.size() ? p_[i_] : 'g';
        if (!std::isxdigit(static_cast<unsigned char>(h))) {
          fail("expected " + std::to_string(digits) + " hex digits");
          return false;
        }
        cp = cp * 16 + (std::isdigit(h) ? h - '0' : (std::tolower(h) - 'a' + 10));
      }
    }
    if (cp > kMaxCodePoint || (cp >= 0xD800 && cp <= 0xDFFF)) {
      fail("escape is not a Unicode scalar value");
      return false;
    }
    return true;
  }

  // After a backslash: one escape into a code point set (a class escape or one character).
  // \d \s \w \p{..} and their negations into `set`; false (after fail()) on an unknown property.
  bool parse_class_escape(char c, CodeRanges& set) {
    char lower = static_cast<char>(std::tolower(c));
    if (lower == 'd') {
      unicode_property("Nd", set);
    } else if (lower == 's') {
      unicode_property("White_Space", set);
    } else if (lower == 'w') {
      for (const char* p : {"L", "M", "Nd", "Nl", "Pc"}) unicode_property(p, set);
      set.push_back({0x200C, 0x200D});
      normalize(set);
    } else {  // p or P
      std::string name;
      if (i_ < p_.size() && p_[i_] == '{') {
        size_t close = p_.find('}', i_);
        if (close == std::string_view::npos) {
          fail("expected `}` closing \\p{");
          return false;
        }
        name = std::string(p_.substr(i_ + 1, close - i_ - 1));
        i_ = close + 1;
      } else if (i_ < p_.size()) {
        name = std::string(1, p_[i_++]);
      }
      if (!unicode_property(name, set)) {
        fail("unsupported Unicode property `" + name +
             "` (general categories, scripts and Any / ASCII / White_Space / Alphabetic)");
        return false;
      }
    }
    if (c != lower) set = negate(set);
    return true;
  }

  // After a backslash: one escape into a code point set (a class escape or one character).
  bool parse_escape(CodeRanges& r, bool in_class) {
    if (i_ >= p_.size()) {
      fail("expected an escape after `\\`");
      return false;
    }
    char c = p_[i_++];
    static const char kFrom[] = "ntrfvae", kTo[] = "\n\t\r\f\v\a\x1b";
    uint32_t cp = 0;
    if (const char* p = std::strchr(kFrom, c); p && c) {
      cp = static_cast<uint8_t>(kTo[p - kFrom]);
    } else if (c == 'x' || c == 'u' || c == 'U') {
      if (!parse_hex(c == 'x' ? 2 : c == 'u' ? 4 : 8, cp)) return false;
    } else if (std::strchr("dDsSwWpP", c)) {
      CodeRanges set;
      if (!parse_class_escape(c, set)) return false;
      r.insert(r.end(), set.begin(), set.end());
      return true;
    } else if (c == 'b' || c == 'B') {
      fail(in_class ? "`\\b` inside a class" : "word boundaries are not supported");
      return false;
    } else if (c == 'A' || c == 'z') {
      fail("anchor inside a class");
      return false;
    } else if (std::isalnum(static_cast<unsigned char>(c))) {
      --i_;
      fail(std::string("unknown escape `\\") + c + "`");
      return false;
    } else {
      --i_;  // escaped punctuation or any other character: itself
      cp = decode_utf8();
      if (failed()) return false;
    }
    r.push_back({cp, cp});
    return true;
  }

  bool parse_posix(CodeRanges& r) {
    // at "[:"
    size_t close = p_.find(":]", i_ + 2);
    if (close == std::string_view::npos) return false;
    std::string_view name = p_.substr(i_ + 2, close - i_ - 2);
    bool neg = !name.empty() && name[0] == '^';
    if (neg) name.remove_prefix(1);
    static const std::pair<const char*, const char*> kPosix[] = {{"alnum", "09AZaz"},
                                                                 {"alpha", "AZaz"},
                                                                 {"ascii", "\x01\x7f"},
                                                                 {"blank", "  \t\t"},
                                                                 {"cntrl", "\x01\x1f\x7f\x7f"},
                                                                 {"digit", "09"},
                                                                 {"graph", "!~"},
                                                                 {"lower", "az"},
                                                                 {"print", " ~"},
                                                                 {"punct", "!/:@[`{~"},
                                                                 {"space", "\t\r  "},
                                                                 {"upper", "AZ"},
                                                                 {"word", "09AZ__az"},
                                                                 {"xdigit", "09AFaf"}};
    for (const auto& [n, spans] : kPosix) {
      if (name != n) continue;
      CodeRanges set;
      if (std::string_view(n) == "ascii")
        set.push_back({0, 0x7F});
      else if (std::string_view(n) == "cntrl")
        set = {{0, 0x1F}, {0x7F, 0x7F}};
      else
        for (size_t k = 0; spans[k]; k += 2)
          set.push_back({static_cast<uint8_t>(spans[k]), static_cast<uint8_t>(spans[k + 1])});
      normalize(set);
      if (neg) set = negate(set);
      r.insert(r.end(), set.begin(), set.end());
      i_ = close + 2;
      return true;
    }
    fail("unknown POSIX class `" + std::string(name) + "`");
    return true;
  }

  // One class item (character, range, escape class, POSIX class or nested class) into r.
  bool parse_class_item(const Flags& f, CodeRanges& r) {
    if (p_.compare(i_, 2, "[:") == 0 && parse_posix(r)) return !failed();
    if (p_[i_] == '[') return parse_class(f, r);
    CodeRanges one;
    bool is_single = true;
    uint32_t lo = 0;
    if (p_[i_] == '\\') {
      ++i_;
      if (!parse_escape(one, true)) return false;
      is_single = one.size() == 1 && one[0].first == one[0].second;
      lo = one.empty() ? 0 : one[0].first;
    } else {
      lo = decode_utf8();
      if (failed()) return false;
    }
    if (is_single && i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') {
      ++i_;
      uint32_t hi;
      if (p_[i_] == '\\') {
        ++i_;
        CodeRanges h;
        if (!parse_escape(h, true)) return false;
        if (h.size() != 1 || h[0].first != h[0].second) {
          fail("class range ends in a class");
          return false;
        }
        hi = h[0].first;
      } else {
        hi = decode_utf8();
        if (failed()) return false;
      }
      if (hi < lo) {
        fail("class range out of order");
        return false;
      }
      r.push_back({lo, hi});
      return true;
    }
    if (is_single)
      r.push_back({lo, lo});
    else
      r.insert(r.end(), one.begin(), one.end());
    return true;
  }

  // A class `[...]`; with `operand`, the right operand of `&&`/`--`, whose `[` is implied (it
  // runs to the enclosing class's `]`). Nested classes and operands count as nesting levels.
  bool parse_class(const Flags& f, CodeRanges& out, bool operand = false) {
    if (depth_ >= max_depth_) {  // bounded recursion: `[[[[...` cannot exhaust the stack
      fail(limit_message("", "character class nesting", "max_nesting_depth", max_depth_));
      return false;
    }
    ++depth_;
    bool ok = parse_class_body(f, out, operand);
    --depth_;
    return ok;
  }

  bool parse_class_body(const Flags& f, CodeRanges& out, bool operand) {
    size_t open = operand ? i_ : i_++;
    bool neg = i_ < p_.size() && p_[i_] == '^';
    if (neg) ++i_;
    CodeRanges acc;
    bool first = true;
    while (true) {
      if (i_ >= p_.size()) {
        i_ = open;
        fail("expected `]` closing the class");
        return false;
      }
      if (p_[i_] == ']' && !first) break;
      if (p_.compare(i_, 2, "&&") == 0 || p_.compare(i_, 2, "--") == 0) {
        bool sub = p_[i_] == '-';
        i_ += 2;
        // The rest of this class is the right operand (parsed in place: no copy of the rest).
        CodeRanges rhs;
        if (!parse_class(f, rhs, /*operand=*/true)) {
          fail("bad class operand after `&&`/`--`");
          return false;
        }
        normalize(acc);
        normalize(rhs);
        acc = intersect(acc, sub ? negate(rhs) : rhs);
        --i_;  // the sub-parser consumed our closing ']'
        break;
      }
      if (!parse_class_item(f, acc)) return false;
      first = false;
    }
    ++i_;  // ']'
    if (f.icase) add_ascii_case(acc);
    normalize(acc);
    if (neg) acc = negate(acc);
    out.insert(out.end(), acc.begin(), acc.end());
    normalize(out);
    return true;
  }

  std::string_view p_;
  size_t i_ = 0;
  uint32_t depth_ = 0;
  uint32_t max_depth_;
  Ast ast_;
  ErrorInfo err_;
};

}  // namespace

Result<Ast> parse_regex(std::string_view pattern) { return RegexParser(pattern).run(); }

}  // namespace rx
}  // namespace ai00::internal::grammar
