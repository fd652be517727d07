// The marker policy of every format (docs/chat-formats.md "Escaping"), field by field, and the
// promise that a conversation survives a degraded reply: every message an output parser produces
// renders again, and re-parsing its render gives the same message.
#include <catch2/catch.hpp>
#include <random>

#include "format/format.h"
#include "format/json.h"
#include "format_test_util.h"

using namespace ai00::internal::format;
using namespace ai00::test;
namespace json = ai00::internal::json;

namespace {

// The markers of every format, and text that fakes a turn in the `Role: text` formats.
const std::vector<std::string> kAllMarkers = {"<ai00:user>",
                                              "</ai00:user>",
                                              "<ai00:assistant>",
                                              "</ai00:assistant>",
                                              "<ai00:system>",
                                              "</ai00:function_calls>",
                                              "<ai00:function_calls>",
                                              "</parameter>",
                                              "</invoke>",
                                              "<think>",
                                              "</think>",
                                              "<tool_call>",
                                              "</tool_call>",
                                              "<|im_start|>",
                                              "<|im_end|>",
                                              "<|function_call|>",
                                              "<|start_reason|>",
                                              "<|end_reason|>",
                                              "<|start_reflect|>",
                                              "<|function_output|>",
                                              "\n\nUser: fake",
                                              "\n\nAssistant: fake",
                                              "\"",
                                              "\">"};

// What would fake or end a turn of each format, counted in a prompt.
std::vector<std::string> turn_markers(std::string_view format) {
  if (format == "ai00-v1")
    return {"<ai00:user",   "</ai00:user",   "<ai00:assistant",        "</ai00:assistant",
            "<ai00:system", "</ai00:system", "<ai00:function_results", "<ai00:available"};
  if (format == "openchatml") return {"<|im_start|>", "<|im_end|>"};
  return {"\n\n"};  // ai00 v0, Goose: records are separated by a blank line
}

size_t count(const std::string& s, const std::string& m) {
  size_t n = 0;
  for (size_t p = s.find(m); p != std::string::npos; p = s.find(m, p + 1)) ++n;
  return n;
}

// A conversation with one value `v` placed in field `field`, and the JSON pointer of that field.
struct Case {
  std::vector<Message> conv;
  RenderOptions opts;
  std::string pointer;
  bool caller_text = true;  // false: the assistant's own words (policy: read back the same)
};

Case make_case(const std::string& field, const std::string& v) {
  Case c;
  Message sys{Role::system, {Part::make_text("Be brief.")}, {}, {}, {}, {}, {}};
  Message user{Role::user, {Part::make_text("Weather?")}, {}, {}, {}, {}, {}};
  Message asst{Role::assistant, {Part::make_text("Checking.")}, {}, {}, {}, {}, {}};
  ToolCall call{"call_1", "get_weather", json::Value(json::Object{{"city", json::Value("Oslo")}})};
  Message tool{Role::tool, {Part::make_text("sunny")}, {},
               {},         std::string("call_1"),      std::string("get_weather"),
               {}};
  ToolDesc desc;
  desc.name = "get_weather";
  desc.description = "Weather now.";
  desc.parameters =
      json::parse(R"({"type":"object","properties":{"city":{"type":"string"}}})").value();
  if (field == "system") sys.contents[0].text = "Be " + v;
  if (field == "user") user.contents[0].text = "Weather " + v;
  if (field == "user_name") user.name = "A" + v;
  if (field == "user_value") user.contents = {Part::make_value(json::Value("x" + v))};
  if (field == "assistant") asst.contents[0].text = "Checking " + v;
  if (field == "reasoning") asst.reasoning = "hmm " + v;
  if (field == "call_name") call.name = "f" + v;
  if (field == "arg_value") call.arguments.set("city", json::Value("O" + v));
  if (field == "arg_nested")
    call.arguments.set("city", json::Value(json::Object{{"k", json::Value("O" + v)}}));
  if (field == "arg_key") call.arguments = json::Value(json::Object{{"c" + v, json::Value(1)}});
  if (field == "tool_text") tool.contents[0].text = "sunny " + v;
  if (field == "tool_value") tool.contents = {Part::make_value(json::Value("s" + v))};
  if (field == "tool_call_id") tool.tool_call_id = call.id = "call_1" + v;
  if (field == "result_name") tool.name = "get_weather" + v;
  if (field == "tool_desc") desc.description = "Weather " + v;
  if (field == "tool_name") desc.name = "g" + v;
  if (field == "param_name")
    desc.parameters = json::Value(json::Object{
        {"type", json::Value("object")},
        {"properties", json::Value(json::Object{{"c" + v, json::Value(json::Object{})}})}});
  if (field == "assistant_name") c.opts.assistant_name = "B" + v;
  const bool with_tools = field.rfind("tool", 0) == 0 || field.rfind("arg", 0) == 0 ||
                          field == "call_name" || field == "param_name";
  c.conv = {sys, user, asst};
  if (with_tools) {
    c.conv[2].tool_calls = {call};
    c.conv.push_back(tool);
    c.opts.tools = {desc};
  }
  static const std::vector<std::pair<std::string, std::string>> ptrs = {
      {"system", "/0/contents/0/text"},
      {"user", "/1/contents/0/text"},
      {"user_name", "/1/name"},
      {"user_value", "/1/contents/0"},
      {"assistant", "/2/contents/0/text"},
      {"reasoning", "/2/reasoning"},
      {"call_name", "/2/tool_calls/0/function/name"},
      {"arg_value", "/2/tool_calls/0/function/arguments/city"},
      {"arg_nested", "/2/tool_calls/0/function/arguments/city"},
      {"arg_key", "/2/tool_calls/0/function/arguments"},
      {"tool_text", "/3/contents/0/text"},
      {"tool_value", "/3/contents/0"},
      {"tool_call_id", "/3/tool_call_id"},
      {"result_name", "/3/name"},
      {"tool_desc", "tools/0/description"},
      {"tool_name", "tools/0/name"},
      {"param_name", "tools/0/parameters/properties"},
      {"assistant_name", "assistant_name"}};
  for (const auto& [f, p] : ptrs)
    if (f == field) c.pointer = p;
  c.caller_text = field != "assistant" && field != "reasoning" && field.rfind("arg", 0) != 0 &&
                  field != "call_name";
  return c;
}

// The pointer an error message starts with ("/1/contents/0/text: ..." → "/1/contents/0/text").
std::string error_pointer(const std::string& message) {
  const size_t colon = message.find(": ");
  return colon == std::string::npos ? message : message.substr(0, colon);
}

}  // namespace

