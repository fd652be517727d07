// The header-only C++ API (include/ai00/*.hpp) over libai00: RAII, ai00::Error on failures,
// the three driving styles of a Generator, State save/load/clone, grammars and messages.
// Links only the shared library (ai00::ai00), like a user program.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ai00/ai00.hpp"
#include "fixtures.h"

namespace {

const std::string kModel = "models/rand-rwkv7-c128-l3-v512-F16.gguf";

ai00::Model model() {
  static ai00::Model m = ai00::Model::load(ai00::test::shared_path(kModel));
  return m;
}

ai00::GenerateOptions seeded(uint32_t max_tokens) {
  ai00::GenerateOptions o;
  o.seed = 1234;
  o.max_tokens = max_tokens;
  return o;
}

const std::vector<ai00::Message> kConversation = {
    ai00::Message::text("system", "You are terse."),
    ai00::Message::text("user", "Say \"hi\"\nplease")};

}  // namespace

TEST_CASE("model load, info, tokenizer round trip", "[cpp][model]") {
  ai00::Model m = model();
  ai00_model_info info = m.info();
  CHECK(info.n_vocab == 512);
  CHECK(info.n_layer == 3);
  CHECK_FALSE(m.isa().empty());
  std::vector<uint32_t> ids = m.tokenize("héllo wörld");
  CHECK_FALSE(ids.empty());
  CHECK(m.detokenize(ids) == "héllo wörld");
  CHECK(ai00::library_version() == AI00_VERSION_NUMBER);
}

// ModelOptions::activations reaches the model: exact gives the fp64 reference logits of the Q8_0
// fixture after its first three tokens, the default dot (int8 dot products) does not.
TEST_CASE("model options choose exact activations", "[cpp][model]") {
  const std::string path = ai00::test::shared_path("models/rand-rwkv7-c128-l3-v512-Q8_0.gguf");
  const std::vector<float> all = ai00::test::read_f32(
      ai00::test::shared_path("models/rand-rwkv7-c128-l3-v512-Q8_0-logits.bin"));
  REQUIRE(all.size() == 32u * 512u);
  auto max_diff = [&](ai00::Activations a) {
    ai00::ModelOptions o;
    o.activations = a;
    ai00::Model m = ai00::Model::load(path, o);
    const bool exact = a == ai00::Activations::exact;
    CHECK(m.info_json().find(exact ? "\"activations\": \"exact\"" : "\"activations\": \"dot\"") !=
          std::string::npos);
    ai00::State st(m);
    const std::vector<float> logits = st.eval({0, 69, 66});
    return ai00::test::max_abs_diff(logits.data(), all.data() + 2 * 512, 512);
  };
  CHECK(ai00::ModelOptions().activations == ai00::Activations::dot);
  CHECK(max_diff(ai00::Activations::exact) <= 2e-5);
  CHECK(max_diff(ai00::Activations::dot) > 1e-4);
}

TEST_CASE("errors are ai00::Error with the status and the message", "[cpp][errors]") {
  try {
    ai00::Model::load("/nonexistent/model.gguf");
    FAIL("no exception");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_IO);
    CHECK(std::string(e.what()).find("/nonexistent/model.gguf") != std::string::npos);
  }
  try {
    ai00::Grammar::kbnf(model(), "start ::= \"a\"\nb ::= ;");
    FAIL("no exception");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_GRAMMAR);
    CHECK(std::string(e.what()).find("line 2") != std::string::npos);
  }
  CHECK_THROWS_AS(ai00::ChatTemplate("nope"), ai00::Error);
}

TEST_CASE("state save, load, clone continue identically", "[cpp][state]") {
  ai00::Model m = model();
  ai00::State s(m);
  s.eval(m.tokenize("Once upon a time"));
  std::vector<uint8_t> bytes = s.save();
  ai00::State c = s.clone();
  ai00::State r = ai00::State::load(m, bytes);
  std::vector<uint32_t> next = m.tokenize(" there");
  std::vector<float> a = s.eval(next);
  CHECK(r.eval(next) == a);
  CHECK(c.eval(next) == a);
  bytes[bytes.size() / 2] ^= 0x55;
  try {
    ai00::State::load(m, bytes);
    FAIL("no exception");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_MODEL_FILE);
  }
  ai00::SamplerParams greedy;
  greedy.method = AI00_SAMPLER_GREEDY;
  uint32_t t = s.sample(a, greedy);
  CHECK(t < a.size());
}

