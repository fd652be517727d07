// Generation loop speed on the random 512-token fixture (docs/layers.md "Tests and benchmarks"):
// tokens/s of prefill and decode through the Generator, unconstrained and under the structural tool
// grammar, next to a bare forward() decode loop as the yardstick (its tokens/s is the limit the
// loop overhead — sampler, grammar mask, detokenizer, stop scan, output parser — is measured
// against: compare items_per_second of BM_GenerateDecode* with BM_ForwardDecode).
// The fixture is tiny (C = 128, 3 layers), so these numbers show the per-token overhead, which
// a real model's matrix products would hide. Run: build/<dir>/bin/bench_generate
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/pipeline/generator.h"
#include "format/format.h"

namespace {

using namespace ai00::internal;

std::shared_ptr<const Model> fixture() {
  static auto m = Model::load(std::string(AI00_DEFAULT_SHARED_DIR) +
                              "/models/rand-rwkv7-c128-l3-v512-F16.gguf");
  return m;
}

GenerateOptions options(size_t max_tokens) {
  GenerateOptions o;
  o.seed = 1;
  o.max_tokens = max_tokens;
  o.sampler.ban_eos = true;  // fixed token counts
  return o;
}

void BM_ForwardDecode(benchmark::State& bs) {
  auto m = fixture();
  State st(*m);
  std::vector<float> logits(static_cast<size_t>(m->config().vocab));
  uint32_t t = 66;
  size_t n = 0;
  for (auto _ : bs) {
    forward(*m, st, &t, 1, logits.data());
    t = 1 + (t * 31 + 7) % 500;
    ++n;
  }
  bs.SetItemsProcessed(static_cast<int64_t>(n));
}

void report(benchmark::State& bs, size_t tokens) {
  bs.SetItemsProcessed(static_cast<int64_t>(tokens));  // tokens/s
}

void BM_GeneratePrefill(benchmark::State& bs) {
  auto m = fixture();
  std::string prompt;
  for (int i = 0; i < 64; ++i) prompt += "word ";  // 320 single-byte-ish tokens
  size_t tokens = 0;
  for (auto _ : bs) {
    State st(*m);
    Generator g(m, st, RawRequest{prompt, {}}, options(1));
    g.run(nullptr);
    tokens += g.prompt_tokens().size();
  }
  report(bs, tokens);
}

void BM_GenerateDecode(benchmark::State& bs) {
  auto m = fixture();
  size_t tokens = 0;
  for (auto _ : bs) {
    State st(*m);
    Generator g(m, st, RawRequest{"hi", {}}, options(128));
    g.run([](const format::MessageDelta&) { return 0; });
    tokens += g.tokens().size();
  }
  report(bs, tokens);
}

void BM_GenerateDecodeToolGrammar(benchmark::State& bs) {
  auto m = fixture();
  auto cache = std::make_shared<GrammarCache>(*m);
  ChatRequest req;
  req.format = format::make_format("ai00-v1").value();
  format::Message user;
  user.role = format::Role::user;
  user.contents.push_back(format::Part::make_text("weather?"));
  req.conversation = {user};
  req.render.tools = format::parse_tools(
                         R"([{"name": "get_weather", "input_schema": {"type": "object",
                             "properties": {"location": {"type": "string"}}}}])")
                         .value();
  size_t tokens = 0;
  for (auto _ : bs) {
    State st(*m);
    auto o = options(128);
    o.grammar_cache = cache;
    Generator g(m, st, req, o);
    g.run(nullptr);
    tokens += g.tokens().size();
  }
  report(bs, tokens);
}

}  // namespace

BENCHMARK(BM_ForwardDecode);
BENCHMARK(BM_GeneratePrefill)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GenerateDecode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GenerateDecodeToolGrammar)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
