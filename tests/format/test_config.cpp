// The [prompts] configuration in TOML (src/format/config.h), the render options that switch
// parts of the specs on (OpenChatML thought flags, Goose token 0) and OpenChatML's raw prompts
// and transcript parser.
#include <catch2/catch.hpp>

#include "format/config.h"
#include "format/json.h"
#include "format_test_util.h"

using namespace ai00::internal::format;
using namespace ai00::test;
namespace json = ai00::internal::json;

namespace {

std::vector<Message> sample() {
  return parse_conversation(
             R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},
                 {"role":"assistant","reasoning":"greet","content":"Hello!"},
                 {"role":"user","content":"Weather?"}])")
      .value();
}

std::string config_error(std::string_view toml) {
  auto c = parse_prompts_config(toml, "cfg.toml");
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().kind == ai00::internal::ErrorKind::format);
  return c.error().message;
}

}  // namespace

TEST_CASE("config: an empty file configures exactly the specs' defaults", "[format]") {
  auto cfg = parse_prompts_config("", "cfg.toml");
  REQUIRE(cfg.ok());
  for (const auto& name : format_names()) {
    INFO(name);
    auto plain = make_format(name).value();
    auto configured = make_format(name, cfg.value()).value();
    for (auto thinking : {Thinking::off, Thinking::on, Thinking::a_bit, Thinking::a_lot}) {
      RenderOptions o;
      o.thinking = thinking;
      auto a = plain->render(sample(), o);
      auto b = configured->render(sample(), o);
      REQUIRE(a.ok() == b.ok());
      if (!a.ok()) continue;
      CHECK(a.value().prompt == b.value().prompt);
      CHECK(a.value().stop_sequences == b.value().stop_sequences);
      CHECK(a.value().prepend_token0 == b.value().prepend_token0);
    }
  }
  // Seed 001's table: Math, Chat, Creative (ranges pinned as in goose.h).
  const ConfigPreset* math = cfg.value().preset("math");
  REQUIRE(math);
  CHECK(math->temperature == 0.3f);
  CHECK(math->top_p == 0.3f);
  CHECK(math->penalty_decay == 0.996f);
  REQUIRE(cfg.value().preset("chat"));
  CHECK(cfg.value().preset("chat")->presence_penalty == 0.5f);
  REQUIRE(cfg.value().preset("creative"));
  CHECK(cfg.value().preset("creative")->penalty_decay == 0.99f);
  CHECK(cfg.value().preset("nope") == nullptr);
}

TEST_CASE("config: the seed 000 keys, Goose tiers, OpenChatML flags and presets apply",
          "[format]") {
  const char* toml = R"(
[prompts]
role_user = "human"
role_assistant = "bot"
role_system = "rules"
default_stop_sequences = ["</ai00:bot>", "STOP"]

[prompts.goose]
think = " reason"
prepend_token0 = true

[prompts.openchatml]
reflect = true

[prompts.ai00_v0]
user = "Q"
assistant = "A"

[presets.chat]
temperature = 0.8

[presets.precise]
temperature = 0
top_k = 1
)";
  auto cfg = parse_prompts_config(toml, "cfg.toml");
  INFO((cfg.ok() ? "" : cfg.error().message));
  REQUIRE(cfg.ok());
  RenderOptions o;
  auto v1 = make_format("ai00-v1", cfg.value()).value()->render(sample(), o).value();
  CHECK(v1.prompt.find("<ai00:rules>\nBe brief.\n</ai00:rules>") == 0);
  CHECK(v1.prompt.find("<ai00:human>\nHi\n</ai00:human>") != std::string::npos);
  CHECK(v1.prompt.substr(v1.prompt.size() - 11) == "<ai00:bot>\n");
  CHECK(v1.stop_sequences == std::vector<std::string>{"</ai00:bot>", "STOP"});
  o.thinking = Thinking::on;
  auto goose = make_format("goose", cfg.value()).value()->render(sample(), o).value();
  CHECK(goose.prompt.find("User: Weather? reason\n\nAssistant: <think") != std::string::npos);
  CHECK(goose.prepend_token0);
  auto ocml = make_format("openchatml", cfg.value()).value()->render(sample(), o).value();
  CHECK(ocml.prompt.find("Be brief.<|reflect|><|reason|>") != std::string::npos);
  o.thinking = Thinking::off;
  auto v0 = make_format("ai00-v0", cfg.value()).value()->render(sample(), RenderOptions{});
  REQUIRE_FALSE(v0.ok());  // v0 has no thinking syntax: the reasoning is refused
  CHECK(cfg.value().preset("chat")->temperature == 0.8f);
  CHECK(cfg.value().preset("chat")->top_p == 0.3f);  // the keys not named stay
  REQUIRE(cfg.value().preset("precise"));
  CHECK(cfg.value().preset("precise")->top_k == 1);
}

