// Tool-call grammars (src/grammar/tool_grammar.h): seed 000 / 003 ai00 v1 outputs and seed 002
// OpenChatML calls, checked by whole-string membership with the engine's Matcher. The grammar
// layer knows no format: the two syntaxes are written here as the data src/format exports
// (tests/format/test_syntax_format.cpp checks the formats' own data against their renders).
#include <catch2/catch.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "grammar/matcher.h"
#include "grammar/tool_grammar.h"
#include "test_token_mask_vocab.h"

using namespace ai00::internal::grammar;

namespace {

const char* const kTools = R"([
  {"name": "get_weather", "description": "Get weather for a location",
   "input_schema": {"type": "object", "properties": {
       "city": {"type": "string"},
       "unit": {"type": "string", "enum": ["c", "f"]},
       "days": {"type": "integer", "minimum": 1, "maximum": 14}},
     "required": ["city"]}},
  {"type": "function", "function": {"name": "web_search", "description": "Search",
   "parameters": {"type": "object", "properties": {
       "query": {"type": "string", "minLength": 1},
       "limit": {"type": "integer"},
       "safe": {"type": "boolean"},
       "filters": {"type": "object", "properties": {"site": {"type": "string"}}}},
     "required": ["query"]}}},
  {"name": "ping"}
])";

// seed 000: <ai00:function_calls> / <invoke name> / <parameter name>raw</parameter>.
ai00::internal::ChatSyntax ai00_v1_syntax() {
  ai00::internal::ChatSyntax s;
  s.thinking = {"<think>", "</think>", ""};
  auto& c = s.tool_calls;
  c.label = "ai00_v1_xml";
  c.trigger = "<ai00:function_calls>";
  c.section_open = "<ai00:function_calls>\n";
  c.section_close = "</ai00:function_calls>";
  c.call_open = "  <invoke name=\"";
  c.call_close = "  </invoke>\n";
  c.style = ai00::internal::CallStyle::xml;
  c.xml = {"\">\n", "    <parameter name=\"", "\">", "</parameter>", "\n", "\"<>"};
  s.end_of_turn = "</ai00:assistant>";
  return s;
}

// seed 002: <|function_call|>\n{"arguments": {...}, "name": "..."}, newline separated.
ai00::internal::ChatSyntax openchatml_syntax() {
  ai00::internal::ChatSyntax s;
  s.thinking = {"<|start_reason|>", "<|end_reason|>", ""};
  auto& c = s.tool_calls;
  c.label = "openchatml_json";
  c.trigger = "<|function_call|>";
  c.call_open = "<|function_call|>\n";
  c.call_separator = "\n";
  c.before_end = "\n";
  c.style = ai00::internal::CallStyle::json;
  c.json.arguments_first = true;
  s.end_of_turn = "<|im_end|>";
  return s;
}

// The ai00 v1 syntax with Goose's forced-open quirk: the prompt ends in "<think".
ai00::internal::ChatSyntax ai00_v1_open_tag_left() {
  auto s = ai00_v1_syntax();
  s.thinking.forced_open_completion = ">";
  return s;
}

CompiledGrammar build(const ai00::internal::ChatSyntax& syntax, ValidationLevel level,
                      ThinkingStart thinking = ThinkingStart::optional, bool eos = false) {
  auto tools = parse_tool_list(kTools);
  REQUIRE(tools.ok());
  ToolGrammarOptions opt;
  opt.syntax = syntax;
  opt.level = level;
  opt.thinking = thinking;
  opt.allow_eos_end = eos;
  auto g = build_tool_grammar(tools.value(), opt);
  if (!g.ok()) FAIL(g.error().message);
  INFO(g.value().kbnf);
  return CompiledGrammar::compile_kbnf(g.value().kbnf, nullptr);
}

bool accepts(const CompiledGrammar& g, std::string_view text) {
  Matcher m(g);
  return m.accept_bytes(text) && m.is_complete();
}

std::string invoke(const std::string& name,
                   const std::vector<std::pair<std::string, std::string>>& params) {
  std::string s = "  <invoke name=\"" + name + "\">\n";
  for (const auto& [k, v] : params)
    s += "    <parameter name=\"" + k + "\">" + v + "</parameter>\n";
  return s + "  </invoke>\n";
}

