// The header-only C++ wrappers of issue 12 part B: PrefixCache (shared by generators), option
// scoring and State bundles, linked like a user program (only ai00::ai00).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ai00/ai00.hpp"
#include "fixtures.h"

namespace {

ai00::Model model() {
  static ai00::Model m =
      ai00::Model::load(ai00::test::shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  return m;
}

std::vector<uint32_t> turn(ai00::State& s, const ai00::PrefixCache* cache) {
  ai00::GenerateOptions o;
  o.seed = 3;
  o.max_tokens = 6;
  o.sampler.ban_eos = 1;
  if (cache) o.prefix_cache = *cache;
  ai00::Generator g = ai00::Generator::raw(model(), s, "The miller greets the smith", o);
  g.run();
  return g.tokens();
}

}  // namespace

TEST_CASE("generators share a PrefixCache", "[cpp][prefix_cache]") {
  ai00::PrefixCache cache;
  ai00::State a(model()), b(model()), c(model());
  const auto first = turn(a, &cache);
  const auto second = turn(b, &cache);
  const auto plain = turn(c, nullptr);
  CHECK(first == second);
  CHECK(first == plain);
  const ai00_prefix_cache_stats st = cache.stats();
  CHECK(st.hits == 1);
  CHECK(st.misses == 1);
  CHECK(cache.warm(model(), {1, 2, 3}) == 3);
  CHECK(cache.warm_text(model(), "x") >= 1);
  CHECK_THROWS_AS(cache.warm(model(), {}), ai00::Error);
  cache.clear();
  CHECK(cache.stats().entries == 0);
}

TEST_CASE("scores of options through the C++ API", "[cpp][score]") {
  ai00::State s(model());
  const std::vector<float> last = s.eval({5, 6, 7});
  const std::vector<uint8_t> before = s.save();
  auto by_tokens = ai00::score_options(s, {{1, 2}, {3}}, {}, last);
  REQUIRE(by_tokens.size() == 2);
  CHECK(by_tokens[0].n_tokens == 2);
  CHECK(by_tokens[1].total_logprob < 0);
  auto by_text = ai00::score_texts(s, {" yes", " no"}, {8, 9});
  CHECK(by_text.size() == 2);
  CHECK(s.save() == before);
  CHECK_THROWS_AS(ai00::score_options(s, {}, {}, last), ai00::Error);
  CHECK_THROWS_AS(ai00::score_options(s, {{1}}, {}, {}), ai00::Error);
}

TEST_CASE("a village of States in one bundle", "[cpp][state_bundle]") {
  ai00::State smith(model()), baker(model());
  baker.prefill({4, 5});
  const std::vector<uint8_t> bytes = ai00::save_state_bundle({{"smith", &smith}, {"baker", &baker}});
  ai00::StateBundle b = ai00::StateBundle::open(bytes);
  CHECK(b.size() == 2);
  CHECK(b.name(0) == "smith");
  CHECK(b.load(model(), b.find("baker")).save() == baker.save());
  CHECK_THROWS_AS(b.find("mayor"), ai00::Error);
  CHECK_THROWS_AS(ai00::save_state_bundle({{"a", &smith}, {"a", &baker}}), ai00::Error);
  const std::string path = ai00::test::temp_dir() + "/village.bundle";
  ai00::save_state_bundle_file({{"smith", &smith}}, path);
  CHECK(ai00::StateBundle::open_file(path).size() == 1);
}
