// Chat-format output parsers: MB/s of model output parsed when fed in 4-byte chunks (about one
// RWKV token each), next to a memcpy of the same bytes as the machine's ceiling; and prompt
// rendering of a 64-turn conversation. Run: build/<dir>/bin/bench_format
//
// BM_pathological_*: each format parser on hostile output of n and 10·n bytes (Args), fed whole
// and in 4-byte chunks; `*_calls*`: thousands of small calls (the message's call list grows);
// `*_stream`: with ParseOptions::stream_tool_calls. Linear cost (docs/chat-formats.md "Output
// parsers") shows as the same bytes_per_second at both sizes; a quadratic parser would be ten times
// slower per byte.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "format/format.h"
#include "format/message.h"
#include "format/syntax_format.h"

namespace {

using namespace ai00::internal::format;

// About 64 KiB of ai00 v1 output: reasoning, prose with markup-like text, then a call block.
std::string v1_output() {
  std::string out = "Let me think about <b>this</b> step by step.\nFirst, 2 < 3 and 5 > 4.\n";
  while (out.size() < 48 * 1024) out += out.substr(0, 70) + "more reasoning 😀 here.\n";
  out += "</think>\n";
  while (out.size() < 62 * 1024) out += "The answer, in prose: <not a marker> and </neither>.\n";
  out += "\n\n<ai00:function_calls>\n";
  for (int k = 0; k < 8; ++k)
    out += "  <invoke name=\"search\">\n    <parameter name=\"query\">item " + std::to_string(k) +
           "</parameter>\n    <parameter name=\"limit\">5</parameter>\n  </invoke>\n";
  out += "</ai00:function_calls>";
  return out;
}

std::string openchatml_output() {
  std::string out = "<|start_reason|>";
  while (out.size() < 32 * 1024) out += "Reasoning about <|tokens|> and {braces}.\n";
  out += "<|end_reason|>\n";
  while (out.size() < 62 * 1024) out += "Answer text with \"quotes\" and <tags>.\n";
  for (int k = 0; k < 8; ++k)
    out += "\n<|function_call|>\n{\"arguments\": {\"q\": \"item " + std::to_string(k) +
           "\", \"n\": [1, 2, {\"x\": \"}\"}]}, \"name\": \"search\"}";
  return out;
}

void parse_chunks(benchmark::State& state, const char* format, const std::string& text,
                  bool thinking_open) {
  auto f = make_format(format).value();
  ParseOptions po;
  po.thinking_open = thinking_open;
  const size_t chunk = 4;
  for (auto _ : state) {
    auto p = f->make_parser(po);
    size_t deltas = 0;
    for (size_t at = 0; at < text.size(); at += chunk)
      deltas += p->feed(std::string_view(text).substr(at, chunk)).size();
    deltas += p->finish().size();
    benchmark::DoNotOptimize(deltas);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_parse_ai00_v1(benchmark::State& state) {
  parse_chunks(state, "ai00-v1", v1_output(), true);
}
void BM_parse_openchatml(benchmark::State& state) {
  parse_chunks(state, "openchatml", openchatml_output(), false);
}
void BM_parse_goose(benchmark::State& state) {
  std::string text = ">";
  while (text.size() < 64 * 1024) text += "Plain goose text, one line.\n";
  parse_chunks(state, "goose", text, true);
}

// The ceiling: copying the same bytes.
void BM_memcpy_64k(benchmark::State& state) {
  const std::string src = v1_output();
  std::vector<char> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}

void BM_render_ai00_v1_64_turns(benchmark::State& state) {
  std::string json = "[";
  for (int k = 0; k < 32; ++k)
    json += std::string(k ? "," : "") + R"({"role":"user","content":"Question number )" +
            std::to_string(k) +
            R"( about RWKV?"},{"role":"assistant","reasoning":"Think.","content":"Answer )" +
            std::to_string(k) + R"(."})";
  json += "]";
  auto conv = parse_conversation(json).value();
  auto f = make_format("ai00-v1").value();
  RenderOptions o;
  size_t bytes = 0;
  for (auto _ : state) {
    auto r = f->render(conv, o);
    bytes = r.value().prompt.size();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

// Hostile output of about `n` bytes for each format: a marker every few bytes, or one structure
// that never ends, the inputs that made the parsers quadratic (issue: 100k thinking blocks).
std::string pathological(const std::string& which, size_t n) {
  std::string out;
  if (which == "ai00-v1-markers") {
    while (out.size() < n) out += "<think>a</think>";
  } else if (which == "ai00-v1-invoke") {
    out = "<ai00:function_calls>\n  <invoke name=\"f\">\n";
    while (out.size() < n) out += "    <parameter name=\"p\">a > b > c</parameter>\n";
  } else if (which == "ai00-v0-call") {
    out = "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"";
    while (out.size() < n) out += "} } </tool_call <tool_cal ";
  } else if (which == "openchatml-blocks") {
    while (out.size() < n)
      out += "<|start_reflect|>r<|end_reflect|><|start_reason|>x<|end_reason|>";
  } else if (which == "ai00-v1-calls") {  // many small calls: the message's call list grows
    out = "<ai00:function_calls>\n";
    while (out.size() < n) out += "<invoke name=\"f\"><parameter name=\"a\">1</parameter></invoke>";
  } else if (which == "ai00-v0-calls-stream") {
    while (out.size() < n) out += "<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":1}}</tool_call>";
  } else if (which == "openchatml-calls-stream") {
    while (out.size() < n) out += "<|function_call|>{\"arguments\": {\"a\": 1}, \"name\": \"f\"}";
  } else if (which == "openchatml-long-arguments-stream") {  // one call streamed byte by byte
    out = "<|function_call|>{\"arguments\": {\"a\": \"";
    while (out.size() < n) out += "\\u00e9 \\\" { } [ ] , : \\ud83d\\ude00 ";
    out += "\"}, \"name\": \"f\"}";
  } else if (which == "goose-markers") {
    out = ">";
    while (out.size() < n) out += "</think><think>a\n";
  }
  return out;
}

