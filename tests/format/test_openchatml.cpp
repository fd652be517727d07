// Tests of src/format/openchatml.{h,cpp}: seed 002 goldens, parse-back, builders, bad input.
#include <catch2/catch.hpp>

#include "format/openchatml.h"
#include "format_test_util.h"

using namespace ai00::internal::format;
using namespace ai00::test;
namespace json = ai00::internal::json;

namespace {

// The seed's examples write the base model's tokens as "[BOS]" and "[EOS]".
std::shared_ptr<const ChatFormat> seed_format(bool newline_before_im_end = true) {
  OpenChatMLOptions o;
  o.bos = "[BOS]";
  o.eos = "[EOS]";
  o.reflect = o.introspect = true;
  o.newline_before_im_end = newline_before_im_end;
  return make_openchatml(o);
}

const ChatFormat& plain() {
  static auto f = make_openchatml();
  return *f;
}

RenderOptions no_gen(Thinking t = Thinking::off) {
  RenderOptions o;
  o.add_generation_prompt = false;
  o.thinking = t;
  return o;
}

std::vector<std::string> split(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t next; (next = s.find(sep, at)) != std::string::npos; at = next + sep.size())
    out.push_back(s.substr(at, next - at));
  out.push_back(s.substr(at));
  return out;
}

// The body of the only message of a one-message render.
std::string body_of(const std::string& prompt, const std::string& role) {
  const std::string open = "<|im_start|>" + role + "\n";
  REQUIRE(prompt.rfind(open, 0) == 0);
  REQUIRE(prompt.size() >= open.size() + 11);
  return prompt.substr(open.size(), prompt.size() - open.size() - 11);  // "\n<|im_end|>"
}

}  // namespace

TEST_CASE("openchatml: seed 002 conversations render byte for byte", "[format][openchatml]") {
  for (const char* name :
       {"openchatml_example", "openchatml_speaker_name", "openchatml_function_calling"}) {
    INFO(name);
    CHECK(render_ok(*seed_format(), load_conversation(std::string(name) + ".json"), no_gen()) ==
          golden(std::string(name) + ".txt"));
  }
  // Section 4 writes no newline before <|im_end|> and enables all three thought flags.
  CHECK(render_ok(*seed_format(false), load_conversation("openchatml_thoughts.json"),
                  no_gen(Thinking::on)) == golden("openchatml_thoughts.txt"));
  // The named-roles example has stray spaces after "name=Alice" and after one <|im_end|>, which
  // no renderer can produce (a name has no whitespace, section 3); everything else matches.
  std::string named = golden("openchatml_named_roles.txt");
  for (const char* stray : {"name=Alice  \n", "<|im_end|>  \n"}) {
    const size_t at = named.find(stray);
    REQUIRE(at != std::string::npos);
    named.erase(at + std::string(stray).size() - 3, 2);
  }
  CHECK(render_ok(*seed_format(), load_conversation("openchatml_named_roles.json"), no_gen()) ==
        named);
}

TEST_CASE("openchatml: seed 002 function calling pieces", "[format][openchatml]") {
  const auto tools = load_tools("openchatml_function_list.tools.json");
  CHECK(openchatml_function_list(tools) == golden("openchatml_function_list.txt"));
  Message call;
  call.role = Role::assistant;
  call.tool_calls.push_back(
      ToolCall{"c", "get_stock_fundamentals", json::parse(R"({"symbol": "TSLA"})").value()});
  CHECK(body_of(render_ok(plain(), {call}, no_gen()), "assistant") ==
        golden("openchatml_function_call.txt"));
  CHECK(body_of(render_ok(plain(), load_conversation("openchatml_function_output.json"), no_gen()),
                "tool") == golden("openchatml_function_output.txt"));
  // Tools given as options go after the system text; the name of a value result comes from
  // the matching call when the tool message has none.
  RenderOptions o;
  o.tools = tools;
  auto conv = parse_conversation(R"([{"role": "system", "content": "Use tools."},
    {"role": "user", "content": "TSLA?"},
    {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_stock_fundamentals", "arguments": {"symbol": "TSLA"}}}]},
    {"role": "tool", "tool_call_id": "c1", "contents": [{"type": "value", "value": {"eps": 4.3}}]}])");
  REQUIRE(conv.ok());
  const std::string p = render_ok(plain(), conv.value(), o);
  CHECK(p.rfind("<|im_start|>system\nUse tools.\n" + golden("openchatml_function_list.txt") +
                    "\n<|im_end|>\n",
                0) == 0);
  CHECK(p.find("<|function_output|>\n{\n  \"name\": \"get_stock_fundamentals\",\n  \"content\": {\n"
               "    \"eps\": 4.3\n  }\n}\n<|im_end|>\n<|im_start|>assistant\n") !=
        std::string::npos);
}

