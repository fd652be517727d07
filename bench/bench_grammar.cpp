// Grammar engine (docs/grammar.md "Performance targets"): token mask time per token (median, p99,
// max; warm after one untimed pass, cold pass reported separately), compile time, and the
// vocabulary index build, on the 65,536-token RWKV World vocabulary, one thread. Workloads: (a) the
// seed 003 structural tool-call grammar fixed per section 5, (b) a schema_aware grammar for a tool
// with 5 typed parameters (hand-written KBNF), (c) generic JSON. Every timed run also checks the
// correctness gate: each token of the greedy tokenization is in the mask before it is committed
// and end of text is allowed at the end.
// Run: build/<dir>/bin/bench_grammar --benchmark_min_time=0.5
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "grammar/json_schema.h"
#include "grammar/matcher.h"
#include "test_token_mask_vocab.h"
#include "thread_time.h"

namespace {

using namespace ai00::internal::grammar;
using Clock = std::chrono::steady_clock;

// (a) seed 003 unified grammar with the section 5 fixes: one terminal per text region that
// excludes every marker that may follow, empty thinking allowed, ends on </ai00:assistant>.
const char* kStructural = R"(
start ::= thinking? content;
thinking ::= '<think>' #ex'</think>'? '</think>' #'[ \t\n]*';
content ::= text? function_calls | text? '</ai00:assistant>';
text ::= #ex'<ai00:function_calls>|</ai00:assistant>|<think>';
function_calls ::= '<ai00:function_calls>\n' invoke* '</ai00:function_calls>';
invoke ::= '  <invoke name="' tool_name '">\n' param* '  </invoke>\n';
param ::= '    <parameter name="' param_name '">' param_value '</parameter>\n';
tool_name ::= #'[a-zA-Z0-9_-]+';
param_name ::= #'[a-zA-Z0-9_]+';
param_value ::= #ex'</parameter>'?;
)";

// (b) schema_aware, ai00 v1 syntax, tool `book_flight` with 5 typed parameters: a string with
// maxLength 40, an integer in [1, 9], a number in [0, 10000], a boolean, an array of enums.
const char* kSchemaAware = R"(
start ::= thinking? text? calls;
thinking ::= '<think>' #ex'</think>'? '</think>' #'[ \t\n]*';
text ::= #ex'<ai00:function_calls>|<think>';
calls ::= '<ai00:function_calls>\n' invoke+ '</ai00:function_calls>';
invoke ::= '  <invoke name="book_flight">\n' p_dest p_pass p_budget? p_direct? p_classes? '  </invoke>\n';
p_dest ::= '    <parameter name="destination">' #'[^<]{1,40}' '</parameter>\n';
p_pass ::= '    <parameter name="passengers">' #'[1-9]' '</parameter>\n';
p_budget ::= '    <parameter name="budget">' #'(10000(\\.0+)?|[0-9]{1,4}(\\.[0-9]+)?)' '</parameter>\n';
p_direct ::= '    <parameter name="direct_only">' ('true' | 'false') '</parameter>\n';
p_classes ::= '    <parameter name="classes">[' (class (', ' class)*)? ']</parameter>\n';
class ::= '"economy"' | '"premium_economy"' | '"business"' | '"first"';
)";

// (c) generic JSON (xgrammar's builtin JSON grammar, KBNF form).
const char* kJson = R"(
start ::= ws value ws;
value ::= object | array | string | number | 'true' | 'false' | 'null';
object ::= '{' ws ( member ( ws ',' ws member )* )? ws '}';
member ::= string ws ':' ws value;
array ::= '[' ws ( value ( ws ',' ws value )* )? ws ']';
string ::= '"' #'([^"\\\\\x00-\x1f]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*' '"';
number ::= #'-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?';
ws ::= #'[ \t\n\r]*';
)";

