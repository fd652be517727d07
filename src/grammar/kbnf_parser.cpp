// KBNF text -> Grammar: a recursive-descent parser of the kbnf-syntax 0.5.3 dialect
// (docs/grammar.md "KBNF syntax"). Groups are parsed token by token, so quotes inside brackets are
// literals, never bracket characters (the fix of section 3 row 1).
#include "grammar/kbnf_parser.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "base/limits.h"
#include "base/utf8.h"

namespace ai00::internal::grammar {
namespace {

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string describe(std::string_view text, size_t at) {
  if (at >= text.size()) return "end of input";
  unsigned char c = static_cast<unsigned char>(text[at]);
  if (c == '\n') return "a newline";
  if (c < 0x20 || c >= 0x7f) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return buf;
  }
  return std::string("`") + static_cast<char>(c) + "`";
}

std::string at_message(SourcePos p, const std::string& what) {
  return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column) + ": " + what;
}

class Parser {
 public:
  Parser(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
  }

  Result<Grammar> run(const ParseOptions& options) {
    Grammar g;
    g.start = options.start;
    skip_space();
    while (error_.message.empty() && i_ < text_.size()) {
      if (text_.compare(i_, 2, "(*") == 0) {
        skip_comment();
      } else {
        parse_rule(g);
      }
      skip_space();
    }
    if (!error_.message.empty()) return error_;
    return g;
  }

 private:
  SourcePos pos_at(size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    size_t line = static_cast<size_t>(it - line_starts_.begin());
    return {static_cast<uint32_t>(line), static_cast<uint32_t>(offset - *(it - 1) + 1)};
  }

  // Records the first error only; parsing unwinds by checking failed().
  void fail_at(size_t offset, const std::string& expected) {
    if (!error_.message.empty()) return;
    error_ = make_error(
        ErrorKind::grammar,
        at_message(pos_at(offset), "expected " + expected + ", found " + describe(text_, offset)));
  }
  bool failed() const { return !error_.message.empty(); }

