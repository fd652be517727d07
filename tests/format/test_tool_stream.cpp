// Streamed tool calls (ParseOptions::stream_tool_calls; docs/chat-formats.md "Deltas and finish
// reasons") in every format: replies with calls fed whole, byte by byte and in random pieces.
// For each chunking: previews never change the message; a call's start comes before its
// argument pieces; the pieces after the last start concatenate to the whole call's arguments;
// the pieces actually stream (they arrive in feeds before the one that closes the call); a call
// that degrades after its start is abandoned; and the JSON formats' pieces equal json::write of
// the arguments for random JSON written with any whitespace and escapes.
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "format/call_json_stream.h"
#include "format/format.h"
#include "format/json.h"
#include "format_test_util.h"

using namespace ai00::internal::format;
using namespace ai00::test;
using P = ToolCallDelta::Preview;

namespace {

// What one streamed run produced, checked against the protocol as it goes.
struct Tally {
  size_t starts = 0, abandons = 0, whole_valid = 0, whole_invalid = 0;
  size_t pieces_before_close = 0;  // argument bytes sent in feeds before the call's whole delta
  size_t pieces_at_close = 0;      // argument bytes sent in the feed of the whole delta
  std::vector<std::string> unnamed_starts;
};

struct Run {
  std::vector<std::vector<MessageDelta>> feeds;  // deltas per feed() (the last: finish())
  ParseResult result;
};

Run run(const ChatFormat& f, const std::string& out, const std::vector<size_t>& cuts, bool stream,
        FinishReason end = FinishReason::stop) {
  ParseOptions po;
  po.stream_tool_calls = stream;
  auto p = f.make_parser(po);
  Run r;
  size_t at = 0;
  for (size_t cut : cuts) {
    r.feeds.push_back(p->feed(std::string_view(out).substr(at, cut - at)));
    at = cut;
  }
  r.feeds.push_back(p->feed(std::string_view(out).substr(at)));
  r.feeds.push_back(p->finish(end));
  r.result = p->result();
  return r;
}

// The protocol of the previews, checked over a whole run.
Tally check_previews(const Run& r) {
  Tally t;
  std::map<size_t, bool> open;  // started and not yet closed, per position
  std::map<size_t, std::string> pieces;
  std::map<size_t, size_t> before;  // argument bytes of the current preview per feed index
  for (size_t fi = 0; fi < r.feeds.size(); ++fi) {
    std::map<size_t, size_t> this_feed;
    for (const auto& d : r.feeds[fi])
      for (const auto& c : d.tool_calls) {
        INFO("call " << c.call << " preview " << static_cast<int>(c.preview));
        switch (c.preview) {
          case P::start:
            CHECK_FALSE(open[c.call]);  // one start per preview
            open[c.call] = true;
            pieces[c.call].clear();
            before[c.call] = 0;
            CHECK(c.id == tool_call_id(0, c.call));
            if (c.name.empty()) t.unnamed_starts.push_back(c.id);
            ++t.starts;
            break;
          case P::arguments:
            REQUIRE(open[c.call]);  // the start precedes the pieces
            pieces[c.call] += c.arguments;
            this_feed[c.call] += c.arguments.size();
            break;
          case P::abandoned:
            CHECK(open[c.call]);
            open[c.call] = false;
            ++t.abandons;
            break;
          case P::none:
            if (c.valid) {
              REQUIRE(open[c.call]);  // every whole call was previewed
              CHECK(pieces[c.call] == c.arguments);
              t.pieces_at_close += this_feed[c.call];
              t.pieces_before_close += before[c.call];
              ++t.whole_valid;
            } else {
              ++t.whole_invalid;  // cut by the token limit: the whole (invalid) call ends it
            }
            open[c.call] = false;
            this_feed.erase(c.call);
            break;
        }
      }
    for (const auto& [call, n] : this_feed) before[call] += n;
  }
  for (const auto& [call, o] : open) {
    INFO("call " << call << " was started and never closed or abandoned");
    CHECK_FALSE(o);
  }
  return t;
}

std::vector<std::vector<size_t>> chunkings(size_t n, uint32_t seed) {
  std::vector<std::vector<size_t>> out;
  out.push_back({});  // whole
  std::vector<size_t> bytes;
  for (size_t i = 1; i < n; ++i) bytes.push_back(i);
  out.push_back(bytes);  // one byte at a time
  std::mt19937 rng(seed);
  for (int k = 0; k < 6; ++k) {
    std::vector<size_t> cuts;
    size_t at = 0;
    while (true) {
      at += 1 + rng() % 13;
      if (at >= n) break;
      cuts.push_back(at);
    }
    out.push_back(cuts);
  }
  return out;
}

struct Case {
  const char* format;
  std::string reply;
  size_t calls;          // valid calls in the reply
  bool streamed = true;  // false: arguments as JSON text, sent whole when the call closes
};

// Valid calls: layouts the renderers write and layouts a model may write instead.
std::vector<Case> valid_cases() {
  return {
      {"ai00-v1",
       "Sure.\n\n<ai00:function_calls>\n  <invoke name=\"get_weather\">\n    <parameter "
       "name=\"city\">Oslo, \"NO\"</parameter>\n    <parameter name=\"days\">3</parameter>\n"
       "  </invoke>\n  <invoke name=\"now\">\n  </invoke>\n</ai00:function_calls>",
       2},
      {"ai00-v0",
       "Sure.\n<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\",\"days\":3,"
       "\"tags\":[\"a\",{\"b\":null}]}}</tool_call>\n<tool_call>{\"name\":\"now\",\"arguments\":"
       "{}}</tool_call>",
       2},
      {"ai00-v0",  // spaced, escapes, arguments before the name, \u003c as the renderer writes
       "<tool_call> { \"arguments\" : { \"q\" : \"a\\u003c/tool_call\\u003e \\\"b\\\" "
       "\\ud83d\\ude00 \\/ \\n\" , \"n\" : -1.50e+2 , \"ok\" : true } , \"name\" : \"search\" "
       "}</tool_call>",
       1},
      {"ai00-v0",  // OpenAI style: arguments as JSON text (sent whole when the call closes)
       "<tool_call>{\"name\":\"f\",\"arguments\":\"{\\\"x\\\": 1}\"}</tool_call>", 1, false},
      {"openchatml",
       "Sure.\n<|function_call|>\n{\"arguments\": {\"symbol\": \"TSLA\", \"n\": [1, 2.50, "
       "{\"deep\": \"}{\"}]}, \"name\": \"get_stock_fundamentals\"}\n<|function_call|>\n"
       "{\"name\": \"now\", \"arguments\": {}}",
       2},
      {"openchatml",
       "<|function_call|>\n{\"arguments\": {\"text\": \"line\\nnext \\u00e9\\u0001\\t\"}, "
       "\"name\": \"write\"}",
       1},
  };
}

}  // namespace

