// Tests of src/format/json.{h,cpp}: the value type, the byte-stable writer, the simdjson reader.
#include <catch2/catch.hpp>

#include "format/json.h"

using ai00::internal::json::Value;
namespace json = ai00::internal::json;

TEST_CASE("json: parse then write is byte-stable and keeps number text", "[format][json]") {
  const std::string text =
      R"({"b":1.50,"a":[611384164352,-0.0,1e-7,true,false,null],"s":"x\"\\\n\t\u0001é😀","o":{}})";
  auto v = json::parse(text);
  REQUIRE(v.ok());
  const std::string once = json::write(v.value());
  CHECK(once ==
        "{\"b\":1.50,\"a\":[611384164352,-0.0,1e-7,true,false,null],\"s\":\"x\\\"\\\\\\n\\t\\u0001"
        "é😀\",\"o\":{}}");
  auto again = json::parse(once);
  REQUIRE(again.ok());
  CHECK(again.value() == v.value());
  CHECK(json::write(again.value()) == once);
  // Members keep insertion order, not sorted order.
  CHECK(v.value().as_object()[0].first == "b");
  CHECK(v.value().find("b")->number_text() == "1.50");
}

TEST_CASE("json: scalar documents and whitespace", "[format][json]") {
  CHECK(json::parse(" 42 ").value().number_text() == "42");
  CHECK(json::parse("\"hi\"").value().as_string() == "hi");
  CHECK(json::parse("true").value().as_bool());
  CHECK(json::parse("null").value().is_null());
  CHECK(json::parse("\n[ ]\n").value().as_array().empty());
}

TEST_CASE("json: syntax errors say what and where", "[format][json]") {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "[1 2]", "{\"a\":1} x", "tru", "[01]",
                          "{\"a\":1,\"a\":2}", "\"\\x\"", "[1.]", "nul"}) {
    auto v = json::parse(bad);
    INFO(bad);
    REQUIRE_FALSE(v.ok());
    CHECK(v.error().kind == ai00::internal::ErrorKind::format);
    CHECK(v.error().message.find("JSON") != std::string::npos);
  }
  auto dup = json::parse("{\"a\":1,\"a\":2}");
  CHECK(dup.error().message.find("duplicate key \"a\"") != std::string::npos);
  auto trailing = json::parse("{\"a\":1} x");
  CHECK(trailing.error().message.find("byte 8") != std::string::npos);
}

TEST_CASE("json: writer styles", "[format][json]") {
  auto v = json::parse(R"({"name":"f","p":{"type":"object","req":["a","b"],"x":{"t":"s"}},"e":[]})")
               .value();
  CHECK(json::write(v, {0, true, false, false}) ==
        R"({"name": "f", "p": {"type": "object", "req": ["a", "b"], "x": {"t": "s"}}, "e": []})");
  CHECK(json::write(v, {2, false, true, true}) ==
        "{\n  \"name\": \"f\",\n  \"p\": {\n    \"type\": \"object\",\n    \"req\": [\"a\", "
        "\"b\"],\n    \"x\": { \"t\": \"s\" }\n  },\n  \"e\": []\n}");
  CHECK(json::write(v, {2, false, false, false}).find("\"req\": [\n      \"a\",") !=
        std::string::npos);
}

TEST_CASE("json: building values", "[format][json]") {
  Value o;
  o.set("a", 1);
  o.set("b", Value(json::Array{Value("x"), Value(2.5), Value(nullptr)}));
  o.set("a", "replaced");
  CHECK(json::write(o) == R"({"a":"replaced","b":["x",2.5,null]})");
  Value copy = o;
  copy.set("c", true);  // copy on write: the original is untouched
  CHECK(o.find("c") == nullptr);
  CHECK(Value(0.1).number_text() == "0.1");
  CHECK(Value(std::numeric_limits<double>::infinity()).is_null());
  CHECK(Value::is_number_text("-12.5e+3"));
  CHECK_FALSE(Value::is_number_text("+1"));
  CHECK_FALSE(Value::is_number_text("1."));
  CHECK_FALSE(Value::is_number_text(".5"));
  CHECK(json::pointer_append("/a", "x/y~z") == "/a/x~1y~0z");
  CHECK_THROWS_AS(Value(1).as_string(), ai00::internal::InternalError);
}
