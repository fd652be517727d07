// tools/ai00/serve/request_parser.cpp: request bodies -> GenerationRequest, and the JSON pointer of
// every refusal (the HTTP-level cases run in tests/server/test/server.test.js).
#include <catch2/catch.hpp>
#include <string>

#include "serve/api_error.h"
#include "serve/request_parser.h"

using ai00::serve::ApiError;
using ai00::serve::ConstraintKind;
using ai00::serve::parse_chat_request;
using ai00::serve::parse_completion_request;

namespace {

ai00::serve::ParserSettings settings() {
  ai00::serve::ParserSettings s;
  s.model_name = "tiny";
  s.chat_format = "ai00-v1";
  s.max_tokens_limit = 1000;
  s.preset = [](const std::string& name) -> ai00::SamplerParams {
    if (name == "math") return ai00::SamplerParams::preset(AI00_PRESET_MATH);
    throw ai00::serve::field_error("/preset", "unknown preset " + name);
  };
  return s;
}

const std::string kUser = R"("messages": [{"role": "user", "content": "hi"}])";

// The `param` of the 400 a chat body gets ("" if it is accepted).
std::string refusal(const std::string& body) {
  try {
    parse_chat_request(body, settings());
  } catch (const ApiError& e) {
    CHECK(e.http_status() == 400);
    if (!e.param().empty() && e.param() != "/")
      CHECK(std::string(e.what()).find(e.param()) != std::string::npos);
    return e.param().empty() ? "<none>" : e.param();
  }
  return "";
}

}  // namespace

TEST_CASE("chat fields map onto the library's parameters", "[server][request]") {
  const auto r = parse_chat_request(
      "{" + kUser +
          R"(, "max_completion_tokens": 12, "temperature": 0.5, "top_p": 0.9, "top_k": 7,
          "presence_penalty": 1, "frequency_penalty": -1, "seed": 42, "stop": ["a", "bb"],
          "bnf_validation": "schema_aware", "thinking": "a-lot", "chat_format": "goose",
          "stream": true, "stream_options": {"include_usage": true}})",
      settings());
  CHECK(r.chat);
  CHECK(r.model_name == "tiny");
  CHECK(r.options.max_tokens == 12);
  CHECK(r.options.sampler.temperature == Approx(0.5));
  CHECK(r.options.sampler.top_p == Approx(0.9));
  CHECK(r.options.sampler.top_k == 7);
  CHECK(r.options.sampler.presence_penalty == Approx(1));
  CHECK(r.options.sampler.frequency_penalty == Approx(-1));
  CHECK(r.options.seed.value() == 42);
  CHECK(r.options.stop_sequences == std::vector<std::string>{"a", "bb"});
  CHECK(r.options.grammar_mode == AI00_GRAMMAR_SCHEMA_AWARE);
  CHECK(r.thinking == AI00_THINKING_A_LOT);
  CHECK(r.chat_format == "goose");
  CHECK(r.stream);
  CHECK(r.include_usage);
}

TEST_CASE("both tool shapes become the library's tool list", "[server][request]") {
  const auto r = parse_chat_request(
      "{" + kUser +
          R"(, "tools": [{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}},
                       {"name": "b", "description": "d", "input_schema": {"type": "object"}}],
          "tool_choice": {"type": "function", "function": {"name": "b"}}})",
      settings());
  CHECK(
      r.tools_json ==
      R"([{"name":"a","parameters":{"type":"object"}},{"description":"d","name":"b","parameters":{"type":"object"}}])");
  CHECK(r.constraint.kind == ConstraintKind::tool_call);
  CHECK(r.options.tool_choice == AI00_TOOL_CHOICE_NAMED);
  CHECK(r.options.tool_choice_name == "b");
  CHECK(r.options.grammar_mode == AI00_GRAMMAR_SCHEMA_AWARE);  // a forced call: schema_aware
}