TEST_CASE("a chat turn: push, pull and step agree", "[cpp][generator]") {
  ai00::Model m = model();
  ai00::ChatTemplate tmpl("goose");
  ai00::State base(m);
  ai00::State s1 = base.clone(), s2 = base.clone(), s3 = base.clone();

  std::string pushed;
  ai00::Generator g1 = ai00::Generator::chat(m, s1, tmpl, kConversation, {}, seeded(10));
  ai00::FinishReason r1 = g1.run([&](const ai00::Delta& d) {
    if (d.kind == ai00::DeltaKind::text) pushed += d.text;
    return true;
  });
  CHECK((r1 == ai00::FinishReason::length || r1 == ai00::FinishReason::stop));
  CHECK(g1.message().content == pushed);
  CHECK(g1.message_json().find("\"assistant\"") != std::string::npos);

  std::string pulled;
  ai00::Generator g2 = ai00::Generator::chat(m, s2, tmpl, kConversation, {}, seeded(10));
  while (auto d = g2.next())
    if (d->kind == ai00::DeltaKind::text) pulled += d->text;
  CHECK(pulled == pushed);
  CHECK(g2.tokens() == g1.tokens());

  std::string stepped;
  ai00::Generator g3 = ai00::Generator::chat(m, s3, tmpl, kConversation, {}, seeded(10));
  int calls = 0;
  while (!g3.step(1, [&](const ai00::Delta& d) {
    if (d.kind == ai00::DeltaKind::text) stepped += d.text;
    return true;
  }) && ++calls < 100) {
  }
  CHECK(stepped == pushed);
  CHECK(g3.finish_reason() == r1);
}

TEST_CASE("a callback exception ends the turn and is rethrown", "[cpp][generator]") {
  ai00::Model m = model();
  ai00::State s(m);
  ai00::Generator g = ai00::Generator::raw(m, s, "Hello", seeded(20));
  CHECK_THROWS_AS(g.run([](const ai00::Delta&) -> bool { throw std::runtime_error("boom"); }),
                  std::runtime_error);
  CHECK(g.finish_reason() == ai00::FinishReason::cancelled);
}

TEST_CASE("a grammar constrains a raw turn", "[cpp][grammar]") {
  ai00::Model m = model();
  ai00::Grammar g = ai00::Grammar::json_schema(m, R"({"type":"boolean"})");
  CHECK(g.accepts("false"));
  CHECK_FALSE(g.accepts(" false\n"));  // for generation: nothing around the value
  CHECK_FALSE(g.accepts("maybe"));
  ai00_schema_options compact;
  ai00_schema_options_default(&compact);
  compact.flexible_whitespace = 0;
  compact.compact = 1;
  ai00::Grammar c = ai00::Grammar::json_schema(m, R"({"type":"array"})", &compact);
  CHECK(c.accepts("[1,2]"));
  CHECK_FALSE(c.accepts("[1, 2]"));
  ai00::State s(m);
  ai00::GenerateOptions o = seeded(16);
  o.grammar = g;
  ai00::Generator gen = ai00::Generator::raw(m, s, "Answer: ", o);
  gen.run();
  CHECK(g.accepts(gen.message().content));
}