void run_pathological(benchmark::State& state, const char* format, const std::string& which,
                      size_t chunk) {
  const std::string text = pathological(which, static_cast<size_t>(state.range(0)));
  auto f = make_format(format).value();
  ParseOptions po;
  po.thinking_open = std::string(format) == "goose";
  po.stream_tool_calls = which.find("-stream") != std::string::npos;  // with argument previews
  for (auto _ : state) {
    auto p = f->make_parser(po);
    size_t deltas = 0;
    for (size_t at = 0; at < text.size(); at += chunk)
      deltas += p->feed(std::string_view(text).substr(at, chunk)).size();
    deltas += p->finish().size();
    benchmark::DoNotOptimize(deltas);
  }
  state.counters["n"] = static_cast<double>(text.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

// Formats made from data (syntax_format.h): an xml call whose one value is long and full of the
// bytes that wake the call scanner, and a json call whose arguments are full of braces.
std::shared_ptr<const ChatFormat> data_format(bool xml) {
  SyntaxFormatSpec f;
  f.name = xml ? "bench-xml" : "bench-json";
  f.system = {"[system]\n", "\n[/system]"};
  f.user = {"[user]\n", "\n[/user]"};
  f.assistant = {"[bot]\n", "[/bot]"};
  f.tool = {"[result]\n", "\n[/result]"};
  f.turn_separator = "\n";
  f.tools_open = "[tools]\n";
  f.tools_close = "\n[/tools]";
  auto& c = f.syntax.tool_calls;
  c.trigger = "[calls]";
  c.section_open = "[calls]\n";
  c.section_close = "[/calls]";
  c.call_open = "(fn ";
  c.call_close = "(/fn)\n";
  if (xml) {
    c.style = ai00::internal::CallStyle::xml;
    c.xml = {")\n", "  (arg ", ") ", "</arg>", "\n", "() "};
  } else {
    c.style = ai00::internal::CallStyle::json;
  }
  f.syntax.end_of_turn = "[/bot]";
  return make_syntax_format(f).value();
}

void run_data_format(benchmark::State& state, bool xml) {
  std::string text = xml ? "[calls]\n(fn f)\n  (arg a) "
                         : "[calls]\n(fn {\"name\": \"f\", \"arguments\": {\"a\": \"";
  while (text.size() < static_cast<size_t>(state.range(0)))
    text += xml ? "line ) with\n wake (bytes\n" : "} { \\\" }} ";
  auto f = data_format(xml);
  for (auto _ : state) {
    auto p = f->make_parser(ParseOptions{});
    size_t deltas = 0;
    for (size_t at = 0; at < text.size(); at += 4)
      deltas += p->feed(std::string_view(text).substr(at, 4)).size();
    deltas += p->finish().size();
    benchmark::DoNotOptimize(deltas);
  }
  state.counters["n"] = static_cast<double>(text.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

constexpr int64_t kN = 100 * 1024;
void BM_pathological_data_xml_value_4b(benchmark::State& s) { run_data_format(s, true); }
void BM_pathological_data_json_braces_4b(benchmark::State& s) { run_data_format(s, false); }
BENCHMARK(BM_pathological_data_xml_value_4b)->Arg(kN)->Arg(10 * kN)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pathological_data_json_braces_4b)
    ->Arg(kN)
    ->Arg(10 * kN)
    ->Unit(benchmark::kMillisecond);
#define AI00_PATHOLOGICAL(NAME, FORMAT, WHICH)                                                     \
  void BM_pathological_##NAME##_whole(benchmark::State& s) {                                       \
    run_pathological(s, FORMAT, WHICH, SIZE_MAX / 2);                                              \
  }                                                                                                \
  void BM_pathological_##NAME##_4b(benchmark::State& s) { run_pathological(s, FORMAT, WHICH, 4); } \
  BENCHMARK(BM_pathological_##NAME##_whole)->Arg(kN)->Arg(10 * kN)->Unit(benchmark::kMillisecond); \
  BENCHMARK(BM_pathological_##NAME##_4b)->Arg(kN)->Arg(10 * kN)->Unit(benchmark::kMillisecond);

AI00_PATHOLOGICAL(ai00_v1_markers, "ai00-v1", "ai00-v1-markers")
AI00_PATHOLOGICAL(ai00_v1_invoke, "ai00-v1", "ai00-v1-invoke")
AI00_PATHOLOGICAL(ai00_v0_call, "ai00-v0", "ai00-v0-call")
AI00_PATHOLOGICAL(openchatml_blocks, "openchatml", "openchatml-blocks")
AI00_PATHOLOGICAL(goose_markers, "goose", "goose-markers")
AI00_PATHOLOGICAL(ai00_v1_calls, "ai00-v1", "ai00-v1-calls")
AI00_PATHOLOGICAL(ai00_v0_calls_stream, "ai00-v0", "ai00-v0-calls-stream")
AI00_PATHOLOGICAL(openchatml_calls_stream, "openchatml", "openchatml-calls-stream")
AI00_PATHOLOGICAL(openchatml_long_arguments_stream, "openchatml",
                  "openchatml-long-arguments-stream")

}  // namespace

BENCHMARK(BM_parse_ai00_v1);
BENCHMARK(BM_parse_openchatml);
BENCHMARK(BM_parse_goose);
BENCHMARK(BM_memcpy_64k);
BENCHMARK(BM_render_ai00_v1_64_turns);
BENCHMARK_MAIN();