std::string calls(const std::string& invokes) {
  return "<ai00:function_calls>\n" + invokes + "</ai00:function_calls>";
}

void check_all(const CompiledGrammar& g, const std::vector<std::string>& texts, bool expected) {
  for (const auto& t : texts) {
    INFO("output: " << t);
    CHECK(accepts(g, t) == expected);
  }
}

}  // namespace

TEST_CASE("ai00 v1: seed 003 outputs are accepted at both levels", "[grammar][tool_grammar]") {
  const std::vector<std::string> good = {
      "Hello, how can I help you?\n</ai00:assistant>",
      "<think>Let me consider this question...</think>\nThe answer is 42.\n</ai00:assistant>",
      "<think></think>Hi\n</ai00:assistant>",
      "First paragraph.\n\nSecond paragraph, after a blank line.\n\n\nThird </ai00:assistant>",
      "Text may mention <ai00:function or </ai00:assistan partial markers.\n</ai00:assistant>",
      "<think>a</think>Now <think> is plain text.\n</ai00:assistant>",
      calls(invoke("get_weather", {{"city", "Tokyo"}})),
      "<think>I should check the weather first.</think>\n" +
          calls(invoke("get_weather", {{"city", "Tokyo"}})),
      "Let me search for that information.\n" + calls(invoke("web_search", {{"query", "AI news"}})),
      calls(invoke("get_weather", {{"city", "Tokyo"}}) +
            invoke("get_weather", {{"city", "London"}})),
      calls(invoke("get_weather", {{"city", "New\nYork <NY>"}, {"unit", "f"}, {"days", "14"}})),
      calls(invoke("web_search", {{"query", "q"},
                                  {"limit", "-3"},
                                  {"safe", "true"},
                                  {"filters", "{\"site\": \"x.com\"}"}})),
      calls(invoke("ping", {})),
  };
  check_all(build(ai00_v1_syntax(), ValidationLevel::structural), good, true);
  check_all(build(ai00_v1_syntax(), ValidationLevel::schema_aware), good, true);
}

TEST_CASE("ai00 v1: schema_aware rejects wrong names and badly typed values, structural does not",
          "[grammar][tool_grammar]") {
  const std::vector<std::string> typed_wrong = {
      calls(invoke("get_wether", {{"city", "Tokyo"}})),
      calls(invoke("get_weather", {{"city", "Tokyo"}, {"days", "seven"}})),
      calls(invoke("get_weather", {{"city", "Tokyo"}, {"days", "15"}})),
      calls(invoke("get_weather", {{"city", "Tokyo"}, {"days", "1.5"}})),
      // Integers are digits only (JsonSchemaOptions::plain_integers): the parser then types
      // them as integers, never as the string "2.0000000000".
      calls(invoke("get_weather", {{"city", "Tokyo"}, {"days", "2.0000000000"}})),
      calls(invoke("web_search", {{"query", "q"}, {"limit", "3.0"}})),
      calls(invoke("web_search", {{"query", "q"}, {"limit", "1e3"}})),
      calls(invoke("get_weather", {{"city", "Tokyo"}, {"unit", "k"}})),
      calls(invoke("get_weather", {{"city", "Tokyo"}, {"country", "JP"}})),
      calls(invoke("get_weather", {{"unit", "c"}})),
      calls(invoke("get_weather", {{"unit", "c"}, {"city", "Tokyo"}})),
      calls(invoke("web_search", {{"query", ""}})),
      calls(invoke("web_search", {{"query", "q"}, {"safe", "yes"}})),
      calls(invoke("web_search", {{"query", "q"}, {"filters", "{\"site\": 1}"}})),
      calls(invoke("ping", {{"x", "1"}})),
  };
  check_all(build(ai00_v1_syntax(), ValidationLevel::structural), typed_wrong, true);
  check_all(build(ai00_v1_syntax(), ValidationLevel::schema_aware), typed_wrong, false);
}

