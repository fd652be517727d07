// Generator chat turns: the structural tool grammar of ai00 v1 on the random 512-token fixture,
// grammar choice, the grammar cache, and tool call ids.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/pipeline/generator.h"
#include "core/pipeline/grammar_spec.h"
#include "core/model/model.h"
#include "core/model/state.h"
#include "core/tokenizer/tokenizer.h"
#include "fixtures.h"
#include "format/json.h"
#include "grammar/matcher.h"

using namespace ai00::internal;
namespace test = ai00::test;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> rand_model() {
  return Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
}

ChatRequest weather_request() {
  ChatRequest req;
  req.format = format::make_format("ai00-v1").value();
  format::Message user;
  user.role = format::Role::user;
  user.contents.push_back(format::Part::make_text("What's the weather in Tokyo?"));
  req.conversation = {user};
  req.render.tools = format::parse_tools(R"([{"name": "get_weather",
      "description": "Weather for a city",
      "input_schema": {"type": "object", "properties": {"location": {"type": "string"}},
                       "required": ["location"]}}])")
                         .value();
  return req;
}

// Pushes the sampler toward the bytes of the call syntax so that short random runs often enter
// (and sometimes finish) the structures.
void bias_toward(const Model& m, GenerateOptions& o, const std::string& chars, float bias) {
  const Tokenizer* tok = m.tokenizer();
  for (unsigned char c : chars) {
    uint32_t id = tok->find(std::string(1, static_cast<char>(c)));
    if (id == 0) continue;
    bool dup = false;
    for (const auto& b : o.sampler.logit_bias) dup |= b.token == id;
    if (!dup) o.sampler.logit_bias.push_back(LogitBias{id, bias});
  }
}

}  // namespace

TEST_CASE("structural tool grammar compiles against the 512-token vocabulary",
          "[generator][grammar]") {
  auto m = rand_model();
  GrammarCache cache(*m);
  REQUIRE(cache.vocab()->size() == m->tokenizer()->vocab_size());
  REQUIRE(cache.vocab()->mask_bits() >= static_cast<size_t>(m->config().vocab));
  GrammarContext ctx;
  ctx.hints.syntax = format::make_format("ai00-v1").value()->syntax();
  ctx.hints.tools = weather_request().render.tools;
  auto text = grammar_kbnf_for(GrammarRequest{}, ctx);
  REQUIRE(text.ok());
  REQUIRE(text.value().kbnf.find("ai00:function_calls") != std::string::npos);
  auto g1 = cache.compile(text.value().kbnf);
  auto g2 = cache.compile(text.value().kbnf);
  REQUIRE(g1.impl() == g2.impl());  // cached
  REQUIRE(cache.size() == 1);
  grammar::Matcher mt(g1);
  std::vector<uint64_t> mask = mt.mask();
  size_t allowed = 0;
  for (uint64_t w : mask) allowed += static_cast<size_t>(__builtin_popcountll(w));
  REQUIRE(allowed > 10);
  // Automatic without tools or thinking is unconstrained.
  REQUIRE(grammar_kbnf_for(GrammarRequest{}, GrammarContext{}).value().kbnf.empty());
  // The grammar comes from the format's syntax data alone: ai00 v0's <tool_call> JSON gets one
  // too, and a format without tool syntax (Goose) gets none.
  GrammarContext v0;
  v0.hints.syntax = format::make_format("ai00-v0").value()->syntax();
  v0.hints.tools = ctx.hints.tools;
  auto v0_text = grammar_kbnf_for(GrammarRequest{GrammarMode::schema_aware, ""}, v0);
  REQUIRE(v0_text.ok());
  grammar::Matcher v0_call(cache.compile(v0_text.value().kbnf));
  REQUIRE(v0_call.accept_bytes(
      "<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"location\":\"Oslo\"}}</tool_call>"
      "\n\n"));
  REQUIRE(v0_call.is_complete());
  GrammarContext goose = v0;
  goose.hints.syntax = format::make_format("goose").value()->syntax();
  REQUIRE(grammar_kbnf_for(GrammarRequest{GrammarMode::structural, ""}, goose).value().kbnf.empty());
}