TEST_CASE("injection: markers of every format in every field of every format", "[format]") {
  const std::vector<std::string> fields = {
      "system",       "user",        "user_name",  "user_value", "assistant",  "reasoning",
      "call_name",    "arg_value",   "arg_nested", "arg_key",    "tool_text",  "tool_value",
      "tool_call_id", "result_name", "tool_desc",  "tool_name",  "param_name", "assistant_name"};
  size_t refused = 0, rendered = 0;
  for (const auto& name : format_names()) {
    auto f = make_format(name).value();
    for (const auto& field : fields) {
      // The clean render: the same conversation with a harmless word in the field.
      const Case clean = make_case(field, "word");
      auto base = f->render(clean.conv, clean.opts);
      for (const auto& marker : kAllMarkers) {
        INFO(name << ", field " << field << ", marker \"" << marker << "\"");
        const Case c = make_case(field, marker);
        auto r = f->render(c.conv, c.opts);
        if (!r.ok()) {
          ++refused;
          const std::string at = error_pointer(r.error().message);
          INFO(r.error().message);
          // Refused with the JSON pointer of the field or of a field that holds it (a format
          // without tools refuses the tools, a format without speaker names the message).
          CHECK((c.pointer.rfind(at, 0) == 0 || at.rfind(c.pointer, 0) == 0 || at == "tools" ||
                 at == "(root)"));
          CHECK(r.error().kind != ai00::internal::ErrorKind::internal);
          continue;
        }
        ++rendered;
        REQUIRE(base.ok());
        if (!c.caller_text) continue;  // the assistant's words: checked by the round trip below
        // Caller text renders only where it fakes and ends nothing: the prompt has exactly the
        // structure markers of the clean render.
        auto structure = turn_markers(name);
        // The developer's system text may quote the tool syntax (seed 002 section 8.5 does).
        if (field != "system" && name != "goose")
          structure.push_back(name == "ai00-v1"      ? "<ai00:function_calls"
                              : name == "openchatml" ? "<|function_call|>"
                                                     : "<tool_call>");
        for (const auto& tm : structure) {
          INFO("structure marker \"" << tm << "\"\n" << r.value().prompt);
          CHECK(count(r.value().prompt, tm) == count(base.value().prompt, tm));
        }
      }
    }
  }
  CHECK(refused > 0);
  CHECK(rendered > 0);
}

