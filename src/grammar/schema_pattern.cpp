// translate_pattern (schema_regex.h): ECMA-262 `pattern` → Rust regex over the encoded string.
// The pattern is parsed into a small tree of code-point sets, so each set can be re-encoded
// (JSON escapes, raw text) and the result can never produce a raw `"`, `\` or control character.
#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "base/utf8.h"
#include "grammar/kbnf_writer.h"
#include "grammar/regex.h"
#include "grammar/schema_regex.h"

namespace ai00::internal::grammar {

namespace {

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;  // sorted, disjoint, inclusive

constexpr uint32_t kMaxCp = 0x10FFFF;

Ranges normalize(Ranges r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (const auto& x : r) {
    if (!out.empty() && x.first <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, x.second);
    } else {
      out.push_back(x);
    }
  }
  return out;
}

// Complement within Unicode scalar values (surrogates are never characters).
Ranges complement(const Ranges& r) {
  Ranges out;
  uint32_t next = 0;
  for (const auto& x : normalize(r)) {
    if (x.first > next) out.push_back({next, x.first - 1});
    next = x.second + 1;
  }
  if (next <= kMaxCp) out.push_back({next, kMaxCp});
  Ranges no_surrogates;
  for (const auto& x : out) {
    if (x.second < 0xD800 || x.first > 0xDFFF) {
      no_surrogates.push_back(x);
      continue;
    }
    if (x.first < 0xD800) no_surrogates.push_back({x.first, 0xD7FF});
    if (x.second > 0xDFFF) no_surrogates.push_back({0xE000, x.second});
  }
  return no_surrogates;
}

Ranges subtract(const Ranges& a, const Ranges& b) {
  Ranges out;
  const Ranges nb = complement(b);
  for (const auto& x : normalize(a))
    for (const auto& y : nb) {
      const uint32_t lo = std::max(x.first, y.first), hi = std::min(x.second, y.second);
      if (lo <= hi) out.push_back({lo, hi});
    }
  return normalize(out);
}

bool contains(const Ranges& r, uint32_t cp) {
  for (const auto& x : r)
    if (cp >= x.first && cp <= x.second) return true;
  return false;
}

const Ranges kDigit = {{'0', '9'}};
const Ranges kWord = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
const Ranges kSpace = {{0x09, 0x0D},     {0x20, 0x20},     {0xA0, 0xA0},     {0x1680, 0x1680},
                       {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F},
                       {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
const Ranges kLineTerminators = {{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}};

struct Node {
  enum Kind { set, seq, alt, repeat, anchor_start, anchor_end } kind = seq;
  Ranges chars;                              // set
  std::vector<std::unique_ptr<Node>> items;  // seq, alt, repeat (one item)
  uint32_t min = 0, max = 0;                 // repeat; max == kUnbounded for no upper bound
};
constexpr uint32_t kUnbounded = 0xFFFFFFFF;

struct PatternError {
  std::string message;
};

class PatternParser {
 public:
  explicit PatternParser(std::string_view p) {
    for (size_t i = 0; i < p.size();) {
      uint32_t cp = 0;
      const size_t n = utf8::decode_one(p.substr(i), &cp);
      if (n == 0) throw PatternError{"invalid UTF-8 in pattern"};
      cps_.push_back(cp);
      i += n;
    }
  }

  std::unique_ptr<Node> parse() {
    auto n = parse_alt();
    if (pos_ < cps_.size()) fail("unmatched ')'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw PatternError{what + " at character " + std::to_string(pos_)};
  }
  bool at_end() const { return pos_ >= cps_.size(); }
  uint32_t peek(size_t k = 0) const { return pos_ + k < cps_.size() ? cps_[pos_ + k] : 0; }

  std::unique_ptr<Node> parse_alt() {
    auto first = parse_seq();
    if (at_end() || peek() != '|') return first;
    auto alt = std::make_unique<Node>();
    alt->kind = Node::alt;
    alt->items.push_back(std::move(first));
    while (!at_end() && peek() == '|') {
      ++pos_;
      alt->items.push_back(parse_seq());
    }
    return alt;
  }

  std::unique_ptr<Node> parse_seq() {
    auto seq = std::make_unique<Node>();
    seq->kind = Node::seq;
    while (!at_end() && peek() != '|' && peek() != ')') {
      auto atom = parse_atom();
      seq->items.push_back(parse_quantifier(std::move(atom)));
    }
    return seq;
  }

  static std::unique_ptr<Node> make_set(Ranges r) {
    auto n = std::make_unique<Node>();
    n->kind = Node::set;
    n->chars = normalize(std::move(r));
    return n;
  }

  std::unique_ptr<Node> parse_atom() {
    const uint32_t c = peek();
    if (c == '*' || c == '+' || c == '?') fail("nothing to repeat");
    ++pos_;
    switch (c) {
      case '(':
        return parse_group();
      case '[':
        return make_set(parse_class());
      case '.':
        return make_set(complement(kLineTerminators));
      case '^': {
        auto n = std::make_unique<Node>();
        n->kind = Node::anchor_start;
        return n;
      }
      case '$': {
        auto n = std::make_unique<Node>();
        n->kind = Node::anchor_end;
        return n;
      }
      case '\\':
        return make_set(parse_escape(false));
      default:
        return make_set({{c, c}});
    }
  }

  std::unique_ptr<Node> parse_group() {
    if (peek() == '?') {
      if (peek(1) == ':') {
        pos_ += 2;
      } else if (peek(1) == '<' && peek(2) != '=' && peek(2) != '!') {
        pos_ += 2;  // named group: the name does not change the language
        while (!at_end() && peek() != '>') ++pos_;
        if (at_end()) fail("unterminated group name");
        ++pos_;
      } else {
        fail("lookaround is not supported");
      }
    }
    // Bounded nesting: a hostile pattern must not exhaust the stack.
    if (++depth_ > 200) fail("groups nested deeper than 200");
    auto inner = parse_alt();
    --depth_;
    if (at_end() || peek() != ')') fail("missing ')'");
    ++pos_;
    return inner;
  }

  bool read_number(uint32_t& out) {
    size_t start = pos_;
    uint64_t v = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      v = v * 10 + (peek() - '0');
      if (v > 100000) fail("repetition count too large");
      ++pos_;
    }
    out = static_cast<uint32_t>(v);
    return pos_ > start;
  }

  // {m}, {m,}, {m,n}; anything else after '{' is a literal '{' (ECMA-262 Annex B).
  bool parse_braces(uint32_t& min, uint32_t& max) {
    const size_t save = pos_;
    ++pos_;
    if (!read_number(min)) return pos_ = save, false;
    max = min;
    if (peek() == ',') {
      ++pos_;
      if (!read_number(max)) max = kUnbounded;
    }
    if (peek() != '}') return pos_ = save, false;
    ++pos_;
    if (max < min) fail("repetition range out of order");
    return true;
  }

  std::unique_ptr<Node> parse_quantifier(std::unique_ptr<Node> atom) {
    uint32_t min, max;
    const uint32_t c = peek();
    if (c == '*') {
      min = 0, max = kUnbounded, ++pos_;
    } else if (c == '+') {
      min = 1, max = kUnbounded, ++pos_;
    } else if (c == '?') {
      min = 0, max = 1, ++pos_;
    } else if (c == '{' && parse_braces(min, max)) {
    } else {
      return atom;
    }
    if (atom->kind == Node::anchor_start || atom->kind == Node::anchor_end)
      fail("quantified anchor is not supported");
    if (peek() == '?') ++pos_;  // lazy: the same set of strings
    auto rep = std::make_unique<Node>();
    rep->kind = Node::repeat;
    rep->min = min, rep->max = max;
    rep->items.push_back(std::move(atom));
    return rep;
  }

  uint32_t read_hex(size_t digits) {
    uint32_t v = 0;
    for (size_t k = 0; k < digits; ++k) {
      const uint32_t h = peek();
      int d = (h >= '0' && h <= '9')   ? int(h - '0')
              : (h >= 'a' && h <= 'f') ? int(h - 'a' + 10)
              : (h >= 'A' && h <= 'F') ? int(h - 'A' + 10)
                                       : -1;
      if (d < 0) fail("bad hexadecimal escape");
      v = v * 16 + static_cast<uint32_t>(d);
      ++pos_;
    }
    return v;
  }

  Ranges parse_escape(bool in_class) {
    if (at_end()) fail("pattern ends with '\\'");
    const uint32_t c = peek();
    ++pos_;
    switch (c) {
      case 'd':
        return kDigit;
      case 'D':
        return complement(kDigit);
      case 'w':
        return kWord;
      case 'W':
        return complement(kWord);
      case 's':
        return kSpace;
      case 'S':
        return complement(kSpace);
      case 't':
        return {{'\t', '\t'}};
      case 'n':
        return {{'\n', '\n'}};
      case 'r':
        return {{'\r', '\r'}};
      case 'f':
        return {{'\f', '\f'}};
      case 'v':
        return {{'\v', '\v'}};
      case '0':
        return {{0, 0}};
      case 'x': {
        uint32_t v = read_hex(2);
        return {{v, v}};
      }
      case 'u': {
        uint32_t v;
        if (peek() == '{') {
          ++pos_;
          v = 0;
          size_t n = 0;
          while (!at_end() && peek() != '}') v = v * 16 + read_hex(1), ++n;
          if (at_end() || n == 0 || n > 6 || v > kMaxCp) fail("bad \\u{...} escape");
          ++pos_;
        } else {
          v = read_hex(4);
        }
        if (v >= 0xD800 && v <= 0xDFFF) fail("surrogate escapes are not supported");
        return {{v, v}};
      }
      case 'c': {
        const uint32_t l = peek();
        if (!((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z'))) fail("bad \\c escape");
        ++pos_;
        return {{l % 32, l % 32}};
      }
      case 'b':
        if (in_class) return {{'\b', '\b'}};
        fail("word boundary \\b is not supported");
      case 'p':
      case 'P': {
        // Unicode property escapes (ECMA-262 `u` mode): \p{L}, \p{Letter}, \p{gc=Lu},
        // \p{Script=Han}, \p{sc=Greek}; as Rust reads them, a lone script name (\p{Han}) too.
        if (at_end() || peek() != '{') fail("expected `{` after \\p");
        ++pos_;
        std::string name;
        while (!at_end() && peek() != '}') {
          if (peek() > 0x7E) fail("bad Unicode property name");
          name += static_cast<char>(peek());
          ++pos_;
        }
        if (at_end()) fail("expected `}` closing \\p{");
        ++pos_;
        CodeRanges set;
        if (!unicode_property(name, set)) fail("unknown Unicode property `" + name + "`");
        Ranges r(set.begin(), set.end());
        r = subtract(normalize(r), {{0xD800, 0xDFFF}});  // surrogates are never characters
        return c == 'p' ? r : complement(r);
      }
      default:
        break;
    }
    if (c >= '1' && c <= '9') fail("backreferences are not supported");
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
      fail(std::string("unsupported escape \\") + static_cast<char>(c));
    return {{c, c}};  // identity escape of punctuation
  }

  Ranges parse_class() {
    bool negate = false;
    if (peek() == '^') negate = true, ++pos_;
    Ranges r;
    bool first = true;
    while (true) {
      if (at_end()) fail("unterminated character class");
      if (peek() == ']' && !first) break;
      if (peek() == ']' && first) break;  // ECMA: [] is an empty class
      first = false;
      Ranges lo = class_atom();
      if (peek() == '-' && peek(1) != ']' && pos_ + 1 < cps_.size()) {
        ++pos_;
        Ranges hi = class_atom();
        if (lo.size() != 1 || hi.size() != 1 || lo[0].first != lo[0].second ||
            hi[0].first != hi[0].second)
          fail("character class range with a class escape");
        if (hi[0].first < lo[0].first) fail("character class range out of order");
        r.push_back({lo[0].first, hi[0].first});
      } else {
        r.insert(r.end(), lo.begin(), lo.end());
      }
    }
    ++pos_;  // ']'
    return negate ? complement(r) : normalize(r);
  }

  Ranges class_atom() {
    const uint32_t c = peek();
    ++pos_;
    if (c == '\\') return parse_escape(true);
    return {{c, c}};
  }

  std::vector<uint32_t> cps_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Emission

std::string class_regex(const Ranges& r) {
  if (r.size() == 1 && r[0].first == r[0].second) return regex_code_point(r[0].first);
  std::string out = "[";
  for (const auto& x : r) {
    out += regex_code_point(x.first);
    if (x.second != x.first) out += "-" + regex_code_point(x.second);
  }
  return out + "]";
}

const char* short_json_escape(uint32_t c) {
  switch (c) {
    case '\b':
      return "b";
    case '\f':
      return "f";
    case '\n':
      return "n";
    case '\r':
      return "r";
    case '\t':
      return "t";
    default:
      return nullptr;
  }
}

// The encoded forms of a set of decoded characters; empty when nothing can be written.
std::string encode_set(const Ranges& chars, StringEncoding enc) {
  std::vector<std::string> alts;
  if (enc == StringEncoding::json) {
    const Ranges specials = {{0, 0x1F}, {'"', '"'}, {'\\', '\\'}};
    const Ranges plain = subtract(chars, specials);
    if (!plain.empty()) alts.push_back(class_regex(plain));
    if (contains(chars, '"')) alts.push_back("\\\\\"");
    if (contains(chars, '\\')) alts.push_back("\\\\\\\\");
    if (contains(chars, '/')) alts.push_back("\\\\/");
    for (uint32_t c = 0; c < 0x20; ++c) {
      if (!contains(chars, c)) continue;
      if (const char* s = short_json_escape(c)) alts.push_back(std::string("\\\\") + s);
      const char* hex = "0123456789abcdef";
      const char lo = hex[c & 15];
      const std::string lo_class =
          (lo >= 'a') ? std::string("[") + lo + static_cast<char>(lo - 'a' + 'A') + "]"
                      : std::string(1, lo);
      alts.push_back(std::string("\\\\u00") + hex[c >> 4] + lo_class);
    }
  } else {
    const Ranges r = enc == StringEncoding::raw_no_lt ? subtract(chars, {{'<', '<'}}) : chars;
    if (!r.empty()) alts.push_back(class_regex(r));
  }
  if (alts.empty()) return "";
  if (alts.size() == 1) return alts[0];
  std::string out = "(?:";
  for (size_t i = 0; i < alts.size(); ++i) out += (i ? "|" : "") + alts[i];
  return out + ")";
}

std::string emit(const Node& n, StringEncoding enc) {
  switch (n.kind) {
    case Node::set: {
      std::string s = encode_set(n.chars, enc);
      if (s.empty()) throw PatternError{"a character set of the pattern has no encodable member"};
      return s;
    }
    case Node::seq: {
      std::string out;
      for (const auto& it : n.items) out += emit(*it, enc);
      return out;
    }
    case Node::alt: {
      std::string out = "(?:";
      for (size_t i = 0; i < n.items.size(); ++i) out += (i ? "|" : "") + emit(*n.items[i], enc);
      return out + ")";
    }
    case Node::repeat: {
      std::string out = "(?:" + emit(*n.items[0], enc) + ")";
      if (n.min == 0 && n.max == kUnbounded) return out + "*";
      if (n.min == 1 && n.max == kUnbounded) return out + "+";
      if (n.min == 0 && n.max == 1) return out + "?";
      if (n.max == kUnbounded) return out + "{" + std::to_string(n.min) + ",}";
      if (n.min == n.max) return out + "{" + std::to_string(n.min) + "}";
      return out + "{" + std::to_string(n.min) + "," + std::to_string(n.max) + "}";
    }
    case Node::anchor_start:
    case Node::anchor_end:
      throw PatternError{"anchors are only supported at the ends of the pattern"};
  }
  return "";
}

// One top-level alternative: strips its end anchors and pads unanchored ends with any text.
std::string emit_top(Node& seq, StringEncoding enc) {
  bool anchored_start = false, anchored_end = false;
  auto& items = seq.items;
  if (!items.empty() && items.front()->kind == Node::anchor_start)
    anchored_start = true, items.erase(items.begin());
  if (!items.empty() && items.back()->kind == Node::anchor_end)
    anchored_end = true, items.pop_back();
  const std::string any = "(?:" + string_unit_regex(enc) + ")*";
  return (anchored_start ? "" : any) + emit(seq, enc) + (anchored_end ? "" : any);
}

}  // namespace

Result<std::string> translate_pattern(std::string_view pattern, StringEncoding enc) {
  try {
    auto root = PatternParser(pattern).parse();
    std::vector<Node*> tops;
    if (root->kind == Node::alt) {
      for (auto& it : root->items) tops.push_back(it.get());
    } else {
      tops.push_back(root.get());
    }
    std::string out;
    for (size_t i = 0; i < tops.size(); ++i) out += (i ? "|" : "") + emit_top(*tops[i], enc);
    return tops.size() > 1 ? "(?:" + out + ")" : out;
  } catch (const PatternError& e) {
    return make_error(ErrorKind::grammar, "pattern /" + std::string(pattern) + "/: " + e.message);
  }
}

}  // namespace ai00::internal::grammar