namespace {

struct Tally {
  size_t with_calls = 0, ended = 0;
};

// One seeded constrained turn; checks the invariants of every output.
void constrained_turn(const std::shared_ptr<const Model>& m,
                      const std::shared_ptr<GrammarCache>& cache, const ChatRequest& req,
                      const GrammarRequest& grammar, bool schema_aware, size_t max_tokens,
                      uint64_t seed, Tally& tally) {
  {
    State st(*m);
    GenerateOptions o;
    o.seed = seed;
    o.max_tokens = max_tokens;
    o.grammar = grammar;
    o.sampler.temperature = 1.0f;
    o.sampler.top_p = 1.0f;
    o.sampler.top_k = 0;
    o.grammar_cache = cache;
    bias_toward(*m, o, "<>/ai0:functon_l\"=\n", 6.0f);
    Generator g(m, st, req, o);
    REQUIRE(!g.grammar_kbnf().empty());  // automatic: tools switch structural on
    std::vector<format::MessageDelta> deltas;
    g.run([&](const format::MessageDelta& d) {
      deltas.push_back(d);
      return 0;
    });
    const auto reason = g.finish_reason();
    INFO("seed " << seed << " reason " << format::finish_reason_name(reason) << " error "
                 << g.error_message());
    REQUIRE(reason != format::FinishReason::error);
    // Accumulated deltas give the final message.
    format::MessageDelta acc;
    for (const auto& d : deltas) acc.accumulate(d);
    REQUIRE(acc.finish() == g.message());
    for (const auto& call : g.message().tool_calls) {
      // Structural checks the syntax only; schema_aware also the tool names.
      REQUIRE(!call.name.empty());
      if (schema_aware) REQUIRE(call.name == "get_weather");
      REQUIRE(call.arguments.is_object());
      REQUIRE(call.id.rfind("call_", 0) == 0);
    }
    tally.with_calls += !g.message().tool_calls.empty();
    // The grammar accepted every byte; a turn that ended by itself is a complete parse.
    std::vector<uint32_t> toks = g.tokens();
    bool eos = !toks.empty() && toks.back() == 0;
    if (eos) toks.pop_back();
    std::string bytes = m->tokenizer()->decode(toks);
    grammar::Matcher check(cache->compile(g.grammar_kbnf()));
    REQUIRE(check.valid_prefix_length(bytes) == bytes.size());
    // (A turn cut by max_tokens after a complete call reports tool_calls, so test the count.)
    if (g.tokens().size() < max_tokens) {
      ++tally.ended;
      REQUIRE(check.accept_bytes(bytes));
      REQUIRE(check.is_complete());
    }
    if (reason == format::FinishReason::tool_calls) REQUIRE(!g.message().tool_calls.empty());
  }
}

}  // namespace

TEST_CASE("constrained chat on the random model: 50 seeds parse as text or tool calls",
          "[generator][grammar]") {
  auto m = rand_model();
  auto cache = std::make_shared<GrammarCache>(*m);
  const ChatRequest req = weather_request();
  // The automatic choice (tools present: structural).
  Tally automatic;
  for (uint64_t seed = 0; seed < 50; ++seed)
    constrained_turn(m, cache, req, GrammarRequest{}, false, 64, seed, automatic);
  // The schema_aware grammar with the answer forced into its call block and short values, so
  // that random output exercises invoke / parameter parsing and whole calls too.
  GrammarContext ctx;
  ctx.hints.syntax = req.format->syntax();
  ctx.hints.tools = req.render.tools;
  std::string kbnf =
      grammar_kbnf_for(GrammarRequest{GrammarMode::schema_aware, ""}, ctx).value().kbnf;
  kbnf = "start ::= calls;\n" + kbnf.substr(kbnf.find('\n') + 1);
  // Random bytes almost never spell `</parameter>`: bound the value so that calls complete.
  const std::string open_value = "#ex'</parameter>'?";
  REQUIRE(kbnf.find(open_value) != std::string::npos);
  kbnf.replace(kbnf.find(open_value), open_value.size(), "#'[A-Za-z ]{0,8}'");
  Tally forced;
  for (uint64_t seed = 0; seed < 50; ++seed)
    constrained_turn(m, cache, req, GrammarRequest{GrammarMode::kbnf, kbnf}, true, 160, seed,
                     forced);
  REQUIRE(forced.with_calls > 0);
  WARN("automatic: " << automatic.with_calls << " turns with calls, " << automatic.ended
                     << " ended before max_tokens; forced: " << forced.with_calls << " with calls, "
                     << forced.ended << " ended");
}

TEST_CASE("custom grammar forcing a tool call yields a valid call and finish tool_calls",
          "[generator][grammar]") {
  auto m = rand_model();
  const ChatRequest req = weather_request();
  for (uint64_t seed = 0; seed < 5; ++seed) {
    State st(*m);
    GenerateOptions o;
    o.seed = seed;
    o.max_tokens = 200;
    o.grammar = GrammarRequest{
        GrammarMode::kbnf,
        "start ::= '<ai00:function_calls>\\n  <invoke name=\"get_weather\">\\n    <parameter "
        "name=\"location\">' #'[A-Za-z]{1,8}' '</parameter>\\n  </invoke>\\n"
        "</ai00:function_calls>';"};
    Generator g(m, st, req, o);
    auto reason = g.run(nullptr);
    INFO("seed " << seed << " error " << g.error_message());
    REQUIRE(reason == format::FinishReason::tool_calls);
    REQUIRE(g.message().tool_calls.size() == 1);
    const auto& call = g.message().tool_calls[0];
    REQUIRE(call.name == "get_weather");
    REQUIRE(call.arguments.find("location") != nullptr);
    REQUIRE(call.id == format::tool_call_id(g.tool_call_id_seed(), 0));
  }
}