TEST_CASE("config: errors say file, line and column", "[format]") {
  CHECK(config_error("[prompts]\nrole_user = \"a\"\nrole_user = \"b\"\n").rfind("cfg.toml:3:", 0) ==
        0);
  CHECK(config_error("[prompts\n").rfind("cfg.toml:1:", 0) == 0);
  const std::string unknown = config_error("[prompts]\nrole_usr = \"a\"\n");
  INFO(unknown);
  CHECK(unknown.rfind("cfg.toml:2:1", 0) == 0);
  CHECK(unknown.find("prompts: unknown key \"role_usr\"") != std::string::npos);
  const std::string type = config_error("[prompts]\nrole_user = 3\n");
  CHECK(type == "cfg.toml:2:13: prompts.role_user: expected a string, got an integer");
  CHECK(config_error("[prompts]\nrole_user = \"a b\"\n").find("cannot be a tag name") !=
        std::string::npos);
  CHECK(config_error("[presets.x]\ntop_p = 2.0\n") ==
        "cfg.toml:2:9: presets.x.top_p: 2 is outside [0, 1]");
  CHECK(config_error("[presets.x]\ntop_k = -1\n").find("presets.x.top_k") != std::string::npos);
  CHECK(config_error("[prompts.goose]\nthink = \" think \"\n").find("whitespace") !=
        std::string::npos);
  CHECK(config_error("[prompts]\ndefault_stop_sequences = [\"\"]\n").find("non-empty") !=
        std::string::npos);
  CHECK(config_error("[prompts.ai00_v0]\nuser = \"U:\"\n").find("':'") != std::string::npos);
  CHECK(config_error("[other]\n").find("unknown key \"other\"") != std::string::npos);
  CHECK(config_error("[prompts.openchatml]\nreflect = 1\n").find("expected true or false") !=
        std::string::npos);
}

TEST_CASE("render options: OpenChatML thought flags and the token-0 prefix", "[format]") {
  auto ocml = make_format("openchatml").value();
  RenderOptions o;
  o.reflect = true;
  o.introspect = true;
  auto r = ocml->render(sample(), o);
  REQUIRE(r.ok());
  CHECK(r.value().prompt.find("Be brief.<|reflect|><|introspect|>\n<|im_end|>") !=
        std::string::npos);
  o.thinking = Thinking::on;
  CHECK(ocml->render(sample(), o)
            .value()
            .prompt.find("Be brief.<|reflect|><|introspect|><|reason|>") != std::string::npos);
  for (const char* other : {"ai00-v1", "ai00-v0", "goose"}) {
    RenderOptions p;
    p.reflect = true;
    auto e = make_format(other).value()->render({}, p);
    REQUIRE_FALSE(e.ok());
    CHECK(e.error().kind == ai00::internal::ErrorKind::unsupported);
    CHECK(e.error().message.rfind("reflect: ", 0) == 0);
  }
  for (const auto& name : format_names()) {
    RenderOptions p;
    p.prepend_token0 = true;
    CHECK(make_format(name).value()->render({}, p).value().prepend_token0);
    p.prepend_token0 = false;
    CHECK_FALSE(make_format(name).value()->render({}, p).value().prepend_token0);
  }
}

TEST_CASE("openchatml: fill-in-the-middle and multi-file prompts", "[format]") {
  auto ocml = make_format("openchatml").value();
  CHECK(ocml->render_fim("def f():\n", "\n    return x").value() ==
        "<|fim_prefix|>def f():\n<|fim_middle|><|fim_suffix|>\n    return x");
  CHECK(ocml->render_files({"a", "b"}, true).value() ==
        "<|file_separator|>\na\n<|file_separator|>\nb");
  auto bad = ocml->render_fim("x<|fim_suffix|>", "y");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.rfind("prefix: contains the OpenChatML marker", 0) == 0);
  auto bad_file = ocml->render_files({"ok", "x<|file_separator|>"}, false);
  REQUIRE_FALSE(bad_file.ok());
  CHECK(bad_file.error().message.rfind("files/1: ", 0) == 0);
  auto v1 = make_format("ai00-v1").value()->render_fim("a", "b");
  REQUIRE_FALSE(v1.ok());
  CHECK(v1.error().kind == ai00::internal::ErrorKind::unsupported);
}

