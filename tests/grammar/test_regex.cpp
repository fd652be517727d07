// Terminal automata (regex.h): byte-level, UTF-8 aware DFAs for every terminal kind, bounded.
#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "grammar/regex.h"

using namespace ai00::internal::grammar;
using Catch::Matchers::Contains;

namespace {

Dfa build(ExprKind kind, const std::string& text) {
  DfaBudget budget;
  auto r = build_terminal_dfa(kind, text, budget);
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Whole-string match of the terminal.
bool full(const Dfa& d, const std::string& s) {
  uint32_t q = d.start;
  for (unsigned char b : s) {
    q = d.step(q, b);
    if (q == Dfa::kDead) return false;
  }
  return d.accepting[q] != 0;
}

bool re(const std::string& pattern, const std::string& s) {
  return full(build(ExprKind::regex, pattern), s);
}

}  // namespace

TEST_CASE("regex classes, shorthands and quantifiers", "[grammar][regex]") {
  CHECK(re("[a-c]{2,3}", "abc"));
  CHECK_FALSE(re("[a-c]{2,3}", "abca"));
  CHECK_FALSE(re("[a-c]{2,3}", "a"));
  CHECK(re("[^a-c]+", "xyz"));
  CHECK_FALSE(re("[^a-c]+", "xaz"));
  CHECK(re("\\d{3}-\\w+\\s", "123-héllo\t"));
  CHECK(re("x{3,}", "xxxxx"));
  CHECK_FALSE(re("x{3,}", "xx"));
  CHECK(re("(ab|cd)*e?", ""));
  CHECK(re("(?:ab|cd)*e?", "abcde"));
  CHECK(re("(?P<name>a)(?<other>b)", "ab"));
  CHECK(re("(?x) a b  # comment\n c", "abc"));
  CHECK(re("[\\[\\]-]+", "[]-"));
  CHECK(re("[]a]+", "]a"));
}

TEST_CASE("dot and negated classes match whole UTF-8 characters only", "[grammar][regex]") {
  CHECK(re(".", "é"));
  CHECK(re(".", "\xF0\x9F\x98\x80"));
  CHECK_FALSE(re(".", "\n"));
  CHECK_FALSE(re(".", "\xFF"));          // not UTF-8
  CHECK_FALSE(re(".", "\xC3"));          // truncated
  CHECK_FALSE(re(".", "\xED\xA0\x80"));  // a surrogate
  CHECK(re("[^a]", "\xE4\xB8\x80"));
  CHECK(re("(?s).", "\n"));
}

TEST_CASE("Unicode general categories", "[grammar][regex]") {
  CHECK(re("\\p{L}+", "ΩmegaÉ漢"));
  CHECK_FALSE(re("\\p{L}", "1"));
  CHECK(re("\\p{N}+", "1٣Ⅻ½"));
  CHECK(re("\\p{Nd}", "٣"));
  CHECK_FALSE(re("\\p{Nd}", "Ⅻ"));
  CHECK(re("\\p{Lu}\\p{Ll}", "Aa"));
  CHECK(re("\\pL\\p{gc=Lo}", "a漢"));
  CHECK(re("\\p{Letter}\\p{White_Space}\\p{Any}", "a\xC2\xA0\n"));
}

TEST_CASE("Unicode scripts", "[grammar][regex]") {
  CHECK(re("\\p{Han}+", "漢字中文"));
  CHECK_FALSE(re("\\p{Han}", "a"));
  CHECK_FALSE(re("\\p{Han}", "あ"));
  CHECK(re("\\p{Hiragana}", "あ"));
  CHECK(re("\\p{Greek}+\\p{Script=Latin}\\p{sc=Cyrl}", "Ωμa\xD0\x96"));
  CHECK(re("[\\p{Han}\\p{Latin}]+", "a漢b"));
  CHECK(re("\\P{Han}", "a"));
  CHECK_FALSE(re("\\P{Han}", "漢"));
}

TEST_CASE("regex errors", "[grammar][regex]") {
  for (const char* bad : {"(", "a)", "[a-", "a{2", "*a", "a{3,2}", "\\q", "(?=x)", "\\bx",
                          "\\p{Greekish}", "\\p{sc=Lu}", "[z-a]", "(?Z)"}) {
    DfaBudget budget;
    auto r = build_terminal_dfa(ExprKind::regex, bad, budget);
    INFO(bad);
    CHECK_FALSE(r.ok());
    if (!r.ok()) CHECK_THAT(r.error().message, Contains("regex offset"));
  }
}

TEST_CASE("size bounds stop exponential automata", "[grammar][regex]") {
  DfaBudget budget;
  budget.max_dfa_states = budget.dfa_limit = 1000;
  auto r = build_terminal_dfa(ExprKind::regex, "(a|b)*a(a|b){12}", budget);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message,
             Contains("the number of DFA states exceeds the limit max_grammar_states = 1000"));
  DfaBudget ok_budget;
  CHECK(build_terminal_dfa(ExprKind::regex, "[^\"]{0,200}", ok_budget).ok());
}