TEST_CASE("tool stream: every format's calls stream as start and argument pieces",
          "[format][tool_stream]") {
  uint32_t seed = 1;
  for (const auto& c : valid_cases()) {
    INFO(c.format << ": " << c.reply);
    auto f = make_format(c.format).value();
    const Run plain = run(*f, c.reply, {}, false);
    REQUIRE(plain.result.message.tool_calls.size() == c.calls);
    for (const auto& cuts : chunkings(c.reply.size(), seed++)) {
      INFO("cuts: " << cuts.size());
      const Run r = run(*f, c.reply, cuts, true);
      CHECK(r.result.message == plain.result.message);  // previews never change the message
      const Tally t = check_previews(r);
      CHECK(t.whole_valid == c.calls);
      CHECK(t.abandons == 0);
      CHECK(t.starts == c.calls);
      if (c.streamed &&
          cuts.size() + 1 == c.reply.size()) {  // byte by byte: the pieces came as they arrived
        CHECK(t.pieces_before_close > 0);
        // What is still held when the call closes: ai00 v1 the closing '}', ai00 v0 what may
        // still be the start of </tool_call>, OpenChatML nothing (the name comes last).
        CHECK(t.pieces_at_close <= 12 * c.calls);
      }
    }
    // Without the option: no previews at all.
    for (const auto& d : plain.feeds)
      for (const auto& m : d)
        for (const auto& call : m.tool_calls) CHECK(call.preview == P::none);
  }
}

TEST_CASE("tool stream: OpenChatML starts before the name and names the tool at the end",
          "[format][tool_stream]") {
  auto f = make_format("openchatml").value();
  const std::string reply =
      "<|function_call|>\n{\"arguments\": {\"symbol\": \"TSLA\"}, \"name\": \"get_stock\"}";
  const Run r = run(*f, reply, chunkings(reply.size(), 0)[1], true);
  const Tally t = check_previews(r);
  CHECK(t.unnamed_starts.size() == 1);
  REQUIRE(r.result.message.tool_calls.size() == 1);
  CHECK(r.result.message.tool_calls[0].name == "get_stock");
  // ai00 v0 names the tool first, as its renderer writes it: the start carries the name.
  auto v0 = make_format("ai00-v0").value();
  const std::string v0_reply = "<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":1}}</tool_call>";
  const Run r0 = run(*v0, v0_reply, chunkings(v0_reply.size(), 0)[1], true);
  CHECK(check_previews(r0).unnamed_starts.empty());
}