TEST_CASE("tool_choice and parallel_tool_calls go to the library's tool grammar",
          "[server][request]") {
  const std::string tools = R"(, "tools": [{"name": "b"}])";
  // none: the tools stay in the prompt and the library's grammar allows no call.
  const auto none =
      parse_chat_request("{" + kUser + tools + R"(, "tool_choice": "none"})", settings());
  CHECK(none.tools_json == R"([{"name":"b"}])");
  CHECK(none.options.tool_choice == AI00_TOOL_CHOICE_NONE);
  // ... unless no tool grammar applies (bnf_validation none, a custom grammar): then the tools
  // are not offered and parallel_tool_calls is ignored.
  const auto unconstrained = parse_chat_request(
      "{" + kUser + tools +
          R"(, "tool_choice": "none", "bnf_validation": "none", "parallel_tool_calls": false})",
      settings());
  CHECK(unconstrained.tools_json.empty());
  CHECK(unconstrained.options.tool_choice == AI00_TOOL_CHOICE_AUTO);
  CHECK(unconstrained.options.parallel_tool_calls);
  const auto required = parse_chat_request(
      "{" + kUser + tools + R"(, "tool_choice": "required", "parallel_tool_calls": false})",
      settings());
  CHECK(required.options.tool_choice == AI00_TOOL_CHOICE_REQUIRED);
  CHECK_FALSE(required.options.parallel_tool_calls);
  const auto structural = parse_chat_request(
      "{" + kUser + tools + R"(, "tool_choice": "required", "bnf_validation": "structural"})",
      settings());
  CHECK(structural.options.grammar_mode == AI00_GRAMMAR_STRUCTURAL);
  const auto single =
      parse_chat_request("{" + kUser + tools + R"(, "parallel_tool_calls": false})", settings());
  CHECK(single.options.tool_choice == AI00_TOOL_CHOICE_AUTO);
  CHECK_FALSE(single.options.parallel_tool_calls);
}

TEST_CASE("a forced call without a grammar is refused at tool_choice", "[server][request]") {
  try {
    parse_chat_request("{" + kUser +
                           R"(, "tools": [{"name": "b"}], "tool_choice": "required",
                              "bnf_validation": "none"})",
                       settings());
    FAIL("no error");
  } catch (const ApiError& e) {
    CHECK(e.param() == "/tool_choice");
    CHECK_THAT(e.what(), Catch::Contains("bnf_validation"));
  }
}

TEST_CASE("constraints: grammar, its seed 003 alias, response_format", "[server][request]") {
  auto g = parse_chat_request("{" + kUser + R"(, "bnf_schema": "start ::= 'a';"})", settings());
  CHECK(g.constraint.kind == ConstraintKind::kbnf);
  CHECK(g.constraint.param == "/bnf_schema");
  auto j = parse_chat_request("{" + kUser + R"(, "response_format": {"type": "json_object"}})",
                              settings());
  CHECK(j.constraint.kind == ConstraintKind::json_schema);
  CHECK(j.constraint.text == R"({"type":"object"})");
  auto s = parse_chat_request(
      "{" + kUser +
          R"(, "response_format": {"type": "json_schema", "json_schema": {"name": "n", "schema": {"type": "integer"}}}})",
      settings());
  CHECK(s.constraint.text == R"({"type":"integer"})");
  CHECK(s.constraint.param == "/response_format/json_schema/schema");
}

TEST_CASE("developer messages become system messages", "[server][request]") {
  const auto r = parse_chat_request(
      R"({"messages": [{"role": "developer", "content": "x"}, {"role": "user", "content": "y"}]})",
      settings());
  CHECK(r.messages_json == R"([{"content":"x","role":"system"},{"content":"y","role":"user"}])");
}