TEST_CASE("ai00 v1: malformed outputs are rejected at both levels", "[grammar][tool_grammar]") {
  const std::vector<std::string> bad = {
      "Hello without a stop sequence",
      "Hello\n\nworld",
      "<think>never closed\n</ai00:assistant>",
      "Hi</ai00:assistant>more",
      calls(invoke("get_weather", {{"city", "Tokyo"}})) + "\nextra",
      "<ai00:function_calls>\n</ai00:function_calls>",
      calls(invoke("get_weather", {{"city", "a</parameter>b"}})),
      "<ai00:function_calls>\n<invoke name=\"get_weather\">\n</invoke>\n</ai00:function_calls>",
      "",
  };
  for (auto level : {ValidationLevel::structural, ValidationLevel::schema_aware})
    check_all(build(ai00_v1_syntax(), level), bad, false);
}

TEST_CASE("ai00 v1: end of text and forced-open thinking", "[grammar][tool_grammar]") {
  auto eos = build(ai00_v1_syntax(), ValidationLevel::structural, ThinkingStart::optional, true);
  check_all(eos, {"Hello", "Hello\n\nworld", "Hello\n</ai00:assistant>", "<think>x</think>y"},
            true);
  check_all(eos, {"<think>x", "Hi</ai00:assistant>more"}, false);

  auto forced = build(ai00_v1_syntax(), ValidationLevel::schema_aware, ThinkingStart::forced_open);
  check_all(forced,
            {"reasoning\n</think>\nAnswer\n</ai00:assistant>", "</think>Hi</ai00:assistant>",
             "r</think>\n" + calls(invoke("get_weather", {{"city", "Oslo"}}))},
            true);
  check_all(forced, {"Answer\n</ai00:assistant>", "<think>r</think>x</ai00:assistant>x"}, false);

  auto goose =
      build(ai00_v1_open_tag_left(), ValidationLevel::structural, ThinkingStart::forced_open);
  check_all(goose, {">thinking</think> answer</ai00:assistant>"}, true);
  check_all(goose, {"thinking</think> answer</ai00:assistant>"}, false);
}

TEST_CASE("OpenChatML: seed 002 calls at both levels", "[grammar][tool_grammar]") {
  const std::string call_w =
      "<|function_call|>\n{\"arguments\": {\"city\": \"Tokyo\"}, \"name\": \"get_weather\"}";
  const std::string call_s =
      "<|function_call|>\n{\"arguments\": {\"query\": \"TSLA\", \"safe\": false}, \"name\": "
      "\"web_search\"}";
  const std::vector<std::string> good = {
      "Hi. Nice to meet you.\n<|im_end|>",
      "Multi\n\nparagraph<|im_end|>",
      call_w + "\n<|im_end|>",
      call_w + "<|im_end|>",
      call_w + "\n" + call_s + "\n<|im_end|>",
      "<|start_reason|>Need data.<|end_reason|>\n" + call_s + "\n<|im_end|>",
      "<|function_call|>\n{\"arguments\": {}, \"name\": \"ping\"}\n<|im_end|>",
  };
  const std::vector<std::string> typed_wrong = {
      "<|function_call|>\n{\"arguments\": {\"city\": \"Tokyo\"}, \"name\": "
      "\"get_wether\"}\n<|im_end|>",
      "<|function_call|>\n{\"arguments\": {\"city\": 5}, \"name\": \"get_weather\"}\n<|im_end|>",
      "<|function_call|>\n{\"arguments\": {\"days\": 3}, \"name\": \"get_weather\"}\n<|im_end|>",
      "<|function_call|>\n{\"arguments\": {\"city\": \"x\", \"days\": 0}, \"name\": "
      "\"get_weather\"}\n<|im_end|>",
      "<|function_call|>\n{\"arguments\": {\"q\": 1}, \"name\": \"ping\"}\n<|im_end|>",
  };
  const std::vector<std::string> bad = {
      "<|function_call|>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": "
      "\"Tokyo\"}}\n<|im_end|>",
      "<|function_call|>\n{\"arguments\": [], \"name\": \"get_weather\"}\n<|im_end|>",
      call_w,
      "no end",
      "Hi<|im_end|>more",
  };
  auto structural = build(openchatml_syntax(), ValidationLevel::structural);
  auto schema = build(openchatml_syntax(), ValidationLevel::schema_aware);
  check_all(structural, good, true);
  check_all(schema, good, true);
  check_all(structural, typed_wrong, true);
  check_all(schema, typed_wrong, false);
  check_all(structural, bad, false);
  check_all(schema, bad, false);
}