TEST_CASE("tool stream: a call that degrades after its start is abandoned",
          "[format][tool_stream]") {
  const std::vector<std::pair<const char*, std::string>> bad = {
      {"ai00-v1",
       "<ai00:function_calls>\n  <invoke name=\"f\">\n    <parameter name=\"a\">1"
       "</parameter>\n    <oops>"},
      {"ai00-v0", "<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":1,\"a\":2}}</tool_call>"},
      {"ai00-v0", "<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":\"\\ud800\"}}</tool_call>"},
      {"ai00-v0", "<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":1}} junk</tool_call>"},
      {"ai00-v0", "<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":1"},  // never closed
      {"openchatml", "<|function_call|>\n{\"arguments\": {\"a\": 1}}"},  // no name
      {"openchatml", "<|function_call|>\n{\"arguments\": {\"a\": 1,}, \"name\": \"f\"}"},
      {"openchatml", "<|function_call|>\n{\"arguments\": {\"a\": [1, 2"},  // never closed
  };
  uint32_t seed = 100;
  for (const auto& [name, reply] : bad) {
    INFO(name << ": " << reply);
    auto f = make_format(name).value();
    const Run plain = run(*f, reply, {}, false);
    CHECK(plain.result.message.tool_calls.empty());
    for (const auto& cuts : chunkings(reply.size(), seed++)) {
      const Run r = run(*f, reply, cuts, true);
      CHECK(r.result.message == plain.result.message);
      const Tally t = check_previews(r);  // every start is closed: here by an abandon
      CHECK(t.starts >= 1);
      CHECK(t.abandons == t.starts);
      CHECK(t.whole_valid == 0);
    }
  }
  // Cut by the token limit inside a call: the incomplete (invalid) call closes the preview.
  const std::vector<std::pair<const char*, std::string>> cut = {
      {"ai00-v1",
       "<ai00:function_calls>\n  <invoke name=\"f\">\n    <parameter name=\"a\">1"
       "</parameter>\n    <parameter name=\"b\">tw"},
      {"ai00-v0", "<tool_call>{\"name\":\"f\",\"arguments\":{\"a\":1,\"b\":\"tw"},
      {"openchatml", "<|function_call|>\n{\"arguments\": {\"a\": 1, \"b\": \"tw"},
  };
  for (const auto& [name, reply] : cut) {
    INFO(name << ": " << reply);
    auto f = make_format(name).value();
    for (const auto& cuts : chunkings(reply.size(), seed++)) {
      const Run r = run(*f, reply, cuts, true, FinishReason::length);
      CHECK(r.result.finish_reason == FinishReason::length);
      const Tally t = check_previews(r);
      CHECK(t.starts == 1);
      CHECK(t.whole_invalid == 1);
      CHECK(t.abandons == 0);
    }
  }
}

TEST_CASE("tool stream: an ai00 v1 parameter written twice is previewed again whole",
          "[format][tool_stream]") {
  auto f = make_format("ai00-v1").value();
  const std::string reply =
      "<ai00:function_calls>\n  <invoke name=\"f\">\n    <parameter name=\"a\">1</parameter>\n"
      "    <parameter name=\"b\">2</parameter>\n    <parameter name=\"a\">3</parameter>\n"
      "  </invoke>\n</ai00:function_calls>";
  const Run r = run(*f, reply, {}, true);
  const Tally t = check_previews(r);  // the pieces after the last start are the arguments
  CHECK(t.abandons == 1);
  CHECK(t.starts == 2);
  REQUIRE(r.result.message.tool_calls.size() == 1);
  CHECK(json::write(r.result.message.tool_calls[0].arguments) == R"({"a":"3","b":"2"})");
}

