// ai00::Limits (model.hpp): the C++ mirror of ai00_limits_* (issue 15).
#include <ai00/ai00.hpp>
#include <catch2/catch.hpp>
#include <string>

TEST_CASE("ai00::Limits reads, applies and restores the process-wide limits", "[cpp][limits]") {
  const ai00::Limits defaults = ai00::Limits::defaults();
  CHECK(defaults.max_nesting_depth == 256);
  CHECK(ai00::Limits::current().max_grammar_states == defaults.max_grammar_states);
  ai00::Limits l = defaults;
  l.max_nesting_depth = 4;
  l.apply();
  CHECK(ai00::Limits::current().max_nesting_depth == 4);
  try {
    ai00::Grammar::compile("start ::= ((((('a')))));", nullptr);
    FAIL("compiled past the nesting limit");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_GRAMMAR);
    CHECK_THAT(e.what(), Catch::Contains("exceeds the limit max_nesting_depth = 4"));
  }
  l.max_threads = 0;
  CHECK_THROWS_AS(l.apply(), ai00::Error);
  defaults.apply();
  CHECK(ai00::Limits::current().max_nesting_depth == 256);
}