TEST_CASE("tool lists: accepted spellings and errors with JSON pointers",
          "[grammar][tool_grammar]") {
  auto ok = parse_tool_list(kTools);
  REQUIRE(ok.ok());
  REQUIRE(ok.value().size() == 3);
  CHECK(ok.value()[0].name == "get_weather");
  CHECK(ok.value()[1].name == "web_search");
  CHECK(ok.value()[1].description == "Search");
  CHECK(ok.value()[2].parameters_json.empty());
  auto wrapped = parse_tool_list(R"({"tools": [{"name": "a", "returns": {"type": "number"}}]})");
  REQUIRE(wrapped.ok());
  CHECK(wrapped.value()[0].returns_json == R"({"type":"number"})");

  auto msg = [](const char* json) {
    auto r = parse_tool_list(json);
    return r.ok() ? std::string("<no error>") : r.error().message;
  };
  CHECK_THAT(msg(R"([{"name": "a"}, {"description": "x"}])"), Catch::Contains("/1/name"));
  CHECK_THAT(msg(R"([{"name": "a"}, {"name": "a"}])"), Catch::Contains("duplicate"));
  CHECK_THAT(msg(R"([{"name": 3}])"), Catch::Contains("/0/name"));
  CHECK_THAT(msg(R"([{"type": "function", "function": {"name": "a", "parameters": 1}}])"),
             Catch::Contains("/0/function/parameters"));
  CHECK_THAT(msg(R"([{"type": "retrieval", "function": {"name": "a"}}])"),
             Catch::Contains("/0/type"));
  CHECK_THAT(msg("[1]"), Catch::Contains("/0"));
  CHECK_THAT(msg("[{"), Catch::Contains("not valid JSON"));

  ToolGrammarOptions opt;
  opt.syntax = ai00_v1_syntax();
  opt.level = ValidationLevel::schema_aware;
  auto quoted = parse_tool_list(R"([{"name": "bad\"name"}])");
  REQUIRE(quoted.ok());
  auto r = build_tool_grammar(quoted.value(), opt);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("/0/name"));
  auto unsupported = parse_tool_list(
      R"([{"name": "t", "parameters": {"type": "object", "properties": {"x": {"type": "array", "unevaluatedItems": {}}}}}])");
  REQUIRE(unsupported.ok());
  r = build_tool_grammar(unsupported.value(), opt);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("/properties/x/unevaluatedItems"));
  opt.level = ValidationLevel::none;
  CHECK_FALSE(build_tool_grammar(ok.value(), opt).ok());
}

TEST_CASE("tool names and enum values are spliced through the KBNF writer",
          "[grammar][tool_grammar]") {
  auto tools = parse_tool_list(R"([{"name": "it's_a\\tool", "parameters": {"type": "object",
      "properties": {"mode": {"enum": ["it's", "back\\slash", "new\nline"]}}, "required": ["mode"]}}])");
  REQUIRE(tools.ok());
  for (bool xml : {true, false}) {
    ToolGrammarOptions opt;
    opt.syntax = xml ? ai00_v1_syntax() : openchatml_syntax();
    opt.level = ValidationLevel::schema_aware;
    auto g = build_tool_grammar(tools.value(), opt);
    REQUIRE(g.ok());
    auto cg = CompiledGrammar::compile_kbnf(g.value().kbnf, nullptr);
    if (xml) {
      CHECK(accepts(cg, calls(invoke("it's_a\\tool", {{"mode", "it's"}}))));
      CHECK(accepts(cg, calls(invoke("it's_a\\tool", {{"mode", "new\nline"}}))));
      CHECK_FALSE(accepts(cg, calls(invoke("it's_a\\tool", {{"mode", "its"}}))));
    } else {
      CHECK(accepts(cg,
                    "<|function_call|>\n{\"arguments\": {\"mode\": \"back\\\\slash\"}, "
                    "\"name\": \"it's_a\\\\tool\"}<|im_end|>"));
      CHECK_FALSE(accepts(cg,
                          "<|function_call|>\n{\"arguments\": {\"mode\": \"back\\slash\"}, "
                          "\"name\": \"it's_a\\\\tool\"}<|im_end|>"));
    }
  }
}