TEST_CASE("C++ messages render like their JSON", "[cpp][chat_template]") {
  ai00::ChatTemplate tmpl("ai00-v1");
  ai00::Rendered a = tmpl.render(kConversation);
  ai00::Rendered b = tmpl.render_json(R"([{"role":"system","content":"You are terse."},)"
                                      R"({"role":"user","content":"Say \"hi\"\nplease"}])");
  CHECK(a.prompt == b.prompt);
  CHECK_FALSE(a.stops.empty());
  ai00::Message m;
  ai00::accumulate(
      m, ai00::Delta{ai00::DeltaKind::text, 0, ai00::FinishReason::none, "Hi", "", "", true});
  ai00::accumulate(m, ai00::Delta{ai00::DeltaKind::tool_call, 0, ai00::FinishReason::none,
                                  "{\"x\":1}", "call_1", "f", true});
  CHECK(m.content == "Hi");
  REQUIRE(m.tool_calls.size() == 1);
  CHECK(ai00::to_json(m).find("\"arguments\":{\"x\":1}") != std::string::npos);
}

TEST_CASE("cancel from another thread stops a running turn", "[cpp][generator]") {
  ai00::Model m = model();
  ai00::State s(m);
  ai00::GenerateOptions o = seeded(100000);  // would run for a long time
  o.sampler.ban_eos = 1;
  ai00::Generator g = ai00::Generator::raw(m, s, "Once", o);
  std::atomic<bool> started{false};
  std::thread canceller([&] {
    while (!started.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    g.cancel();
  });
  ai00::FinishReason r = g.run([&](const ai00::Delta&) {
    started.store(true);
    return true;
  });
  canceller.join();
  CHECK(r == ai00::FinishReason::cancelled);
  CHECK(g.tokens().size() < 100000);
}

TEST_CASE("many characters share one model from several threads", "[cpp][generator]") {
  ai00::Model m = model();
  std::vector<std::string> out(3);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      ai00::State s(m);
      ai00::Generator g = ai00::Generator::raw(m, s, "Hi", seeded(8));
      g.run();
      out[i] = g.message().content;
    });
  }
  for (auto& t : threads) t.join();
  // Same seed and prompt on independent States: same text, whatever the interleaving.
  CHECK(out[0] == out[1]);
  CHECK(out[1] == out[2]);
}

TEST_CASE("a frame loop: step returns the deltas of bounded work", "[cpp][generator]") {
  ai00::Model m = model();
  ai00::State a(m), b(m);
  ai00::Generator pushed = ai00::Generator::raw(m, a, "Hello there", seeded(9));
  pushed.run();
  ai00::Generator g = ai00::Generator::raw(m, b, "Hello there", seeded(9));
  std::string text;
  int frames = 0;
  while (!g.finished() && ++frames < 100) {
    size_t before = g.tokens().size();
    for (const ai00::Delta& d : g.step(2))
      if (d.kind == ai00::DeltaKind::text) text += d.text;
    CHECK(g.tokens().size() - before <= 2);  // never more than the budget
  }
  CHECK(g.finished());
  CHECK(frames > 2);
  CHECK(text == pushed.message().content);
  CHECK(g.tokens() == pushed.tokens());
}

TEST_CASE("model info JSON and logits at every position", "[cpp][model][state]") {
  ai00::Model m = model();
  const std::string json = m.info_json();
  CHECK(json.find("\"n_embd\": 128") != std::string::npos);
  CHECK(json.find("\"isa\": \"" + m.isa() + "\"") != std::string::npos);
  ai00::State a(m), b(m);
  const std::vector<uint32_t> tokens = {0, 69, 66};
  const std::vector<float> all = a.eval_all(tokens);
  REQUIRE(all.size() == 3 * m.n_vocab());
  const std::vector<float> last = b.eval(tokens);
  for (size_t i = 0; i < last.size(); ++i)
    CHECK(all[2 * last.size() + i] == Approx(last[i]).margin(1e-3));
  try {
    a.eval_all({});
    FAIL("an empty token list was accepted");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("ai00_state_eval_all") != std::string::npos);
  }
}

TEST_CASE("a tokenizer from a vocabulary file or a model", "[cpp][tokenizer]") {
  ai00::Tokenizer tok =
      ai00::Tokenizer::load(ai00::test::shared_path("tokenizer/rwkv_vocab_v20230424.txt"));
  const std::string raw = "caf\xc3\xa9 \xff\xfe\x80 \xf0\x9f\x98\x80\n\n";
  CHECK(tok.decode(tok.encode(raw)) == raw);
  CHECK(tok.encode("Hello") == std::vector<uint32_t>{33155});
  CHECK(ai00::Tokenizer::of(model()).vocab_size() == 512);
  try {
    tok.decode({5, 70000});
    FAIL("an id outside the vocabulary was accepted");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("token id 70000 at position 1") != std::string::npos);
  }
  CHECK_THROWS_AS(ai00::Tokenizer::load("/nonexistent/vocab.txt"), ai00::Error);
}