TEST_CASE("early-end, complement and substrings", "[grammar][regex]") {
  Dfa e = build(ExprKind::regex_early, "a+b");
  CHECK(full(e, "aab"));
  CHECK_FALSE(full(e, "aabab"));  // ends at the first match
  Dfa en = build(ExprKind::regex_early, "x*");
  CHECK_FALSE(full(en, ""));
  CHECK(full(en, "x"));
  CHECK_FALSE(full(en, "xx"));
  Dfa c = build(ExprKind::regex_complement, "</p>");
  CHECK(full(c, "abc</p"));
  CHECK(full(c, "<</pp>"));
  CHECK_FALSE(full(c, "a</p>"));
  CHECK_FALSE(full(c, ""));  // never empty
  // valid UTF-8 only (the text between markers is text): whole characters of every length
  CHECK(full(c, "h\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"));
  for (const char* bad : {"\xFF\xFE", "a\xC3", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                          "\xE0\x80\x80", "\x80", "\xF5\x80\x80\x80"}) {
    INFO(bad);
    CHECK_FALSE(full(c, bad));
  }
  Dfa s = build(ExprKind::substrings, "abcab");
  for (const char* yes : {"", "a", "bca", "cab", "abcab", "ab"}) CHECK(full(s, yes));
  for (const char* no : {"ba", "abcabc", "aa", "d"}) CHECK_FALSE(full(s, no));
  Dfa l = build(ExprKind::literal, "héllo");
  CHECK(full(l, "héllo"));
  CHECK_FALSE(full(l, "héll"));
  CHECK(build(ExprKind::literal, "").nullable());
}

// The subset construction computes each state's successors for all byte classes in one walk
// over the state's edges (an edge covers a run of classes): overlapping ranges, negations, `.`
// and alternatives under a loop must still give exactly the language of the pattern. std::regex
// (ECMAScript) is the reference on ASCII text without \r, where its syntax and `.` agree.
TEST_CASE("automata of overlapping classes agree with std::regex on every short string",
          "[grammar][regex]") {
  const char* const patterns[] = {"[a-z]*(m|[k-p]x|z[^m])+",   "(.*[b-y]|x-|[^a-x]a)*m",
                                  ".*(ab|[a-m]|||[l-z]{2})x?", "([a-c]|[b-d]|b|[^b])*-[m-x]",
                                  "(a|b)*a(a|b){2}",           "[^-]*-?[^a-z\n]*"};
  const std::string alphabet = "abmxz-\n";
  std::vector<std::string> texts = {""};
  for (size_t n = 0, begin = 0; n < 4; ++n) {  // every string of up to 4 symbols
    const size_t end = texts.size();
    for (size_t i = begin; i < end; ++i)
      for (char ch : alphabet) texts.push_back(texts[i] + ch);
    begin = end;
  }
  for (const char* p : patterns) {
    INFO(p);
    const Dfa d = build(ExprKind::regex, p);
    const std::regex ref(p, std::regex::ECMAScript);
    for (const std::string& t : texts) {
      INFO(t);
      CHECK(full(d, t) == std::regex_match(t, ref));
    }
  }
}