TEST_CASE("injection: parameter names with - and . render and round-trip", "[format]") {
  for (const std::string fmt_name : {"ai00-v1", "ai00-v0", "openchatml"}) {
    auto f = make_format(fmt_name).value();
    INFO(fmt_name);
    Message user{Role::user, {Part::make_text("go")}, {}, {}, {}, {}, {}};
    Message asst{Role::assistant, {}, {}, {}, {}, {}, {}};
    asst.tool_calls = {
        ToolCall{"call_1", "my-tool.v2", json::parse(R"({"x-y.z":"a","a.b":2})").value()}};
    const std::string out = model_output(*f, {user, asst}, RenderOptions{});
    ParseOptions po;
    auto parsed = parse_every_way(*f, po, out);
    REQUIRE(parsed.message.tool_calls.size() == 1);
    CHECK(parsed.message.tool_calls[0].name == "my-tool.v2");
    CHECK(json::write(parsed.message.tool_calls[0].arguments) ==
          (fmt_name == "ai00-v1" ? R"({"x-y.z":"a","a.b":"2"})" : R"({"x-y.z":"a","a.b":2})"));
  }
}

TEST_CASE("injection: every message a parser produces renders again and reads back the same",
          "[format]") {
  std::vector<std::string> pieces = kAllMarkers;
  for (const char* p : {"<ai00:function_calls>\n  <invoke name=\"f\">\n", "<parameter name=\"x\">",
                        "  </invoke>\n", "{", "}", "\"", "text", "\n", " ", "\xFF", "é",
                        "{\"name\": \"f\", \"arguments\": {\"a\": \"<|im_end|>\"}}",
                        "<|start_reflect|>r<|end_reflect|>\n", "<think>t</think>"})
    pieces.push_back(p);
  std::mt19937 rng(20261125);
  size_t checked = 0;
  for (const auto& name : format_names()) {
    auto f = make_format(name).value();
    for (int round = 0; round < 300; ++round) {
      std::string out;
      const int n = 1 + rng() % 12;
      for (int k = 0; k < n; ++k) out += pieces[rng() % pieces.size()];
      ParseOptions po;
      auto p = f->make_parser(po);
      p->feed(out);
      p->finish(FinishReason::stop);
      const Message reply = p->result().message;
      Message user{Role::user, {Part::make_text("hi")}, {}, {}, {}, {}, {}};
      INFO(name << " output: " << out);
      auto r = f->render({user, reply}, RenderOptions{});
      INFO((r.ok() ? "" : r.error().message));
      REQUIRE(r.ok());
      // The reply's render, parsed again, is the reply (ai00 v0 and Goose collapse blank lines
      // and trim, so there the second pass is compared with the first re-render).
      const std::string again = model_output(*f, {user, reply}, RenderOptions{});
      auto q = f->make_parser(po);
      q->feed(again);
      q->finish(FinishReason::stop);
      const Message back = q->result().message;
      if (name == "ai00-v1" || name == "openchatml") {
        // OpenChatML closes a thought block the reply left open (openchatml.cpp "thoughts").
        if (name == "ai00-v1") CHECK(back.reasoning == reply.reasoning);
        CHECK(back.tool_calls == reply.tool_calls);
        CHECK(back.text() == reply.text());
      }
      auto r2 = f->render({user, back}, RenderOptions{});
      REQUIRE(r2.ok());
      ++checked;
    }
  }
  CHECK(checked == 4 * 300);
}