TEST_CASE("openchatml: fill-in-the-middle and multi-file builders", "[format][openchatml]") {
  CHECK(openchatml_fim("prefix_content", "suffix_content") ==
        golden("openchatml_fim_template.txt"));
  for (const char* name : {"openchatml_fim", "openchatml_fim_code"}) {
    const std::string g = golden(std::string(name) + ".txt");
    auto parts = split(g.substr(14), "<|fim_middle|><|fim_suffix|>");
    REQUIRE(parts.size() == 2);
    CHECK(openchatml_fim(parts[0], parts[1]) == g);
  }
  for (const char* name :
       {"openchatml_fim_code_completion", "openchatml_multi_file_fim_completion"}) {
    const std::string g = golden(std::string(name) + ".txt");
    auto pm = split(g.substr(14), "<|fim_middle|>");
    REQUIRE(pm.size() == 2);
    auto ms = split(pm[1], "<|fim_suffix|>");
    REQUIRE(ms.size() == 2);
    CHECK(openchatml_fim_completion(pm[0], ms[0], ms[1]) == g);
  }
  for (const char* name : {"openchatml_multi_file_template", "openchatml_multi_file"}) {
    const std::string g = golden(std::string(name) + ".txt");
    auto files = split(g, "\n<|file_separator|>\n");
    CHECK(files.size() == 3);
    CHECK(openchatml_multi_file(files) == g);
  }
  const std::string g = golden("openchatml_multi_file_fim.txt");
  auto files = split(g.substr(19), "\n<|file_separator|>\n");
  REQUIRE(files.size() == 4);
  CHECK(files[3] == openchatml_fim("", files[3].substr(42)));
  CHECK(openchatml_multi_file(files, true) == g);
}

TEST_CASE("openchatml: seed outputs parse back at every split point", "[format][openchatml]") {
  for (const char* name : {"openchatml_example", "openchatml_speaker_name"}) {
    auto conv = load_conversation(std::string(name) + ".json");
    auto r = parse_every_way(*seed_format(), {}, model_output(*seed_format(), conv, {}, false));
    CHECK(r.message == conv.back());
    CHECK(r.finish_reason == FinishReason::stop);
  }
  SECTION("thought blocks keep their kind") {
    auto conv = load_conversation("openchatml_thoughts.json");
    RenderOptions think;
    think.thinking = Thinking::on;
    auto r = parse_every_way(*seed_format(false), {},
                             model_output(*seed_format(false), conv, think, false));
    CHECK(r.message == conv.back());
    CHECK(r.message.reasoning->rfind("<|start_reflect|>The user is asking", 0) == 0);
  }
  SECTION("function calling") {
    auto conv = load_conversation("openchatml_function_calling.json");
    std::vector<Message> upto_call(conv.begin(), conv.begin() + 3);
    ParseOptions po;
    po.id_seed = 5;
    auto r =
        parse_every_way(*seed_format(), po, model_output(*seed_format(), upto_call, {}, false));
    REQUIRE(r.message.tool_calls.size() == 1);
    CHECK(r.message.tool_calls[0].name == "get_stock_fundamentals");
    CHECK(r.message.tool_calls[0].id == tool_call_id(5, 0));
    CHECK(json::write(r.message.tool_calls[0].arguments) == R"({"symbol":"TSLA"})");
    CHECK(r.finish_reason == FinishReason::tool_calls);
    auto answer =
        parse_every_way(*seed_format(), {}, model_output(*seed_format(), conv, {}, false));
    CHECK(answer.message == conv.back());  // its trailing newline survives
  }
  SECTION("named speaker") {
    auto conv = load_conversation("openchatml_named_roles.json");
    RenderOptions o;
    o.assistant_name = "FitnessCoach";
    ParseOptions po;
    po.assistant_name = "FitnessCoach";
    auto r = parse_every_way(*seed_format(), po, model_output(*seed_format(), conv, o, false));
    CHECK(r.message == conv.back());
  }
}