const std::vector<std::string> kStructuralTexts = {
    "Hello, how can I help you?\n</ai00:assistant>",
    "<think>Let me consider this question. The user wants the weather in Tokyo, so I should "
    "call the weather tool with the city name and then summarise.</think>\n"
    "<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
    "name=\"location\">Tokyo</parameter>\n    <parameter name=\"unit\">celsius</parameter>\n  "
    "</invoke>\n</ai00:function_calls>",
    "Let me search for that information. I will look at several sources, compare them and "
    "report back with a short summary, including links where possible.\n"
    "<ai00:function_calls>\n  <invoke name=\"web_search\">\n    <parameter name=\"query\">AI "
    "news this week</parameter>\n  </invoke>\n  <invoke name=\"get_weather\">\n    <parameter "
    "name=\"city\">London</parameter>\n  </invoke>\n</ai00:function_calls>",
    "<think></think>\nThe capital of France is Paris. It has been the capital since the 10th "
    "century, with a few interruptions.\n\nParis is also the largest city in France, with about "
    "2.1 million inhabitants in the city proper and over 12 million in the metropolitan area. "
    "Famous landmarks include the Eiffel Tower, the Louvre and Notre-Dame. Some text with "
    "<tags> and < signs, code like `a < b && c > d`, and a list:\n- one\n- two\n</ai00:assistant>",
};

const std::vector<std::string> kSchemaTexts = {
    "<ai00:function_calls>\n  <invoke name=\"book_flight\">\n    <parameter "
    "name=\"destination\">Tokyo Haneda</parameter>\n    <parameter "
    "name=\"passengers\">2</parameter>\n    <parameter name=\"budget\">1500.50</parameter>\n    "
    "<parameter name=\"direct_only\">true</parameter>\n    <parameter "
    "name=\"classes\">[\"economy\", \"business\"]</parameter>\n  </invoke>\n"
    "</ai00:function_calls>",
    "<think>The user wants two flights; book both.</think>\nSure, booking now.\n"
    "<ai00:function_calls>\n  <invoke name=\"book_flight\">\n    <parameter "
    "name=\"destination\">Paris</parameter>\n    <parameter name=\"passengers\">1</parameter>\n "
    "   <parameter name=\"budget\">10000</parameter>\n  </invoke>\n  <invoke "
    "name=\"book_flight\">\n    <parameter name=\"destination\">New York JFK</parameter>\n    "
    "<parameter name=\"passengers\">4</parameter>\n    <parameter "
    "name=\"classes\">[\"first\", \"premium_economy\", \"economy\"]</parameter>\n  </invoke>\n"
    "</ai00:function_calls>",
};

const std::vector<std::string> kJsonTexts = {
    "{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Tokyo, Japan\", \"unit\": "
    "\"celsius\", \"days\": 3, \"hourly\": false}}",
    "[{\"id\": 1, \"title\": \"The quick brown fox\", \"tags\": [\"animals\", \"classic\"], "
    "\"score\": 4.75, \"meta\": {\"created\": \"2024-01-01T00:00:00Z\", \"views\": 12345, "
    "\"draft\": null}}, {\"id\": 2, \"title\": \"Jumps over the lazy dog\", \"tags\": [], "
    "\"score\": -1.5e3, \"meta\": {\"created\": \"2024-02-02\", \"views\": 0, \"draft\": true}}]",
    "{\n  \"description\": \"A longer string value with punctuation: commas, periods. And "
    "\\\"escaped quotes\\\", unicode \\u00e9 and \\n newlines.\",\n  \"matrix\": [[1, 2, 3], "
    "[4, 5, 6], [7, 8, 9]],\n  \"nested\": {\"a\": {\"b\": {\"c\": {\"d\": \"deep\"}}}}\n}",
};

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// Thread CPU time: excludes time the thread was preempted (the 2-core machine is shared).
double thread_cpu_us() { return 1e6 * ai00::bench::thread_cpu_seconds(); }

struct Times {
  std::vector<double> wall, cpu;
};