TEST_CASE("openchatml: a whole transcript reads back into messages", "[format]") {
  auto ocml = make_format("openchatml").value();
  auto conv = parse_conversation(R"([
    {"role":"system","content":"Be brief."},
    {"role":"user","name":"Eric","content":"Weather in Oslo?"},
    {"role":"assistant","reasoning":"Look it up.","content":"Checking.",
     "tool_calls":[{"id":"call_1","type":"function",
                    "function":{"name":"get_weather","arguments":{"city":"Oslo"}}}]},
    {"role":"tool","tool_call_id":"call_1","name":"get_weather","contents":[{"type":"value","value":{"t":3}}]},
    {"role":"assistant","name":"Bot","content":"3 degrees."}])")
                  .value();
  RenderOptions o;
  o.add_generation_prompt = false;
  const std::string text = ocml->render(conv, o).value().prompt;
  auto back = ocml->parse_transcript(text);
  INFO((back.ok() ? "" : back.error().message));
  REQUIRE(back.ok());
  REQUIRE(back.value().size() == conv.size());
  CHECK(back.value()[1].name == std::optional<std::string>("Eric"));
  CHECK(back.value()[2].reasoning == conv[2].reasoning);
  REQUIRE(back.value()[2].tool_calls.size() == 1);
  CHECK(back.value()[2].tool_calls[0].name == "get_weather");
  CHECK(back.value()[3].contents == conv[3].contents);
  CHECK(back.value()[3].tool_call_id == back.value()[2].tool_calls[0].id);
  CHECK(back.value()[4].name == std::optional<std::string>("Bot"));
  // Rendered again, it gives the same bytes (call ids aside, which the prompt does not hold).
  CHECK(ocml->render(back.value(), o).value().prompt == text);
  // Roles are checked, with the byte offset.
  auto bad =
      ocml->parse_transcript("<|im_start|>user\nhi\n<|im_end|>\n<|im_start|>robot\nx\n<|im_end|>");
  REQUIRE_FALSE(bad.ok());
  INFO(bad.error().message);
  CHECK(bad.error().message.rfind("byte 43: unknown role \"robot\"", 0) == 0);
  auto open = ocml->parse_transcript("<|im_start|>user\nhi\n");
  REQUIRE_FALSE(open.ok());
  CHECK(open.error().message == "byte 0: the message is not closed with <|im_end|>");
  auto stray = ocml->parse_transcript("hello");
  REQUIRE_FALSE(stray.ok());
  CHECK(stray.error().message.rfind("byte 0: expected <|im_start|>", 0) == 0);
  auto name = ocml->parse_transcript("<|im_start|>user nom=x\nhi\n<|im_end|>");
  REQUIRE_FALSE(name.ok());
  CHECK(name.error().message.rfind("byte 17: expected name=", 0) == 0);
  CHECK(make_format("goose").value()->parse_transcript("User: hi").error().kind ==
        ai00::internal::ErrorKind::unsupported);
}

// Every key of seed 000's [prompts] example and every Goose tier reaches the prompt.
TEST_CASE("config: assistant prefixes and every Goose thinking tier", "[format]") {
  const char* toml = R"(
[prompts]
assistant_prefix = "<ai00:assistant>\nAnswer: "
assistant_prefix_thinking = "<ai00:assistant>\nPlan first.\n<think>\n"

[prompts.goose]
think_a_bit = " ponder briefly"
think_a_lot = " ponder deeply"
)";
  auto cfg = parse_prompts_config(toml, "cfg.toml");
  INFO((cfg.ok() ? "" : cfg.error().message));
  REQUIRE(cfg.ok());
  auto v1 = make_format("ai00-v1", cfg.value()).value();
  RenderOptions o;
  auto plain = v1->render(sample(), o).value();
  CHECK(plain.prompt.substr(plain.prompt.size() - 25) == "<ai00:assistant>\nAnswer: ");
  CHECK_FALSE(plain.constraints.thinking_open_in_prompt);
  o.thinking = Thinking::on;
  auto thinking = v1->render(sample(), o).value();
  CHECK(thinking.prompt.substr(thinking.prompt.size() - 37) ==
        "<ai00:assistant>\nPlan first.\n<think>\n");
  CHECK(thinking.constraints.thinking_open_in_prompt);  // the parser starts in reasoning
  auto goose = make_format("goose", cfg.value()).value();
  o.thinking = Thinking::a_bit;
  CHECK(goose->render(sample(), o).value().prompt.find("User: Weather? ponder briefly\n\n") !=
        std::string::npos);
  o.thinking = Thinking::a_lot;
  CHECK(goose->render(sample(), o).value().prompt.find("User: Weather? ponder deeply\n\n") !=
        std::string::npos);
  o.thinking = Thinking::on;  // not configured: the seed's " think"
  CHECK(goose->render(sample(), o).value().prompt.find("User: Weather? think\n\n") !=
        std::string::npos);
}