TEST_CASE("an output parser gives a generator's deltas for pushed text", "[cpp][output_parser]") {
  ai00::ChatTemplate tmpl("openchatml");
  ai00::OutputParser whole(tmpl, {});
  ai00::OutputParser bytewise(tmpl, {});
  const std::string reply = "Hello <b>there</b>, friend.<|im_end|>ignored";
  std::vector<ai00::Delta> deltas = whole.push(reply);
  for (const auto& d : whole.finish()) deltas.push_back(d);
  std::string text;
  for (const auto& d : deltas)
    if (d.kind == ai00::DeltaKind::text) text += d.text;
  CHECK(text == "Hello <b>there</b>, friend.");
  REQUIRE(!deltas.empty());
  CHECK(deltas.back().kind == ai00::DeltaKind::finish);
  for (char c : reply) bytewise.push(std::string(1, c));
  bytewise.finish();
  CHECK(bytewise.message_json() == whole.message_json());
  CHECK(ai00::finish_reason_name(whole.finish_reason()) == "stop");
  CHECK_THROWS_AS(whole.push("more"), ai00::Error);
  ai00::ParseOptions bad;
  bad.tools_json = "{\"tools\": 3}";
  CHECK_THROWS_AS(ai00::OutputParser(tmpl, bad), ai00::Error);
}

TEST_CASE("grammars without a model: KBNF text, warnings and checks", "[cpp][grammar]") {
  ai00::Grammar yes_no = ai00::Grammar::compile("start ::= 'yes' | 'no';");
  CHECK(yes_no.check("no").verdict == AI00_CHECK_ACCEPTED);
  const ai00_grammar_check_result r = yes_no.check("nope");
  CHECK(r.verdict == AI00_CHECK_BYTES);
  CHECK(r.byte_offset == 2);
  ai00_schema_options lenient;
  ai00_schema_options_default(&lenient);
  lenient.lenient = 1;
  ai00::Grammar schema =
      ai00::Grammar::from_json_schema("{\"type\": \"array\", \"unevaluatedItems\": {}}", &lenient);
  CHECK(schema.warnings().size() == 1);
  CHECK(schema.check("[42]").verdict == AI00_CHECK_ACCEPTED);
  CHECK(schema.kbnf_text().find("start") != std::string::npos);
  ai00::ChatTemplate tmpl("openchatml");
  ai00::Grammar tools = ai00::Grammar::for_tools(
      tmpl, "[{\"name\": \"now\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}]");
  CHECK(tools.kbnf_text().find("<|function_call|>") != std::string::npos);
  // A generator takes only grammars compiled for its model.
  ai00::GenerateOptions o = seeded(4);
  o.grammar = yes_no;
  ai00::State s(model());
  try {
    ai00::Generator::raw(model(), s, "Q", o);
    FAIL("a grammar without a model was accepted by a generator");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_MISMATCH);
  }
  try {
    ai00::Grammar::compile("start ::= 'a' |;");
    FAIL("a malformed grammar compiled");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_GRAMMAR);
    CHECK(std::string(e.what()).find("line 1, column 16") != std::string::npos);
  }
}