// One pass: a mask before every token of every text (and before end of text); returns the times.
Times mask_pass(const CompiledGrammar& g, const std::vector<std::string>& texts) {
  const VocabIndex& v = *g.vocab();
  Times times;
  std::vector<uint64_t> mask(v.mask_words());
  for (const std::string& text : texts) {
    Matcher m(g);
    std::vector<uint32_t> ids = v.greedy_encode(text);
    ids.push_back(0);
    for (uint32_t id : ids) {
      double c0 = thread_cpu_us();
      auto t0 = Clock::now();
      m.fill_mask(mask.data());
      times.wall.push_back(us_since(t0));
      times.cpu.push_back(thread_cpu_us() - c0);
      if (!((mask[id >> 6] >> (id & 63)) & 1) || !m.accept_token(id))
        throw std::runtime_error("correctness gate: token " + std::to_string(id) +
                                 " not allowed in bench text");
    }
  }
  return times;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

void BM_Mask(benchmark::State& state, const char* kbnf, const std::vector<std::string>* texts) {
  auto vocab = ai00::test::world_vocab();
  CompiledGrammar g = CompiledGrammar::compile_kbnf(kbnf, vocab);
  std::vector<double> cold = mask_pass(g, *texts).wall;  // fills the lazy per-state tables
  std::vector<double> all, cpu;
  for (auto _ : state) {
    Times t = mask_pass(g, *texts);
    all.insert(all.end(), t.wall.begin(), t.wall.end());
    cpu.insert(cpu.end(), t.cpu.begin(), t.cpu.end());
  }
  state.counters["masks"] = static_cast<double>(cold.size());
  state.counters["median_us"] = percentile(all, 0.5);
  state.counters["p99_us"] = percentile(all, 0.99);
  state.counters["max_us"] = percentile(all, 1.0);
  state.counters["cpu_median_us"] = percentile(cpu, 0.5);
  state.counters["cpu_p99_us"] = percentile(cpu, 0.99);
  state.counters["cpu_max_us"] = percentile(cpu, 1.0);
  state.counters["cold_total_ms"] = [&] {
    double s = 0;
    for (double x : cold) s += x;
    return s / 1000;
  }();
  state.counters["cold_max_us"] = percentile(cold, 1.0);
  state.counters["grammar_KiB"] = static_cast<double>(g.memory_bytes()) / 1024;
}

void BM_Compile(benchmark::State& state, const char* kbnf) {
  auto vocab = ai00::test::world_vocab();
  for (auto _ : state) {
    CompiledGrammar g = CompiledGrammar::compile_kbnf(kbnf, vocab);
    benchmark::DoNotOptimize(g);
  }
}

// Time to first mask: compile + the first mask (lazy tables of the start states included).
void BM_FirstMask(benchmark::State& state, const char* kbnf) {
  auto vocab = ai00::test::world_vocab();
  std::vector<uint64_t> mask(vocab->mask_words());
  for (auto _ : state) {
    CompiledGrammar g = CompiledGrammar::compile_kbnf(kbnf, vocab);
    Matcher m(g);
    m.fill_mask(mask.data());
    benchmark::DoNotOptimize(mask.data());
  }
}

void BM_VocabIndex(benchmark::State& state) {
  std::string path = std::string(AI00_TEST_SHARED_DIR) + "/tokenizer/rwkv_vocab_v20230424.txt";
  std::vector<std::string> tokens = ai00::test::load_rwkv_vocab(path);
  for (auto _ : state) {
    auto v = VocabIndex::build(tokens, 65536);
    benchmark::DoNotOptimize(v);
  }
  state.counters["trie_nodes"] =
      static_cast<double>(VocabIndex::build(tokens, 65536)->trie_nodes());
}

// Commit cost: accept_token along the workload (no masks).
void BM_Commit(benchmark::State& state, const char* kbnf, const std::vector<std::string>* texts) {
  auto vocab = ai00::test::world_vocab();
  CompiledGrammar g = CompiledGrammar::compile_kbnf(kbnf, vocab);
  std::vector<double> all;
  for (auto _ : state) {
    for (const std::string& text : *texts) {
      Matcher m(g);
      for (uint32_t id : vocab->greedy_encode(text)) {
        auto t0 = Clock::now();
        bool ok = m.accept_token(id);
        all.push_back(us_since(t0));
        benchmark::DoNotOptimize(ok);
      }
    }
  }
  state.counters["median_us"] = percentile(all, 0.5);
  state.counters["p99_us"] = percentile(all, 0.99);
}

// JSON Schema → KBNF → compiled grammar (byte level) for an object schema with n properties, half
// of them required, default options (extra keys allowed); run at n, 10·n and 100·n to show the
// conversion grows linearly (20k properties were quadratic). compile_ms = -1: the compiled
// automata outgrow the grammar's DFA state budget (one DFA per key literal), reported as a
// located error, not a crash.
void BM_SchemaProperties(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::string schema = R"({"type":"object","properties":{)", required;
  for (size_t i = 0; i < n; ++i) {
    schema += (i ? "," : "") + std::string("\"p") + std::to_string(i) + R"(":{"type":"integer"})";
    if (i % 2 == 0) required += (required.empty() ? "\"p" : ",\"p") + std::to_string(i) + "\"";
  }
  schema += "},\"required\":[" + required + "]}";
  double convert_ms = 0, compile_ms = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    auto kbnf = json_schema_to_kbnf(schema);
    if (!kbnf.ok()) throw std::runtime_error(kbnf.error().message);
    convert_ms = us_since(t0) / 1000;
    benchmark::DoNotOptimize(kbnf);
    // Compiling is the engine's stage; a budget error there (one DFA per key literal, counted
    // against the grammar's state bound) is reported as -1, not a crash of the benchmark.
    auto t1 = Clock::now();
    try {
      CompiledGrammar g = CompiledGrammar::compile_kbnf(kbnf.value().kbnf, nullptr);
      compile_ms = us_since(t1) / 1000;
      benchmark::DoNotOptimize(g);
    } catch (const std::exception&) {
      compile_ms = -1;
    }
  }
  state.counters["n"] = static_cast<double>(n);
  state.counters["convert_ms"] = convert_ms;
  state.counters["compile_ms"] = compile_ms;
}