namespace {

// RWKV World greedy longest-match tokenization over the shared vocabulary.
std::vector<uint32_t> greedy_tokens(const std::vector<std::string>& vocab, std::string_view text) {
  static const auto* index = [&] {
    auto* m = new std::unordered_map<std::string, uint32_t>();
    for (uint32_t id = 1; id < vocab.size(); ++id)
      if (!vocab[id].empty()) m->emplace(vocab[id], id);
    return m;
  }();
  std::vector<uint32_t> ids;
  for (size_t pos = 0; pos < text.size();) {
    size_t len = std::min<size_t>(128, text.size() - pos);
    for (; len > 0; --len) {
      auto it = index->find(std::string(text.substr(pos, len)));
      if (it != index->end()) {
        ids.push_back(it->second);
        break;
      }
    }
    REQUIRE(len > 0);
    pos += len;
  }
  return ids;
}

bool in_mask(const std::vector<uint64_t>& m, uint32_t id) { return (m[id >> 6] >> (id & 63)) & 1; }

// Token-level replay: every token is in the mask before it is committed, and end of text
// (token 0) is allowed at the end exactly for accepted outputs.
bool token_run_accepts(const CompiledGrammar& g, const std::vector<std::string>& vocab,
                       std::string_view text) {
  Matcher m(g);
  for (uint32_t id : greedy_tokens(vocab, text)) {
    const bool allowed = in_mask(m.mask(), id);
    const bool taken = m.accept_token(id);
    REQUIRE(allowed == taken);  // the mask agrees with the matcher
    if (!taken) return false;
  }
  return in_mask(m.mask(), 0);
}

}  // namespace

TEST_CASE("tool grammars under the RWKV vocabulary: masks agree token by token",
          "[grammar][tool_grammar]") {
  const auto vocab_tokens = ai00::test::load_rwkv_vocab(std::string(AI00_TEST_SHARED_DIR) +
                                                        "/tokenizer/rwkv_vocab_v20230424.txt");
  auto vocab = ai00::test::world_vocab();
  auto tools = parse_tool_list(kTools);
  REQUIRE(tools.ok());
  const std::vector<std::string> good = {
      "<think>Weather first.</think>\n" +
          calls(invoke("get_weather", {{"city", "Tokyo"}, {"days", "3"}})),
      "Plain answer.\n\nSecond paragraph.\n</ai00:assistant>",
      calls(invoke("web_search", {{"query", "AI news"}, {"filters", "{\"site\": \"x.com\"}"}})),
  };
  const std::vector<std::string> bad = {
      calls(invoke("get_weather", {{"city", "Tokyo"}, {"days", "30"}})),
      "Plain answer without a stop",
  };
  ToolGrammarOptions opt;
  opt.syntax = ai00_v1_syntax();
  opt.level = ValidationLevel::schema_aware;
  auto g = build_tool_grammar(tools.value(), opt);
  REQUIRE(g.ok());
  auto cg = CompiledGrammar::compile_kbnf(g.value().kbnf, vocab);
  {
    Matcher m(cg);
    auto first = m.mask();
    bool any = false;
    for (auto w : first) any = any || w != 0;
    CHECK(any);
    CHECK_FALSE(in_mask(first, 0));
  }
  for (const auto& t : good) {
    INFO(t);
    CHECK(token_run_accepts(cg, vocab_tokens, t));
  }
  for (const auto& t : bad) {
    INFO(t);
    CHECK_FALSE(token_run_accepts(cg, vocab_tokens, t));
  }
}

