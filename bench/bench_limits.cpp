// Linear time on the pathological shapes of issue 15: prints, for each parser and compiler
// stage, the time for n and for 10·n and their ratio (about 10 when linear, about 100 when
// quadratic), each the best of 5 runs. A plain program (no Google Benchmark):
// build/<dir>/bin/bench_limits (docs/layers.md "Limits").
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>

#include "base/limits.h"
#include "format/format.h"
#include "format/message.h"
#include "grammar/json_schema.h"
#include "grammar/kbnf_parser.h"
#include "grammar/matcher.h"

using namespace ai00::internal;

namespace {

// The best of 5 runs: one run of a millisecond-long row is at the mercy of whatever else the
// machine does, and a ratio of two such runs moved between 6 and 28 on a linear stage.
double seconds(const std::function<void()>& f) {
  double best = 1e30;
  for (int k = 0; k < 5; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = s < best ? s : best;
  }
  return best;
}

void row(const char* name, size_t n, const std::function<void(size_t)>& run) {
  double a = seconds([&] { run(n); }), b = seconds([&] { run(10 * n); });
  std::printf("| %-46s | %8zu | %9.4f | %9.4f | %6.1f |\n", name, n, a, b, b / (a > 0 ? a : 1e-9));
  std::fflush(stdout);
}

void compile(const std::string& kbnf, const std::string& start = "start") {
  grammar::ParseOptions p;
  p.start = start;
  grammar::CompiledGrammar::compile_kbnf(kbnf, nullptr, p);
}

// One JSON Schema shape, timed per stage: convert to KBNF, parse the KBNF, compile it (lowering
// and every terminal's automaton). Each row is timed on its own input, built outside the timing.
void schema_rows(const char* shape, size_t n, const std::function<std::string(size_t)>& make) {
  const std::string schema[2] = {make(n), make(10 * n)};
  std::string kbnf[2];
  auto to_kbnf = [&](int k) {
    auto g = grammar::json_schema_to_kbnf(schema[k]);
    if (!g.ok()) std::printf("  (%s: %s)\n", shape, g.error().message.c_str());
    kbnf[k] = g.ok() ? g.value().kbnf : "start ::= 'x';";
  };
  auto run = [&](const std::string& stage, const std::function<void(int)>& f) {
    const double a = seconds([&] { f(0); }), b = seconds([&] { f(1); });
    const std::string name = "JSON Schema, " + std::string(shape) + " (" + stage + ")";
    std::printf("| %-46s | %8zu | %9.4f | %9.4f | %6.1f |\n", name.c_str(), n, a, b,
                b / (a > 0 ? a : 1e-9));
    std::fflush(stdout);
  };
  run("to KBNF", to_kbnf);
  run("parse KBNF", [&](int k) { (void)grammar::parse_kbnf(kbnf[k]); });
  run("compile", [&](int k) {
    try {
      compile(kbnf[k]);
    } catch (const std::exception& e) {
      std::printf("  (%s: %s)\n", shape, e.what());
    }
  });
}

}  // namespace