  void skip_space() {
    while (i_ < text_.size() &&
           (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' || text_[i_] == '\r'))
      ++i_;
  }

  void skip_comment() {
    size_t end = text_.find("*)", i_ + 2);
    if (end == std::string_view::npos) {
      fail_at(text_.size(), "`*)` closing the comment opened at " +
                                std::to_string(pos_at(i_).line) + ":" +
                                std::to_string(pos_at(i_).column));
      return;
    }
    i_ = end + 2;
  }

  void parse_rule(Grammar& g) {
    size_t start = i_;
    if (!is_ident_start(text_[i_])) return fail_at(i_, "a rule name or a comment");
    while (i_ < text_.size() && is_ident_char(text_[i_])) ++i_;
    std::string name(text_.substr(start, i_ - start));
    skip_space();
    if (text_.compare(i_, 3, "::=") == 0) {
      i_ += 3;
    } else if (i_ < text_.size() && text_[i_] == '=') {
      i_ += 1;
    } else {
      return fail_at(i_, "`::=` or `=` after the rule name `" + name + "`");
    }
    Expr body = parse_alternation();
    if (failed()) return;
    skip_space();
    if (i_ >= text_.size() || text_[i_] != ';') return fail_at(i_, "`;` or `|` or an item");
    ++i_;
    g.rules.push_back(Rule{std::move(name), std::move(body), pos_at(start)});
  }

  Expr parse_alternation() {
    skip_space();
    SourcePos p = pos_at(i_);
    std::vector<Expr> alts;
    alts.push_back(parse_concatenation());
    while (!failed()) {
      skip_space();
      if (i_ >= text_.size() || text_[i_] != '|') break;
      ++i_;
      alts.push_back(parse_concatenation());
    }
    if (alts.size() == 1) return std::move(alts[0]);
    return Expr::choice(std::move(alts), p);
  }

  bool at_item_start() const {
    if (i_ >= text_.size()) return false;
    char c = text_[i_];
    return is_ident_start(c) || c == '\'' || c == '"' || c == '#' || c == '(' || c == '[' ||
           c == '{';
  }

  Expr parse_concatenation() {
    skip_space();
    SourcePos p = pos_at(i_);
    std::vector<Expr> items;
    if (!at_item_start()) {
      fail_at(i_, "an item (literal, regex, rule name or group)");
      return {};
    }
    items.push_back(parse_postfix());
    while (!failed()) {
      skip_space();
      if (i_ < text_.size() && text_[i_] == ',') {
        ++i_;
        skip_space();
        if (!at_item_start()) {
          fail_at(i_, "an item after `,`");
          break;
        }
      } else if (!at_item_start()) {
        break;
      }
      items.push_back(parse_postfix());
    }
    if (items.size() == 1) return std::move(items[0]);
    return Expr::sequence(std::move(items), p);
  }

  Expr parse_postfix() {
    SourcePos p = pos_at(i_);
    Expr atom = parse_atom();
    if (failed() || i_ >= text_.size()) return atom;
    char c = text_[i_];  // no space allowed before a postfix operator? kbnf allows it; so do we
    size_t j = i_;
    while (j < text_.size() &&
           (text_[j] == ' ' || text_[j] == '\t' || text_[j] == '\n' || text_[j] == '\r'))
      ++j;
    if (j < text_.size()) c = text_[j];
    ExprKind k;
    if (c == '?') {
      k = ExprKind::optional;
    } else if (c == '*') {
      k = ExprKind::star;
    } else if (c == '+') {
      k = ExprKind::plus;
    } else {
      return atom;
    }
    i_ = j + 1;
    return Expr::unary(k, std::move(atom), p);
  }

  Expr parse_group(char close, ExprKind kind, size_t open_at) {
    if (++depth_ > max_depth_) {  // bounded recursion: hostile input cannot exhaust the stack
      if (error_.message.empty())
        error_ = make_error(
            ErrorKind::grammar,
            at_message(pos_at(open_at),
                       limit_message("", "group nesting", "max_nesting_depth", max_depth_)));
      return {};
    }
    ++i_;
    Expr inner = parse_alternation();
    --depth_;
    if (failed()) return {};
    skip_space();
    if (i_ >= text_.size() || text_[i_] != close) {
      fail_at(i_, std::string("`") + close + "` closing the group opened at " +
                      std::to_string(pos_at(open_at).line) + ":" +
                      std::to_string(pos_at(open_at).column) + ", or `|` or an item");
      return {};
    }
    ++i_;
    if (kind == ExprKind::sequence) return inner;  // plain ( ... )
    return Expr::unary(kind, std::move(inner), pos_at(open_at));
  }

  Expr parse_atom() {
    size_t start = i_;
    char c = text_[i_];
    if (c == '(') return parse_group(')', ExprKind::sequence, start);
    if (c == '[') return parse_group(']', ExprKind::optional, start);
    if (c == '{') return parse_group('}', ExprKind::star, start);
    if (is_ident_start(c)) {
      while (i_ < text_.size() && is_ident_char(text_[i_])) ++i_;
      return Expr::ref(std::string(text_.substr(start, i_ - start)), pos_at(start));
    }
    ExprKind kind = ExprKind::literal;
    if (c == '#') {
      ++i_;
      static const std::pair<const char*, ExprKind> kPrefixes[] = {
          {"substrs", ExprKind::substrings},
          {"ex", ExprKind::regex_complement},
          {"e", ExprKind::regex_early},
      };
      kind = ExprKind::regex;
      for (const auto& [word, k] : kPrefixes) {
        size_t n = std::char_traits<char>::length(word);
        if (text_.compare(i_, n, word) == 0 && i_ + n < text_.size() &&
            (text_[i_ + n] == '\'' || text_[i_ + n] == '"')) {
          kind = k;
          i_ += n;
          break;
        }
      }
      if (i_ >= text_.size() || (text_[i_] != '\'' && text_[i_] != '"')) {
        fail_at(i_, "a quote after `#` (#'re', #e're', #ex're' or #substrs'text')");
        return {};
      }
    }
    std::string body;
    if (!parse_quoted(body)) return {};
    return Expr::terminal(kind, std::move(body), pos_at(start));
  }

  // Reads a quoted string at i_ and unescapes it.
  bool parse_quoted(std::string& out) {
    char q = text_[i_];
    size_t body_start = i_ + 1, j = body_start;
    while (j < text_.size() && text_[j] != q) j += text_[j] == '\\' ? 2 : 1;
    if (j >= text_.size()) {
      fail_at(text_.size(), std::string("closing ") + q + " of the string opened at " +
                                std::to_string(pos_at(i_).line) + ":" +
                                std::to_string(pos_at(i_).column));
      return false;
    }
    auto r = unescape_kbnf_literal(text_.substr(body_start, j - body_start), pos_at(body_start));
    if (!r.ok()) {
      if (error_.message.empty()) error_ = r.error();
      return false;
    }
    out = std::move(r).value();
    i_ = j + 1;
    return true;
  }

  std::string_view text_;
  std::vector<size_t> line_starts_;
  size_t i_ = 0;
  uint32_t depth_ = 0;
  uint32_t max_depth_ = limits().max_nesting_depth;
  ErrorInfo error_;
};

}  // namespace

namespace {

// \u escapes: 4 hex digits or {1-6 hex digits}; i is at the `u`. Empty string on success.
std::string unescape_u(std::string_view s, size_t& i, std::string& out) {
  uint32_t cp = 0;
  if (i + 1 < s.size() && s[i + 1] == '{') {
    size_t j = i + 2;
    int n = 0;
    for (; j < s.size() && s[j] != '}' && hex_value(s[j]) >= 0 && n < 6; ++j, ++n)
      cp = cp * 16 + hex_value(s[j]);
    if (n == 0 || j >= s.size() || s[j] != '}')
      return "expected 1 to 6 hex digits and `}` after `\\u{`";
    i = j;
  } else {
    for (int k = 1; k <= 4; ++k) {
      int v = i + k < s.size() ? hex_value(s[i + k]) : -1;
      if (v < 0) return "expected four hex digits after `\\u`";
      cp = cp * 16 + v;
    }
    i += 4;
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return "expected a Unicode scalar value in `\\u` escape";
  utf8::append_code_point(cp, out);
  return "";
}

// One escape; i is at the character after the backslash and ends on the escape's last character.
// Returns an empty string on success, else what was expected.
std::string unescape_one(std::string_view s, size_t& i, std::string& out) {
  static const char kFrom[] = "bfnrtv'\"\\/", kTo[] = "\b\f\n\r\t\v'\"\\/";
  char c = s[i];
  if (const char* p = std::strchr(kFrom, c); p && c) {
    out += kTo[p - kFrom];
    return "";
  }
  if (c == 'x') {
    int h = i + 2 < s.size() ? hex_value(s[i + 1]) : -1, l = h >= 0 ? hex_value(s[i + 2]) : -1;
    if (l < 0) return "expected two hex digits after `\\x`";
    out += static_cast<char>(h * 16 + l);
    i += 2;
    return "";
  }
  if (c == 'u') return unescape_u(s, i, out);
  if (c >= '0' && c <= '7') {
    uint32_t v = 0;
    size_t j = i;
    for (int n = 0; j < s.size() && n < 3 && s[j] >= '0' && s[j] <= '7'; ++j, ++n)
      v = v * 8 + (s[j] - '0');
    if (v > 255) return "expected an octal escape up to \\377";
    out += static_cast<char>(v);
    i = j - 1;
    return "";
  }
  return std::string(
             "expected a valid escape (\\b \\f \\n \\r \\t \\v \\' \\\" \\\\ \\/ "
             "\\uHHHH \\u{X} \\xHH \\NNN), found `\\") +
         c + "`";
}

}  // namespace

Result<std::string> unescape_kbnf_literal(std::string_view s, SourcePos pos) {
  std::string out;
  out.reserve(s.size());
  uint32_t newlines = 0;
  size_t line_begin = 0;  // index in s of the current line's first byte
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      if (s[i] == '\n') newlines++, line_begin = i + 1;
      continue;
    }
    SourcePos at{pos.line + newlines,
                 static_cast<uint32_t>(newlines ? i - line_begin + 1 : pos.column + i)};
    std::string err = i + 1 >= s.size() ? "expected an escape after `\\`, found end of string"
                                        : unescape_one(s, ++i, out);
    if (!err.empty()) return make_error(ErrorKind::grammar, at_message(at, err));
  }
  return out;
}

Result<Grammar> parse_kbnf(std::string_view text, const ParseOptions& options) {
  if (uint64_t max = limits().max_input_bytes; text.size() > max)
    return make_error(ErrorKind::grammar,
                      limit_message("KBNF grammar", std::to_string(text.size()) + " bytes",
                                    "max_input_bytes", max));
  return Parser(text).run(options);
}

namespace {
void find_undefined(const Expr& e, const Grammar& g, ErrorInfo& err) {
  if (!err.message.empty()) return;
  if (e.kind == ExprKind::nonterminal && g.find_rule(e.text) < 0) {
    err = make_error(ErrorKind::grammar, at_message(e.pos, "undefined rule `" + e.text + "`"));
    return;
  }
  for (const Expr& c : e.children) find_undefined(c, g, err);
}
}  // namespace

ErrorInfo check_references(const Grammar& g) {
  ErrorInfo err;
  err.kind = ErrorKind::grammar;
  if (g.find_rule(g.start) < 0) {
    err.message = "undefined start rule `" + g.start + "`";
    return err;
  }
  for (const Rule& r : g.rules) find_undefined(r.body, g, err);
  return err;
}

}  // namespace ai00::internal::grammar