TEST_CASE("a syntax without the markers a grammar needs is refused", "[grammar][tool_grammar]") {
  auto tools = parse_tool_list(kTools);
  REQUIRE(tools.ok());
  auto error_of = [&](const ai00::internal::ChatSyntax& s, ThinkingStart start) {
    ToolGrammarOptions opt;
    opt.syntax = s;
    opt.thinking = start;
    auto g = build_tool_grammar(tools.value(), opt);
    return g.ok() ? std::string("<no error>") : g.error().message;
  };
  auto s = ai00_v1_syntax();
  s.tool_calls.trigger.clear();
  CHECK_THAT(error_of(s, ThinkingStart::optional), Catch::Contains("no tool calls"));
  s = ai00_v1_syntax();
  s.end_of_turn.clear();
  CHECK_THAT(error_of(s, ThinkingStart::optional), Catch::Contains("end_of_turn"));
  s = ai00_v1_syntax();
  s.tool_calls.trigger = "<ai00:calls>";
  CHECK_THAT(error_of(s, ThinkingStart::optional), Catch::Contains("must start with the trigger"));
  s = ai00_v1_syntax();
  s.tool_calls.xml.value_close.clear();
  CHECK_THAT(error_of(s, ThinkingStart::optional), Catch::Contains("value_close"));
  s = openchatml_syntax();
  s.thinking = {};
  CHECK_THAT(error_of(s, ThinkingStart::forced_open), Catch::Contains("thinking cannot be open"));
  // Without thinking markers the turn has no thinking block: "<|start_reason|>" is plain text.
  ToolGrammarOptions opt;
  opt.syntax = s;
  auto g = build_tool_grammar(tools.value(), opt);
  REQUIRE(g.ok());
  auto cg = CompiledGrammar::compile_kbnf(g.value().kbnf, nullptr);
  CHECK(accepts(cg, "<|start_reason|>x<|end_reason|>y<|im_end|>"));
  CHECK(accepts(cg, "<|function_call|>\n{\"arguments\": {}, \"name\": \"ping\"}<|im_end|>"));
  CHECK_FALSE(accepts(cg, "<|function_call|>\n{\"name\": \"ping\", \"arguments\": {}}<|im_end|>"));
}

namespace {

ai00::internal::Result<ToolGrammar> build_choice(const ai00::internal::ChatSyntax& syntax,
                                                 ValidationLevel level, ToolChoice choice,
                                                 ThinkingStart thinking = ThinkingStart::optional) {
  auto tools = parse_tool_list(kTools);
  REQUIRE(tools.ok());
  ToolGrammarOptions opt;
  opt.syntax = syntax;
  opt.level = level;
  opt.thinking = thinking;
  opt.allow_eos_end = true;
  opt.choice = std::move(choice);
  return build_tool_grammar(tools.value(), opt);
}

CompiledGrammar compile_choice(const ai00::internal::ChatSyntax& syntax, ValidationLevel level,
                               ToolChoice choice,
                               ThinkingStart thinking = ThinkingStart::optional) {
  auto g = build_choice(syntax, level, std::move(choice), thinking);
  if (!g.ok()) FAIL(g.error().message);
  INFO(g.value().kbnf);
  return CompiledGrammar::compile_kbnf(g.value().kbnf, nullptr);
}

ToolChoice choice_of(ToolChoiceMode mode, std::string name = "", bool parallel = true) {
  ToolChoice c;
  c.mode = mode;
  c.name = std::move(name);
  c.parallel_calls = parallel;
  return c;
}

}  // namespace

