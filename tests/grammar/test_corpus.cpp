// Whole-string membership over the grammar corpus (tests/data/grammar/corpus/*.txt): every
// accept string is in the language, every reject string is not (docs/grammar.md "Semantics").
#include <catch2/catch.hpp>

#include "grammar/matcher.h"
#include "test_token_mask_vocab.h"

using namespace ai00::internal::grammar;

namespace {

std::vector<ai00::test::GrammarCase> corpus() {
  return ai00::test::load_corpus(AI00_GRAMMAR_CORPUS_DIR);
}

bool accepts(const CompiledGrammar& g, const std::string& s) {
  Matcher m(g);
  return m.accept_bytes(s) && m.is_complete();
}

}  // namespace

TEST_CASE("corpus has at least 60 grammars, each with accept and reject strings",
          "[grammar][corpus]") {
  auto cases = corpus();
  CHECK(cases.size() >= 60);
  for (const auto& c : cases) {
    INFO(c.file << ":" << c.line << " " << c.name);
    CHECK(!c.accept.empty());
    CHECK(!c.grammar.empty());
  }
}

TEST_CASE("corpus grammars accept and reject byte strings", "[grammar][corpus]") {
  for (const auto& c : corpus()) {
    INFO(c.file << ":" << c.line << " " << c.name);
    ParseOptions po;
    po.start = c.start;
    CompiledGrammar g = CompiledGrammar::compile_kbnf(c.grammar, nullptr, po);
    for (const auto& s : c.accept) {
      INFO("accept: " << s);
      CHECK(accepts(g, s));
    }
    for (const auto& s : c.reject) {
      INFO("reject: " << s);
      CHECK_FALSE(accepts(g, s));
    }
  }
}

TEST_CASE("corpus grammars survive a print and re-parse round trip", "[grammar][corpus]") {
  for (const auto& c : corpus()) {
    INFO(c.file << ":" << c.line << " " << c.name);
    ParseOptions po;
    po.start = c.start;
    auto parsed = parse_kbnf(c.grammar, po);
    REQUIRE(parsed.ok());
    std::string printed = parsed.value().to_kbnf();
    INFO("printed:\n" << printed);
    auto again = parse_kbnf(printed, po);
    REQUIRE(again.ok());
    CHECK(again.value().to_kbnf() == printed);
    CompiledGrammar g = CompiledGrammar::compile(again.value(), nullptr);
    for (const auto& s : c.accept) CHECK(accepts(g, s));
    for (const auto& s : c.reject) CHECK_FALSE(accepts(g, s));
  }
}