TEST_CASE("thinking-open prompts use the forced-open grammar variants", "[generator][grammar]") {
  auto m = rand_model();
  auto cache = std::make_shared<GrammarCache>(*m);
  format::Message user;
  user.role = format::Role::user;
  user.contents.push_back(format::Part::make_text("Think about it."));
  for (const char* name : {"ai00-v1", "goose"}) {
    ChatRequest req;
    req.format = format::make_format(name).value();
    req.conversation = {user};
    req.render.thinking = format::Thinking::on;
    for (uint64_t seed = 0; seed < 10; ++seed) {
      State st(*m);
      GenerateOptions o;
      o.seed = seed;
      o.max_tokens = 24;
      o.sampler.ban_eos = true;
      o.grammar_cache = cache;
      Generator g(m, st, req, o);
      INFO(name << " seed " << seed << " prompt " << g.prompt());
      REQUIRE(!g.grammar_kbnf().empty());  // automatic: thinking switches structural on
      g.run(nullptr);
      REQUIRE(g.finish_reason() != format::FinishReason::error);
      const std::string out = m->tokenizer()->decode(g.tokens());
      if (std::string(name) == "goose") {
        // The model must first complete the `<think` the prompt left open.
        REQUIRE(!out.empty());
        REQUIRE(out[0] == '>');
      }
      // The reply starts inside the thinking block: whatever came before `</think>` is
      // reasoning, never content.
      if (out.find("</think>") == std::string::npos && out.size() > 1) {
        REQUIRE(g.message().text().empty());
        REQUIRE(g.message().reasoning.has_value());
      }
    }
  }
}

TEST_CASE("grammar cache of another model is refused", "[generator][grammar]") {
  auto m = rand_model();
  auto tiny = Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
  auto cache = std::make_shared<GrammarCache>(*tiny);
  State st(*m);
  GenerateOptions o;
  o.grammar = GrammarRequest{GrammarMode::kbnf, "start ::= 'a';"};
  o.grammar_cache = cache;
  REQUIRE_THROWS_AS(Generator(m, st, RawRequest{"x", {}}, o), MismatchError);
}

TEST_CASE("chat turns: push, pull and step agree, extra stops are never emitted", "[generator]") {
  auto m = rand_model();
  auto cache = std::make_shared<GrammarCache>(*m);
  ChatRequest req = weather_request();
  GenerateOptions o;
  o.seed = 9;
  o.max_tokens = 80;
  o.sampler.ban_eos = true;
  o.grammar_cache = cache;
  bias_toward(*m, o, "<>/ai0:functon_l\"=\n", 4.0f);
  auto drive = [&](int style, std::vector<format::MessageDelta>& out) {
    State st(*m);
    Generator g(m, st, req, o);
    if (style == 0) {
      g.run([&](const format::MessageDelta& d) {
        out.push_back(d);
        return 0;
      });
    } else if (style == 1) {
      while (auto d = g.next()) out.push_back(*d);
    } else {
      while (!g.finished()) {
        auto r = g.step(3);
        out.insert(out.end(), r.deltas.begin(), r.deltas.end());
      }
    }
    return std::make_pair(g.tokens(), g.message());
  };
  std::vector<format::MessageDelta> d0, d1, d2;
  auto r0 = drive(0, d0);
  auto r1 = drive(1, d1);
  auto r2 = drive(2, d2);
  REQUIRE(r0.first == r1.first);
  REQUIRE(r0.first == r2.first);
  REQUIRE(r0.second == r1.second);
  REQUIRE(r0.second == r2.second);
  REQUIRE(d0.size() == d1.size());
  const std::string text = r0.second.text();
  REQUIRE(text.size() > 6);
  // Stop at a 2-byte string taken from the reply's content: the turn ends there, stop text
  // never appears in any delta.
  const std::string stop = text.substr(3, 2);
  o.stop_sequences = {stop};
  std::vector<format::MessageDelta> d3;
  auto r3 = drive(0, d3);
  REQUIRE(r3.second.text().find(stop) == std::string::npos);
  REQUIRE(d3.back().finish_reason == format::FinishReason::stop);
  REQUIRE(r3.first.size() < r0.first.size());
}