TEST_CASE("tool choice: none, required, a named tool, one call", "[grammar][tool_grammar]") {
  const std::string weather = calls(invoke("get_weather", {{"city", "Tokyo"}}));
  const std::string search = calls(invoke("web_search", {{"query", "q"}}));
  const std::string two =
      calls(invoke("get_weather", {{"city", "Tokyo"}}) + invoke("web_search", {{"query", "q"}}));
  const std::string two_weather =
      calls(invoke("get_weather", {{"city", "Tokyo"}}) + invoke("get_weather", {{"city", "Oslo"}}));
  const std::string text = "Sunny.\n</ai00:assistant>";
  const std::string thought = "<think>Call it.</think>\n";
  for (auto level : {ValidationLevel::structural, ValidationLevel::schema_aware}) {
    INFO("level " << static_cast<int>(level));
    const auto none = compile_choice(ai00_v1_syntax(), level, choice_of(ToolChoiceMode::none));
    check_all(none, {text, thought + text, "Sunny."}, true);
    check_all(none, {weather, "Let me check.\n" + weather, thought + weather}, false);

    const auto required =
        compile_choice(ai00_v1_syntax(), level, choice_of(ToolChoiceMode::required));
    check_all(required, {weather, search, two, thought + weather, "<think></think>" + two}, true);
    check_all(required, {text, "Let me check.\n" + weather, thought + text, "", thought}, false);

    const auto named =
        compile_choice(ai00_v1_syntax(), level, choice_of(ToolChoiceMode::named, "web_search"));
    check_all(
        named,
        {search, thought + search,
         calls(invoke("web_search", {{"query", "a"}}) + invoke("web_search", {{"query", "b"}}))},
        true);
    check_all(named, {weather, two, text, "Searching.\n" + search}, false);

    const auto single =
        compile_choice(ai00_v1_syntax(), level, choice_of(ToolChoiceMode::automatic, "", false));
    check_all(single, {weather, "Let me check.\n" + weather, text}, true);
    check_all(single, {two, two_weather}, false);

    const auto one_named = compile_choice(ai00_v1_syntax(), level,
                                          choice_of(ToolChoiceMode::named, "get_weather", false));
    check_all(one_named, {weather}, true);
    check_all(one_named, {two_weather, search, text}, false);
  }
  // Forced-open thinking: the block closes, then the call.
  const auto open = compile_choice(ai00_v1_syntax(), ValidationLevel::schema_aware,
                                   choice_of(ToolChoiceMode::required), ThinkingStart::forced_open);
  check_all(open, {"Call it.</think>\n\n" + weather}, true);
  check_all(open, {weather, "Call it.</think>\nOK " + weather}, false);
}

TEST_CASE("tool choice in the JSON call style (OpenChatML)", "[grammar][tool_grammar]") {
  const std::string w =
      "<|function_call|>\n{\"arguments\": {\"city\": \"Tokyo\"}, \"name\": \"get_weather\"}";
  const std::string s =
      "<|function_call|>\n{\"arguments\": {\"query\": \"TSLA\"}, \"name\": \"web_search\"}";
  for (auto level : {ValidationLevel::structural, ValidationLevel::schema_aware}) {
    const auto named =
        compile_choice(openchatml_syntax(), level, choice_of(ToolChoiceMode::named, "get_weather"));
    check_all(named, {w + "\n<|im_end|>", w + "\n" + w + "<|im_end|>"}, true);
    check_all(named, {s + "\n<|im_end|>", w + "\n" + s + "<|im_end|>", "Hi<|im_end|>"}, false);
    const auto one =
        compile_choice(openchatml_syntax(), level, choice_of(ToolChoiceMode::required, "", false));
    check_all(one, {w + "\n<|im_end|>", s + "<|im_end|>"}, true);
    check_all(one, {w + "\n" + s + "\n<|im_end|>", "Hi<|im_end|>"}, false);
    const auto none = compile_choice(openchatml_syntax(), level, choice_of(ToolChoiceMode::none));
    check_all(none, {"Hi<|im_end|>"}, true);
    check_all(none, {w + "\n<|im_end|>"}, false);
  }
}

TEST_CASE("tool choice errors name the tool", "[grammar][tool_grammar]") {
  auto error_of = [](ToolChoice c, ValidationLevel level = ValidationLevel::schema_aware) {
    auto g = build_choice(ai00_v1_syntax(), level, std::move(c));
    return g.ok() ? std::string("<no error>") : g.error().message;
  };
  CHECK_THAT(error_of(choice_of(ToolChoiceMode::named, "get_wether")),
             Catch::Contains("`get_wether`") && Catch::Contains("not among the tools") &&
                 Catch::Contains("get_weather, web_search, ping"));
  CHECK_THAT(error_of(choice_of(ToolChoiceMode::named, "get_wether"), ValidationLevel::structural),
             Catch::Contains("`get_wether`"));
  CHECK_THAT(error_of(choice_of(ToolChoiceMode::named, "")), Catch::Contains("empty"));
  // required with an empty list at schema_aware: no call could be valid.
  ToolGrammarOptions opt;
  opt.syntax = ai00_v1_syntax();
  opt.level = ValidationLevel::schema_aware;
  opt.choice = choice_of(ToolChoiceMode::required);
  auto g = build_tool_grammar({}, opt);
  REQUIRE_FALSE(g.ok());
  CHECK_THAT(g.error().message, Catch::Contains("no tools"));
  CHECK(std::string(tool_choice_name(ToolChoiceMode::named)) == "named");
}
