// Matcher API (matcher.h): commits, rollback, fork, completion, forced bytes, end of text, and
// a compiled grammar shared across threads.
#include <catch2/catch.hpp>
#include <thread>

#include "base/error.h"
#include "grammar/matcher.h"
#include "test_token_mask_vocab.h"

using namespace ai00::internal::grammar;

namespace {
CompiledGrammar compile(const std::string& kbnf, bool with_vocab = false) {
  return CompiledGrammar::compile_kbnf(kbnf, with_vocab ? ai00::test::world_vocab() : nullptr);
}
bool bit(const std::vector<uint64_t>& m, uint32_t id) { return (m[id >> 6] >> (id & 63)) & 1; }
}  // namespace

TEST_CASE("rejected bytes leave the state unchanged", "[grammar][matcher]") {
  Matcher m(compile("start ::= 'abc' | 'abd';"));
  std::string before = m.debug_state();
  CHECK_FALSE(m.accept_bytes("abx"));
  CHECK(m.debug_state() == before);
  CHECK(m.num_steps() == 0);
  CHECK(m.valid_prefix_length("abx") == 2);
  CHECK(m.accept_bytes("ab"));
  CHECK_FALSE(m.is_complete());
  CHECK(m.accept_bytes("d"));
  CHECK(m.is_complete());
  CHECK(m.is_terminated());
  CHECK_FALSE(m.can_continue());
}

TEST_CASE("rollback and fork", "[grammar][matcher]") {
  Matcher m(compile("start ::= #'[a-z]+' '.';"));
  REQUIRE(m.accept_bytes("ab"));
  std::string s1 = m.debug_state();
  Matcher f = m.fork();
  REQUIRE(m.accept_bytes("c."));
  CHECK(m.is_complete());
  CHECK(f.debug_state() == s1);  // the fork is independent
  CHECK_FALSE(f.is_complete());
  m.rollback(1);
  CHECK(m.debug_state() == s1);
  CHECK_THROWS_AS(m.rollback(2), ai00::internal::InvalidArgument);
  m.rollback(1);
  CHECK(m.num_steps() == 0);
  m.reset();
  CHECK(m.valid_prefix_length("xyz.") == 4);
}

TEST_CASE("end of text follows the eos policy", "[grammar][matcher]") {
  auto g = compile("start ::= #'[0-9]+';", true);
  Matcher m(g);
  CHECK_FALSE(bit(m.mask(), 0));  // the empty output is not in the language
  CHECK_FALSE(m.accept_token(0));
  REQUIRE(m.accept_bytes("12"));
  CHECK(bit(m.mask(), 0));
  CHECK(m.can_continue());  // not prefix-free: more digits may follow
  REQUIRE(m.accept_token(0));
  CHECK(m.is_terminated());
  CHECK_FALSE(m.accept_bytes("3"));
  m.rollback(1);
  CHECK_FALSE(m.is_terminated());
  CHECK(m.accept_bytes("3"));
}

TEST_CASE("token ids outside the vocabulary are rejected, not crashed on", "[grammar][matcher]") {
  Matcher m(compile("start ::= 'a';", true));
  CHECK_FALSE(m.accept_token(70000));
  CHECK_FALSE(m.accept_token(65535));  // padding id without bytes
  Matcher nv(compile("start ::= 'a';"));
  CHECK_THROWS_AS(nv.mask(), ai00::internal::InvalidArgument);
  CHECK_THROWS_AS(nv.accept_token(1), ai00::internal::InvalidArgument);
}

TEST_CASE("forced bytes", "[grammar][matcher]") {
  Matcher m(compile(
      "start ::= '<invoke name=\"' ('get_weather' | 'get_time') '\">\\n' #'[a-z]+' '</invoke>';"));
  CHECK(m.forced_bytes() == "<invoke name=\"get_");
  REQUIRE(m.accept_bytes("<invoke name=\"get_w"));
  CHECK(m.forced_bytes() == "eather\">\n");
  REQUIRE(m.accept_bytes("eather\">\nabc"));
  CHECK(m.forced_bytes().empty());
}

TEST_CASE("ambiguity and left recursion at byte level", "[grammar][matcher]") {
  Matcher m(compile("start ::= start 'a' | start 'aa' | 'b';"));
  REQUIRE(m.accept_bytes("b"));
  for (int i = 0; i < 200; ++i) REQUIRE(m.accept_bytes("a"));
  CHECK(m.is_complete());
}

TEST_CASE("a compiled grammar is shared across threads", "[grammar][matcher]") {
  auto g =
      compile("start ::= '{' ws '\"k\"' ws ':' ws #'\"[^\"]*\"' ws '}';\nws ::= #'[ \\n]*';", true);
  std::vector<std::vector<uint64_t>> masks(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Matcher m(g);
      m.accept_bytes("{ \"k\": \"ab");
      masks[t] = m.mask();
    });
  for (auto& th : threads) th.join();
  for (int t = 1; t < 4; ++t) CHECK(masks[t] == masks[0]);
  Matcher m(g);
  m.accept_bytes("{ \"k\": \"ab");
  CHECK(m.mask() == masks[0]);
}

TEST_CASE("kbnf_eager end policy finishes at the first complete token boundary",
          "[grammar][matcher]") {
  CompileOptions opt;
  opt.end_policy = EndPolicy::kbnf_eager;
  auto vocab = ai00::test::world_vocab();
  auto digits = CompiledGrammar::compile_kbnf("start ::= #'[0-9]+';", vocab, {}, opt);
  Matcher m(digits);
  CHECK_FALSE(bit(m.mask(), 0));
  REQUIRE(m.accept_token(vocab->greedy_encode("12")[0]));
  CHECK(m.is_finished());
  CHECK(m.is_terminated());
  std::vector<uint64_t> mask = m.mask();
  size_t n = 0;
  for (uint64_t w : mask) n += __builtin_popcountll(w);
  CHECK(n == 1);
  CHECK(bit(mask, 0));
  CHECK_FALSE(m.accept_bytes("3"));
  CHECK(m.accept_token(0));
  auto as = CompiledGrammar::compile_kbnf("start ::= \"A\"{\"A\"};", vocab, {}, opt);
  Matcher a(as);
  REQUIRE(a.accept_bytes("A"));
  CHECK(a.is_finished());  // kbnf yields exactly one A
  CHECK_FALSE(a.accept_bytes("A"));
  Matcher e(CompiledGrammar::compile_kbnf("start ::= 'x' | '';", vocab, {}, opt));
  CHECK_FALSE(e.is_finished());  // the empty output is never accepted
  CHECK_FALSE(e.accept_token(0));
}
