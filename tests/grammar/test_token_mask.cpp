// Token-level checks over the corpus with the RWKV World vocabulary (docs/grammar.md
// "Performance targets", correctness gates): every token of the greedy tokenization of an accept
// string is in the mask before it is committed; token 0 is in the mask exactly when the parse is
// complete; masks and states agree whether bytes arrive per token or one at a time; rollback and
// fork restore identical masks; masks equal a brute-force check of every token at sampled
// positions.
#include <catch2/catch.hpp>

#include "grammar/matcher.h"
#include "test_token_mask_vocab.h"

using namespace ai00::internal::grammar;

namespace {

bool bit(const std::vector<uint64_t>& m, uint32_t id) { return (m[id >> 6] >> (id & 63)) & 1; }

size_t popcount(const std::vector<uint64_t>& m) {
  size_t n = 0;
  for (uint64_t w : m) n += __builtin_popcountll(w);
  return n;
}

// The mask by definition: token t is allowed iff all its bytes are accepted from here.
std::vector<uint64_t> brute_force_mask(const Matcher& m) {
  const VocabIndex& v = *m.grammar().vocab();
  std::vector<uint64_t> out(v.mask_words(), 0);
  if (m.is_terminated() && !m.is_complete()) return out;
  if (m.is_complete()) out[0] |= 1;
  for (uint32_t id = 1; id < v.size(); ++id) {
    std::string_view t = v.token(id);
    if (!t.empty() && m.valid_prefix_length(t) == t.size())
      out[id >> 6] |= uint64_t(1) << (id & 63);
  }
  return out;
}

struct Compiled {
  ai00::test::GrammarCase c;
  CompiledGrammar g;
};

std::vector<Compiled> compiled_corpus() {
  std::vector<Compiled> out;
  for (auto& c : ai00::test::load_corpus(AI00_GRAMMAR_CORPUS_DIR)) {
    ParseOptions po;
    po.start = c.start;
    CompiledGrammar g = CompiledGrammar::compile_kbnf(c.grammar, ai00::test::world_vocab(), po);
    out.push_back({c, g});
  }
  return out;
}

void check_accept_string(const CompiledGrammar& g, const std::string& s, bool brute_force) {
  const VocabIndex& v = *g.vocab();
  std::vector<uint32_t> toks = v.greedy_encode(s);
  Matcher per_token(g), per_byte(g);
  for (size_t i = 0; i < toks.size(); ++i) {
    INFO("token " << i << " id " << toks[i] << " '" << v.token(toks[i]) << "'");
    std::vector<uint64_t> m = per_token.mask();
    REQUIRE(bit(m, toks[i]));
    CHECK(bit(m, 0) == per_token.is_complete());
    CHECK(per_byte.debug_state() == per_token.debug_state());
    CHECK(per_byte.mask() == m);
    if (brute_force && i == toks.size() / 2) CHECK(brute_force_mask(per_token) == m);
    Matcher fork = per_token.fork();
    REQUIRE(per_token.accept_token(toks[i]));
    if (i % 3 == 0) {
      per_token.rollback(1);
      CHECK(per_token.mask() == m);
      REQUIRE(per_token.accept_token(toks[i]));
    }
    CHECK(fork.mask() == m);
    for (char b : v.token(toks[i])) REQUIRE(per_byte.accept_bytes(std::string_view(&b, 1)));
  }
  std::vector<uint64_t> end = per_token.mask();
  CHECK(bit(end, 0));
  Matcher all_at_once(g);
  REQUIRE(all_at_once.accept_bytes(s));
  CHECK(all_at_once.debug_state() == per_token.debug_state());
  CHECK(all_at_once.mask() == end);
  CHECK(per_token.accept_token(0));
  CHECK(per_token.is_terminated());
  CHECK(popcount(per_token.mask()) == 0);
  CHECK_FALSE(per_token.accept_token(toks.empty() ? 1 : toks[0]));
}

void check_reject_string(const CompiledGrammar& g, const std::string& s) {
  const VocabIndex& v = *g.vocab();
  Matcher m(g);
  for (uint32_t t : v.greedy_encode(s)) {
    bool allowed = bit(m.mask(), t);
    CHECK(m.accept_token(t) == allowed);  // the mask and the commit agree
    if (!allowed) return;                 // the run died: rejected
  }
  CHECK_FALSE(bit(m.mask(), 0));  // ended in a non-accepting state
  CHECK_FALSE(m.accept_token(0));
}

}  // namespace

TEST_CASE("vocabulary index of RWKV World", "[grammar][token_mask]") {
  auto v = ai00::test::world_vocab();
  CHECK(v->size() == 65530);
  CHECK(v->mask_bits() == 65536);
  CHECK(v->trie_nodes() == 116078 + 1);  // docs/grammar.md "Performance targets", plus the root
  CHECK(v->greedy_encode("Hello world") == std::vector<uint32_t>{33155, 40213});
}

TEST_CASE("first mask of every corpus grammar is non-empty and exact", "[grammar][token_mask]") {
  for (auto& [c, g] : compiled_corpus()) {
    INFO(c.file << ":" << c.line << " " << c.name);
    Matcher m(g);
    std::vector<uint64_t> mask = m.mask();
    CHECK(popcount(mask) > 0);
    CHECK(mask == brute_force_mask(m));
  }
}

TEST_CASE("accept strings pass token by token, rejects die or end incomplete",
          "[grammar][token_mask]") {
  for (auto& [c, g] : compiled_corpus()) {
    INFO(c.file << ":" << c.line << " " << c.name);
    for (size_t i = 0; i < c.accept.size(); ++i) {
      INFO("accept: " << c.accept[i]);
      check_accept_string(g, c.accept[i], i == 0);
    }
    for (const auto& s : c.reject) {
      INFO("reject: " << s);
      check_reject_string(g, s);
    }
  }
}