TEST_CASE("every refusal names the field's JSON pointer", "[server][request]") {
  CHECK(refusal("{" + kUser + "}").empty());
  CHECK(refusal("{") == "<none>");
  CHECK(refusal("[1]") == "/");
  CHECK(refusal("{}") == "/messages");
  CHECK(refusal(R"({"messages": []})") == "/messages");
  CHECK(refusal(R"({"messages": [{"content": "x"}]})") == "/messages/0/role");
  CHECK(refusal(R"({"messages": [7]})") == "/messages/0");
  CHECK(refusal("{" + kUser + R"(, "temperature": "1"})") == "/temperature");
  CHECK(refusal("{" + kUser + R"(, "temperature": 1e9})") == "/temperature");
  CHECK(refusal("{" + kUser + R"(, "top_k": -1})") == "/top_k");
  CHECK(refusal("{" + kUser + R"(, "max_tokens": 1001})") == "/max_tokens");
  CHECK(refusal("{" + kUser + R"(, "max_tokens": 5, "max_completion_tokens": 6})") ==
        "/max_completion_tokens");
  CHECK(refusal("{" + kUser + R"(, "stop": ["a", 2]})") == "/stop/1");
  CHECK(refusal("{" + kUser + R"(, "stop": ""})") == "/stop");
  CHECK(refusal("{" + kUser + R"(, "seed": "x"})") == "/seed");
  CHECK(refusal("{" + kUser + R"(, "n": 2})") == "/n");
  CHECK(refusal("{" + kUser + R"(, "logprobs": true})") == "/logprobs");
  CHECK(refusal("{" + kUser + R"(, "logit_bias": {"1": 2}})") == "/logit_bias");
  CHECK(refusal("{" + kUser + R"(, "stream_options": {"include_usage": true}})") ==
        "/stream_options");
  CHECK(refusal("{" + kUser + R"(, "stream": true, "stream_options": {"x": 1}})") ==
        "/stream_options/x");
  CHECK(refusal("{" + kUser + R"(, "thinking": "lots"})") == "/thinking");
  CHECK(refusal("{" + kUser + R"(, "reasoning_effort": "max"})") == "/reasoning_effort");
  CHECK(refusal("{" + kUser + R"(, "bnf_validation": 1})") == "/bnf_validation");
  CHECK(refusal("{" + kUser + R"(, "grammar": ""})") == "/grammar");
  CHECK(refusal("{" + kUser + R"(, "grammar": "a", "bnf_schema": "b"})") == "/bnf_schema");
  CHECK(refusal("{" + kUser + R"(, "tools": {}})") == "/tools");
  CHECK(refusal("{" + kUser + R"(, "tools": [{"type": "retrieval"}]})") == "/tools/0/type");
  CHECK(refusal("{" + kUser + R"(, "tools": [{"type": "function", "function": {}}]})") ==
        "/tools/0/function/name");
  CHECK(refusal("{" + kUser + R"(, "tools": [{"name": "a", "extra": 1}]})") == "/tools/0/extra");
  CHECK(refusal("{" + kUser + R"(, "tool_choice": "always"})") == "/tool_choice");
  CHECK(refusal("{" + kUser + R"(, "response_format": {"type": "yaml"}})") ==
        "/response_format/type");
  CHECK(refusal("{" + kUser + R"(, "response_format": {"type": "json_schema"}})") ==
        "/response_format/json_schema");
  CHECK(refusal("{" + kUser + R"(, "preset": "fast"})") == "/preset");
  CHECK(refusal("{" + kUser + R"(, "a/b~c": 1})") == "/a~1b~0c");
}

TEST_CASE("completion requests take a raw prompt", "[server][request]") {
  const auto r = parse_completion_request(
      R"({"prompt": ["Once"], "max_tokens": 3, "grammar": "start ::= 'a';"})", settings());
  CHECK_FALSE(r.chat);
  CHECK(r.prompt == "Once");
  CHECK(r.constraint.kind == ConstraintKind::kbnf);
  for (const char* bad :
       {R"({"prompt": ""})", R"({"prompt": 3})", R"({"prompt": ["a", "b"]})",
        R"({"prompt": "a", "echo": true})", R"({"prompt": "a", "messages": []})"}) {
    CHECK_THROWS_AS(parse_completion_request(bad, settings()), ApiError);
  }
}