TEST_CASE("tool stream: Goose has no tool syntax, so nothing is previewed",
          "[format][tool_stream]") {
  auto f = make_format("goose").value();
  const std::string reply =
      " <tool_call>{\"name\":\"f\",\"arguments\":{}}</"
      "tool_call>\n<|function_call|>\n{\"arguments\": "
      "{}, \"name\": \"f\"}\n<ai00:function_calls>\n  <invoke name=\"f\">\n  </invoke>";
  for (const auto& cuts : chunkings(reply.size(), 7)) {
    const Run r = run(*f, reply, cuts, true);
    for (const auto& d : r.feeds)
      for (const auto& m : d) CHECK(m.tool_calls.empty());
    CHECK(r.result.message.tool_calls.empty());
    CHECK(r.result.message.text().find("<tool_call>") != std::string::npos);
  }
}

namespace {

// Random JSON text with random whitespace, escapes (short, \u, surrogate pairs, \/), numbers
// in every form the grammar allows, and nesting.
struct JsonGen {
  std::mt19937 rng;
  std::string ws() {
    static const char* kWs[] = {"", "", "", " ", "\n  ", "\t", " \r"};  // never "\n\n" (v0 stop)
    return kWs[rng() % 7];
  }
  std::string str() {
    static const char* kBits[] = {
        "a",        "\\\"", "\\\\",    "\\/",     "\\n",     "\\t",     "\\b",
        "\\f",      "\\r",  "\\u0041", "\\u00e9", "\\u0000", "\\u001f", "\\ud83d\\ude00",
        "\xc3\xa9", "}",    "{",       "]",       ",",       "<",       " ",
        "\\u20AC"};
    std::string s = "\"";
    for (int n = rng() % 6; n > 0; --n) s += kBits[rng() % 22];
    return s + "\"";
  }
  std::string value(int depth) {
    switch (depth > 3 ? rng() % 4 : rng() % 6) {
      case 0:
        return str();
      case 1: {
        static const char* kNums[] = {"0", "-0", "12", "1.50", "-3.25e+10", "6E-2", "611384164352"};
        return kNums[rng() % 7];
      }
      case 2: {
        static const char* kLits[] = {"true", "false", "null"};
        return kLits[rng() % 3];
      }
      case 3:
        return "[" + ws() + "]";
      case 4: {
        std::string s = "[" + ws();
        for (int n = 1 + rng() % 3, k = 0; k < n; ++k)
          s += (k ? "," + ws() : "") + value(depth + 1) + ws();
        return s + "]";
      }
      default: {
        std::string s = "{" + ws();
        for (int n = rng() % 4, k = 0; k < n; ++k)
          s += (k ? "," + ws() : "") + "\"k" + std::to_string(k) + "\"" + ws() + ":" + ws() +
               value(depth + 1) + ws();
        return s + "}";
      }
    }
  }
};

}  // namespace

TEST_CASE("tool stream: JSON call pieces equal json::write of the arguments for random JSON",
          "[format][tool_stream]") {
  JsonGen gen{std::mt19937(42)};
  auto v0 = make_format("ai00-v0").value();
  auto ocml = make_format("openchatml").value();
  for (int i = 0; i < 400; ++i) {
    const std::string args = gen.value(0);
    INFO(args);
    // CallJsonStream itself, byte by byte, against json::parse + json::write.
    CallJsonStream s;
    std::string pieces;
    const std::string call = "{" + gen.ws() + "\"name\":\"f\"," + gen.ws() + "\"arguments\"" +
                             gen.ws() + ":" + gen.ws() + args + gen.ws() + "}";
    for (char c : call) {
      s.feed(std::string_view(&c, 1));
      pieces += s.take_arguments();
    }
    auto parsed = json::parse(args);
    REQUIRE(parsed.ok());
    CHECK(s.name() == std::optional<std::string>("f"));
    if (!parsed.value().is_string()) {
      CHECK(pieces == json::write(parsed.value()));
    } else {
      CHECK(pieces.empty());  // OpenAI style: the whole call carries them
    }
    // Through both parsers, in random pieces.
    const std::string v0_reply = "<tool_call>" + call + "</tool_call>";
    const std::string ocml_reply =
        "<|function_call|>\n{\"arguments\": " + args + ", \"name\": \"f\"}";
    for (const auto& [f, reply] :
         {std::pair{v0.get(), v0_reply}, std::pair{ocml.get(), ocml_reply}}) {
      const auto cuts = chunkings(reply.size(), static_cast<uint32_t>(i));
      const Run r = run(*f, reply, cuts[2 + i % 6], true);
      REQUIRE(r.result.message.tool_calls.size() == 1);
      const Tally t = check_previews(r);
      CHECK(t.whole_valid == 1);
      CHECK(t.abandons == 0);
    }
  }
}