// Token masks under an object schema with n optional properties (docs/grammar.md "Large
// schemas"): convert + compile time (compile_ms, first pass filling the lazy tables in
// cold_total_ms), then the time per mask along an instance that names a few properties (warm),
// run at n and 10·n. The key trie keeps a mask independent of n (was 9 s at n = 2,000).
void BM_SchemaOptionalMask(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::string schema = R"({"type":"object","properties":{)";
  for (size_t i = 0; i < n; ++i)
    schema += (i ? "," : "") + std::string("\"p") + std::to_string(i) + R"(":{"type":"integer"})";
  // range(1) = 1: additionalProperties false (no extra keys, so no automaton excluding the
  // listed names from them).
  schema += state.range(1) ? "},\"additionalProperties\":false}" : "}}";
  const std::vector<std::string> texts = {
      "{\"p" + std::to_string(n - 1) + "\": 12, \"p17\": -3, \"p1\": 0}",
      "{\n  \"p" + std::to_string(n / 2) + "\": 7,\n  " +
          (state.range(1) ? "\"p3\": 5" : "\"other\": [1, \"x\"]") + "\n}"};
  auto vocab = ai00::test::world_vocab();
  auto t0 = Clock::now();
  auto kbnf = json_schema_to_kbnf(schema);
  if (!kbnf.ok()) throw std::runtime_error(kbnf.error().message);
  CompiledGrammar g = CompiledGrammar::compile_kbnf(kbnf.value().kbnf, vocab);
  const double compile_ms = us_since(t0) / 1000;
  std::vector<double> cold = mask_pass(g, texts).wall;
  std::vector<double> all, cpu;
  for (auto _ : state) {
    Times t = mask_pass(g, texts);
    all.insert(all.end(), t.wall.begin(), t.wall.end());
    cpu.insert(cpu.end(), t.cpu.begin(), t.cpu.end());
  }
  double cold_total = 0;
  for (double x : cold) cold_total += x;
  state.counters["n"] = static_cast<double>(n);
  state.counters["closed"] = static_cast<double>(state.range(1));
  state.counters["compile_ms"] = compile_ms;
  state.counters["cold_total_ms"] = cold_total / 1000;
  state.counters["masks"] = static_cast<double>(cold.size());
  state.counters["median_us"] = percentile(all, 0.5);
  state.counters["max_us"] = percentile(all, 1.0);
  state.counters["cpu_median_us"] = percentile(cpu, 0.5);
  state.counters["cpu_p99_us"] = percentile(cpu, 0.99);
  state.counters["cpu_max_us"] = percentile(cpu, 1.0);
}

}  // namespace

BENCHMARK(BM_SchemaProperties)
    ->Arg(2000)
    ->Arg(20000)
    ->Arg(200000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SchemaOptionalMask)
    ->Args({200, 0})
    ->Args({2000, 0})
    ->Args({200, 1})
    ->Args({2000, 1})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_VocabIndex)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compile, a_structural, kStructural)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compile, b_schema_aware, kSchemaAware)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Compile, c_json, kJson)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FirstMask, a_structural, kStructural)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FirstMask, b_schema_aware, kSchemaAware)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FirstMask, c_json, kJson)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Mask, a_structural, kStructural, &kStructuralTexts)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Mask, b_schema_aware, kSchemaAware, &kSchemaTexts)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Mask, c_json, kJson, &kJsonTexts)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Commit, a_structural, kStructural, &kStructuralTexts)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Commit, c_json, kJson, &kJsonTexts)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