TEST_CASE("convert_model writes a loadable file, reports progress and refuses to overwrite",
          "[cpp][convert]") {
  const std::string src = ai00::test::shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin");
  const std::string out = ai00::test::temp_dir() + "/m.gguf";
  ai00::ConvertOptions o;
  o.weight_type = AI00_WEIGHT_Q4_1;
  uint64_t last = 0, total = 0;
  o.progress = [&](uint64_t done, uint64_t all) {
    last = done, total = all;
    return true;
  };
  ai00::convert_model(src, out, o);
  CHECK(total > 0);
  CHECK(last == total);
  const ai00::Model m = ai00::Model::load(out);
  CHECK(m.info().n_layer == 3);
  CHECK(m.info_json().find("\"Q4_1\"") != std::string::npos);
  try {
    ai00::convert_model(src, out, o);
    FAIL("an existing output was replaced");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_IO);
  }
  o.overwrite = true;
  o.progress = [](uint64_t, uint64_t) -> bool { throw std::runtime_error("stop here"); };
  CHECK_THROWS_WITH(ai00::convert_model(src, out, o), "stop here");
}

TEST_CASE("Model::load reports monotonic progress ending at (total, total) and cancels",
          "[cpp][load]") {
  const std::string src = ai00::test::shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf");
  std::vector<std::pair<uint64_t, uint64_t>> seen;
  ai00::ModelOptions o;
  o.progress = [&](uint64_t done, uint64_t total) {
    seen.emplace_back(done, total);
    return true;
  };
  const ai00::Model m = ai00::Model::load(src, o);
  CHECK(m.info().n_vocab == 512);
  REQUIRE(seen.size() >= 3);
  const uint64_t total = seen.front().second;
  CHECK(seen.front().first == 0);
  for (size_t i = 1; i < seen.size(); ++i) {
    CHECK(seen[i].first >= seen[i - 1].first);
    CHECK(seen[i].second == total);
  }
  CHECK(seen.back() == std::make_pair(total, total));
  o.progress = [](uint64_t done, uint64_t total) { return done * 2 < total; };
  try {
    ai00::Model::load(src, o);
    FAIL("a cancelled load returned a model");
  } catch (const ai00::Error& e) {
    CHECK(e.status() == AI00_ERR_CANCELLED);
  }
  o.progress = [](uint64_t, uint64_t) -> bool { throw std::runtime_error("stop loading"); };
  CHECK_THROWS_WITH(ai00::Model::load(src, o), "stop loading");
  CHECK(ai00::capabilities_json().find("\"isa_supported\"") != std::string::npos);
}

TEST_CASE("a forced, streamed tool call through GenerateOptions", "[cpp][generator]") {
  ai00::Model m = model();
  ai00::ChatTemplate tmpl("ai00-v1");
  ai00::RenderOptions ro;
  ro.tools_json =
      R"([{"name": "get_weather", "parameters": {"type": "object", "properties": {
            "city": {"enum": ["Oslo", "Rome"]}}, "required": ["city"],
            "additionalProperties": false}},
          {"name": "get_time", "parameters": {"type": "object", "additionalProperties": false}}])";
  const std::vector<ai00::Message> conv = {ai00::Message::text("user", "Weather in Oslo?")};
  ai00::GenerateOptions o = seeded(200);
  o.grammar_mode = AI00_GRAMMAR_SCHEMA_AWARE;
  o.tool_choice = AI00_TOOL_CHOICE_NAMED;
  o.tool_choice_name = "get_weather";
  o.parallel_tool_calls = false;
  o.stream_tool_calls = true;
  ai00::State s(m);
  ai00::Generator g = ai00::Generator::chat(m, s, tmpl, conv, ro, o);
  std::string pieces, whole;
  int starts = 0;
  CHECK(g.run([&](const ai00::Delta& d) {
    if (d.kind == ai00::DeltaKind::tool_call_start) ++starts;
    if (d.kind == ai00::DeltaKind::tool_call_arguments) pieces += d.text;
    if (d.kind == ai00::DeltaKind::tool_call) whole = d.text;
    return true;
  }) == ai00::FinishReason::tool_calls);
  CHECK(starts == 1);
  CHECK(pieces == whole);
  REQUIRE(g.message().tool_calls.size() == 1);
  CHECK(g.message().tool_calls[0].name == "get_weather");
  // An unknown tool name is an Error naming it.
  o.tool_choice_name = "get_wether";
  ai00::State s2(m);
  CHECK_THROWS_WITH(ai00::Generator::chat(m, s2, tmpl, conv, ro, o),
                    Catch::Contains("`get_wether`"));
}
