// The header-only Batch (include/ai00/batch.hpp): members equal lone runs through the wrapper,
// events accumulate into each Generator's message(), a member cannot be stepped directly, and a
// Generator of another Model is refused. Links only the shared library, like a user program.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "ai00/ai00.hpp"
#include "fixtures.h"

namespace {

ai00::Model load(const char* file) {
  return ai00::Model::load(ai00::test::shared_path(std::string("models/") + file));
}

ai00::GenerateOptions options(uint32_t i) {
  ai00::GenerateOptions o;
  o.seed = 40 + i;
  o.max_tokens = 8 + i * 2;
  o.prefill_chunk = 1 + i * 3;
  o.sampler.ban_eos = 1;
  if (i % 2 == 0) o.sampler.temperature = 0.0f;
  return o;
}

std::string prompt(uint32_t i) { return "villager " + std::to_string(i) + std::string(i, '!'); }

}  // namespace

TEST_CASE("a C++ Batch gives each member its lone run", "[cpp][batch]") {
  ai00::Model m = load("rand-rwkv7-c128-l3-v512-Q8_0.gguf");
  const uint32_t N = 4;
  std::vector<std::unique_ptr<ai00::State>> states;
  std::vector<std::unique_ptr<ai00::Generator>> gens;
  ai00::Batch batch(m);
  for (uint32_t i = 0; i < N; ++i) {
    states.push_back(std::make_unique<ai00::State>(m));
    gens.push_back(std::make_unique<ai00::Generator>(
        ai00::Generator::raw(m, *states.back(), prompt(i), options(i))));
    batch.add(*gens.back());
  }
  CHECK(batch.size() == N);
  std::vector<std::string> text(N);
  size_t finished = 0;
  ai00::BatchStepSummary sum;
  for (int guard = 0; guard < 1000; ++guard) {
    for (const ai00::BatchEvent& e : batch.step(3, 0, &sum)) {
      REQUIRE(e.generator != nullptr);
      size_t i = 0;
      while (gens[i].get() != e.generator) ++i;
      if (e.kind == ai00::BatchEventKind::delta) text[i] += e.delta.text;
      if (e.kind == ai00::BatchEventKind::finished) ++finished;
    }
    if (sum.steps == 0) break;
  }
  CHECK(finished == N);
  CHECK(sum.unfinished == 0);
  for (uint32_t i = 0; i < N; ++i) {
    ai00::State st(m);
    ai00::Generator g = ai00::Generator::raw(m, st, prompt(i), options(i));
    std::string lone;
    g.run([&](const ai00::Delta& d) {
      lone += d.text;
      return true;
    });
    INFO("member " << i);
    CHECK(gens[i]->tokens() == g.tokens());
    CHECK(text[i] == lone);
    CHECK(gens[i]->finished());  // the FINISH delta reached the wrapper
    CHECK(gens[i]->message_json() == g.message_json());
  }
}

TEST_CASE("a C++ Batch refuses misuse", "[cpp][batch]") {
  ai00::Model m = load("rand-rwkv7-c128-l3-v512-Q8_0.gguf");
  ai00::Model other = load("rand-rwkv7-c128-l3-v512-F16.gguf");
  ai00::State s1(m), s2(other);
  ai00::Generator g = ai00::Generator::raw(m, s1, "a", options(0));
  ai00::Generator foreign = ai00::Generator::raw(other, s2, "b", options(1));
  ai00::Batch batch(m);
  try {
    batch.add(foreign);
    FAIL("a generator of another model was accepted");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_MISMATCH);
    CHECK(std::string(e.what()).find("another model") != std::string::npos);
  }
  batch.add(g);
  try {
    g.step(1);
    FAIL("a member was stepped directly");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("member of a batch") != std::string::npos);
  }
  CHECK_THROWS_AS(batch.add(g), ai00::Error);
  batch.remove(g);
  CHECK(batch.size() == 0);
  CHECK(batch.step(1).empty());  // empty: a no-op
  CHECK_NOTHROW(g.step(1));      // out of the batch: stepped alone again
}