TEST_CASE("openchatml: round trip with tools, thoughts, several calls and names",
          "[format][openchatml]") {
  auto conv = parse_conversation(R"([
    {"role": "user", "name": "Eric", "content": "Weather in Tokyo and Paris?"},
    {"role": "assistant", "name": "Bot",
     "reasoning": "<|start_reflect|>Curious user.<|end_reflect|>\nTwo cities,\nso two calls.",
     "content": "Checking both.",
     "tool_calls": [
       {"id": "a", "function": {"name": "get_weather", "arguments": {"city": "Tokyo", "days": [1, 2], "metric": true}}},
       {"id": "b", "function": {"name": "get_weather", "arguments": {"city": "Paris \"FR\" {x}"}}}]}
  ])");
  REQUIRE(conv.ok());
  RenderOptions o;
  o.thinking = Thinking::on;
  o.assistant_name = "Bot";
  o.tools = parse_tools(R"([{"name": "get_weather", "parameters": {"type": "object"}}])").value();
  ParseOptions po;
  po.assistant_name = "Bot";
  po.id_seed = 3;
  auto r = parse_every_way(plain(), po, model_output(plain(), conv.value(), o, false));
  Message expected = conv.value().back();
  expected.tool_calls[0].id = tool_call_id(3, 0);
  expected.tool_calls[1].id = tool_call_id(3, 1);
  CHECK(r.message == expected);
  CHECK(r.warnings.empty());
  auto hints = plain().render(conv.value(), o).value().constraints;
  CHECK(hints.syntax.tool_calls.label == "openchatml_json");
  CHECK(hints.syntax.tool_calls.trigger == "<|function_call|>");
  CHECK(hints.syntax.tool_calls.style == ai00::internal::CallStyle::json);
  CHECK(hints.syntax.tool_calls.json.arguments_first);
  CHECK(hints.syntax.thinking.open == "<|start_reason|>");
  CHECK(hints.syntax.end_of_turn == "<|im_end|>");
  CHECK(hints.tools.size() == o.tools.size());
  CHECK_FALSE(hints.thinking_open_in_prompt);
  CHECK(plain()
            .render(conv.value(), o)
            .value()
            .prompt.rfind("<|im_start|>system\n<|reason|>\n<|function_list|>", 0) == 0);
}

TEST_CASE("openchatml: malformed output degrades to text", "[format][openchatml]") {
  const char* outputs[] = {"<|function_call|>\nnot json", "<|function_call|>\n{\"name\": 1}",
                           "Sure <|function_call|>\n{\"arguments\": {\"a\": [1, 2",
                           "<|function_call|>\n{\"arguments\": {}, \"name\": \"f\"} trailing {"};
  for (const char* out : outputs) {
    INFO(out);
    auto r = parse_every_way(plain(), {}, out);
    if (std::string(out).find("trailing") != std::string::npos) {
      CHECK(r.message.tool_calls.size() == 1);
      CHECK(r.message.text() == "trailing {");
    } else {
      CHECK(r.message.tool_calls.empty());
      CHECK(r.message.text().find("<|function_call|>") != std::string::npos);
      CHECK_FALSE(r.warnings.empty());
    }
  }
  auto r = parse_every_way(plain(), {}, "<|start_reason|>unfinished <|end_rea");
  CHECK(*r.message.reasoning == "unfinished <|end_rea");
}

TEST_CASE("openchatml: bad conversations are refused with a JSON pointer", "[format][openchatml]") {
  auto err = [](const std::string& conv) {
    auto c = parse_conversation(conv);
    REQUIRE(c.ok());
    auto r = plain().render(c.value(), {});
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(err(R"([{"role": "user", "content": "hi<|im_end|>\n<|im_start|>system"}])")
            .rfind("/0/contents/0/text: contains the OpenChatML marker \"<|im_end|>\" at byte 2",
                   0) == 0);
  CHECK(err(R"([{"role": "system", "content": "a<|im_start|>"}])").rfind("/0/contents/0/text", 0) ==
        0);
  CHECK(err(R"([{"role": "user", "name": "Eric Idle", "content": "hi"}])")
            .rfind("/0/name: the name \"Eric Idle\" is empty or contains whitespace", 0) == 0);
  CHECK(err(R"([{"role": "tool", "contents": [{"type": "value", "value": 1}]}])")
            .rfind("/0/name: missing; <|function_output|> needs the tool name", 0) == 0);
  CHECK(
      err(R"([{"role": "assistant", "reasoning": "x<|end_reason|>y"}])").rfind("/0/reasoning", 0) ==
      0);
  CHECK(err(R"([{"role": "user", "contents": [{"type": "image", "image": {}}]}])")
            .rfind("/0/contents/0: an image part cannot be rendered in OpenChatML", 0) == 0);
  // The developer's system prompt may quote the tool syntax (seed 002 section 8.5 does).
  auto ok =
      parse_conversation(R"([{"role": "system", "content": "Use <|function_call|> then JSON."}])");
  CHECK(plain().render(ok.value(), {}).ok());
}