int main() {
  Limits l = limits();  // room for the 10·n inputs
  l.max_grammar_states = 10'000'000;
  l.max_nfa_states = 10'000'000;
  l.max_nesting_depth = kMaxNestingDepthCap;
  l.max_string_bytes = 1ull << 30;
  set_limits(l);
  std::printf("| shape | n | n: s | 10n: s | ratio |\n| --- | --- | --- | --- | --- |\n");
  row("KBNF chain of n rules (compile)", 5000, [](size_t n) {
    std::string g;
    for (size_t i = 0; i < n; ++i)
      g += "r" + std::to_string(i) + " ::= 'a' r" + std::to_string(i + 1) + " | 'c';\n";
    compile(g + "r" + std::to_string(n) + " ::= 'b';\n", "r0");
  });
  row("KBNF reversed chain of n rules (compile)", 5000, [](size_t n) {
    std::string g;
    for (size_t i = n; i-- > 0;)
      g += "r" + std::to_string(i) + " ::= 'a' r" + std::to_string(i + 1) + " | 'c';\n";
    compile(g + "r" + std::to_string(n) + " ::= 'b';\n", "r0");
  });
  row("KBNF n alternatives of literals (compile)", 3000, [](size_t n) {
    std::string g = "start ::= ";
    for (size_t i = 0; i < n; ++i) g += (i ? " | 'w" : "'w") + std::to_string(i) + "'";
    compile(g + ";");
  });
  row("#substrs of an n-byte text (compile)", 30000, [](size_t n) {
    std::string t;
    for (size_t i = 0; i < n; ++i) t += char('a' + (i * 7 + i / 13) % 26);
    compile("start ::= #substrs'" + t + "';");
  });
  row("KBNF n nested groups (parse)", 90, [](size_t n) {
    (void)grammar::parse_kbnf("start ::= " + std::string(n, '(') + "'a'" + std::string(n, ')') +
                              ";");
  });
  row("regex n nested classes (compile)", 90, [](size_t n) {
    compile("start ::= #'" + std::string(n, '[') + "a" + std::string(n, ']') + "';");
  });
  row("regex class with n `&&` operands (compile)", 45, [](size_t n) {
    std::string r = "[a-z";
    for (size_t i = 0; i < n; ++i) r += "&&[a-y";
    compile("start ::= #'" + r + std::string(n + 1, ']') + "';");
  });
  row("conversation of n messages (parse + render)", 2000, [](size_t n) {
    std::string j = "[";
    for (size_t i = 0; i < n; ++i)
      j += std::string(i ? "," : "") + R"({"role":")" + (i % 2 ? "assistant" : "user") +
           R"(","content":"message number )" + std::to_string(i) + "\"}";
    auto c = format::parse_conversation(j + "]");
    auto f = format::make_format("goose");
    if (c.ok() && f.ok()) (void)f.value()->render(c.value(), {});
  });
  row("goose output parser, n bytes in 7-byte chunks", 100000, [](size_t n) {
    auto f = format::make_format("goose");
    auto p = f.value()->make_parser({});
    std::string text;
    while (text.size() < n) text += "word <think> more text ";
    for (size_t i = 0; i < n; i += 7) p->feed(std::string_view(text).substr(i, 7));
    p->finish();
  });
  schema_rows("n properties", 2000, [](size_t n) {
    std::string s = R"({"type":"object","properties":{)";
    for (size_t i = 0; i < n; ++i)
      s += (i ? ",\"p" : "\"p") + std::to_string(i) + R"(":{"type":"integer"})";
    return s + "}}";
  });
  schema_rows("n properties, all required", 2000, [](size_t n) {
    std::string s = R"({"type":"object","properties":{)", r;
    for (size_t i = 0; i < n; ++i) {
      s += (i ? ",\"p" : "\"p") + std::to_string(i) + R"(":{"type":"string"})";
      r += (i ? ",\"p" : "\"p") + std::to_string(i) + "\"";
    }
    return s + R"(},"required":[)" + r + "]}";
  });
  schema_rows("enum of n strings", 2000, [](size_t n) {
    std::string s = R"({"enum":[)";
    for (size_t i = 0; i < n; ++i) s += (i ? ",\"v" : "\"v") + std::to_string(i) + "\"";
    return s + "]}";
  });
  schema_rows("n nested objects", 50, [](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += R"({"type":"object","properties":{"a":)";
    s += R"({"type":"integer"})";
    for (size_t i = 0; i < n; ++i) s += "}}";
    return s;
  });
  schema_rows("n $defs, each property a $ref", 1000, [](size_t n) {
    std::string s = R"({"type":"object","$defs":{)", p;
    for (size_t i = 0; i < n; ++i) {
      const std::string k = std::to_string(i);
      s += (i ? ",\"d" : "\"d") + k + R"(":{"type":"integer","minimum":)" + k + "}";
      p += (i ? ",\"p" : "\"p") + k + R"(":{"$ref":"#/$defs/d)" + k + "\"}";
    }
    return s + R"(},"properties":{)" + p + "}}";
  });
  return 0;
}
