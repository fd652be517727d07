// Tests of src/core/vocab_parse.{h,cpp}: the txt literal parser, the JSON and GGUF forms of the
// World vocabulary (compared entry by entry with the txt one) and every vocabulary error.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/tokenizer/tokenizer.h"
#include "base/utf8.h"
#include "core/tokenizer/vocab_parse.h"
#include "core/weights/weights.h"
#include "fixtures.h"

using namespace ai00::internal;
namespace test = ai00::test;

namespace {

std::string vocab_path() { return test::shared_path("tokenizer/rwkv_vocab_v20230424.txt"); }

std::shared_ptr<const Tokenizer> world() {
  static const auto tok = Tokenizer::from_vocab_file(vocab_path());
  return tok;
}

std::string lit(std::string_view literal) {
  std::string out;
  const std::string err = vocab::parse_python_literal(literal, out);
  if (!err.empty()) return "ERROR: " + err;
  return out;
}

void require_same_vocab(const Tokenizer& a, const Tokenizer& b) {
  REQUIRE(a.vocab_size() == b.vocab_size());
  for (uint32_t id = 0; id < a.vocab_size(); ++id) {
    INFO("id " << id);
    REQUIRE(a.token_bytes(id) == b.token_bytes(id));
  }
}

// ai00_server-style JSON: "id": "text" for valid UTF-8 entries, "id": [bytes] for the others.
std::string to_json(const Tokenizer& tok) {
  std::string j = "{";
  for (uint32_t id = 1; id < tok.vocab_size(); ++id) {
    const std::string_view b = tok.token_bytes(id);
    j += (id > 1 ? ",\n\"" : "\"") + std::to_string(id) + "\": ";
    if (utf8::is_valid(b)) {
      j += '"';
      for (char c : b) {
        const auto u = static_cast<unsigned char>(c);
        char esc[8];
        if (c == '"' || c == '\\') {
          j += '\\';
          j += c;
        } else if (u < 0x20) {
          std::snprintf(esc, sizeof esc, "\\u%04x", u);
          j += esc;
        } else {
          j += c;
        }
      }
      j += '"';
    } else {
      j += '[';
      for (size_t i = 0; i < b.size(); ++i) j += (i ? "," : "") + std::to_string(uint8_t(b[i]));
      j += ']';
    }
  }
  return j + "}";
}

void check_txt_error(const std::string& content, const std::string& what) {
  INFO(content);
  CHECK_THROWS_AS(Tokenizer::from_vocab_bytes(content, "v.txt"), ModelFileError);
  CHECK_THROWS_WITH(Tokenizer::from_vocab_bytes(content, "v.txt"), Catch::Contains(what));
}

}  // namespace

TEST_CASE("tokenizer_vocab Python literal parser", "[core][tokenizer]") {
  CHECK(lit("'abc'") == "abc");
  CHECK(lit("' '") == " ");
  CHECK(lit("'\\x80'") == "\xC2\x80");  // str: code point U+0080 -> two bytes
  CHECK(lit("b'\\x80'") == "\x80");     // bytes: one raw byte
  CHECK(lit("'\\u4f60'") == "\xE4\xBD\xA0");
  CHECK(lit("'\\U0001F600'") == "\xF0\x9F\x98\x80");
  CHECK(lit("\"it's\"") == "it's");
  CHECK(lit("'\\n\\t\\r\\\\\\''") == "\n\t\r\\'");
  CHECK(lit("'\\0'") == std::string(1, '\0'));
  CHECK(lit("b'\\377'") == "\xFF");
  CHECK(lit("'\xE4\xBD\xA0'") == "\xE4\xBD\xA0");
  CHECK(lit("b'a\\xffb'") ==
        "a\xFF"
        "b");
  CHECK(lit("'\\q'").find("bad escape \\q") != std::string::npos);
  CHECK(lit("'\\x8'").find("hex digits") != std::string::npos);
  CHECK(lit("b'\\u0041'").find("bytes literal") != std::string::npos);
  CHECK(lit("'\\ud800'").find("surrogate") != std::string::npos);
  CHECK(lit("b'\xC3\xA9'").find("non-ASCII") != std::string::npos);
  CHECK(lit("'abc").find("closing quote") != std::string::npos);
  CHECK(lit("abc").find("quote") != std::string::npos);
  CHECK(lit("'a'b'").find("unescaped quote") != std::string::npos);
  CHECK(lit("'a\\'").find("ERROR") == 0);
  CHECK(lit("").find("ERROR") == 0);
}

TEST_CASE("tokenizer_vocab txt parsing accepts the format's variants", "[core][tokenizer]") {
  const std::string base = "1 'a' 1\n2 'b' 1\n3 \"'x\" 2\n4 b'\\xff' 1\n5 'ab' 2";
  const auto t1 = Tokenizer::from_vocab_bytes(base, "v.txt");  // no final newline
  const auto t2 = Tokenizer::from_vocab_bytes(base + "\n", "v.txt");
  std::string crlf = base;
  for (size_t p = crlf.find('\n'); p != std::string::npos; p = crlf.find('\n', p + 2))
    crlf.insert(p, "\r");
  const auto t3 = Tokenizer::from_vocab_bytes(crlf + "\r\n", "v.txt");
  require_same_vocab(*t1, *t2);
  require_same_vocab(*t1, *t3);
  CHECK(t1->vocab_size() == 6);
  CHECK(t1->token_bytes(3) == "'x");
  CHECK(t1->token_bytes(4) == "\xFF");
  CHECK(t1->encode("aab") == std::vector<uint32_t>{1, 5});
  // A vocabulary without some single byte loads, but cannot encode that byte.
  CHECK_THROWS_WITH(t1->encode("abc"), Catch::Contains("0x63") && Catch::Contains("offset 2"));
}

TEST_CASE("tokenizer_vocab txt errors name the file, line and problem", "[core][tokenizer]") {
  check_txt_error("1 'a' 1\n2 b 1\n", "v.txt:2: bad literal b");
  check_txt_error("1 'a' 1\n2 '\\q' 1\n", "v.txt:2: bad literal '\\q': bad escape \\q");
  check_txt_error("1 'a' 1\n2 'bc' 3\n",
                  "v.txt:2: length field says 3 but literal 'bc' has 2 bytes");
  check_txt_error("1 'a' 1\n3 'b' 1\n", "v.txt:2: non-contiguous id 3, expected 2");
  check_txt_error("1 'a' 1\n1 'b' 1\n", "v.txt:2: duplicate id 1");
  check_txt_error("2 'a' 1\n", "v.txt:1: non-contiguous id 2, expected 1");
  check_txt_error("1 'a' 1\n2 'a' 1\n", "ids 1 and 2 have the same bytes");
  check_txt_error("1 'a' 1\n\n2 'b'\n", "v.txt:3: expected `ID LITERAL LENGTH`");
  check_txt_error("1 'a' 1\nx 'b' 1\n", "v.txt:2: bad id `x`");
  check_txt_error("1 'a' 1\n2 'b' one\n", "v.txt:2: bad length field `one`");
  check_txt_error("1 'a' 1\n2 '' 0\n", "v.txt:2: empty token");
  check_txt_error("1 'a' 1\n2 '\xFF' 1\n", "v.txt:2: invalid UTF-8");
  check_txt_error("", "no vocabulary entries");
}

TEST_CASE("tokenizer_vocab the shipped txt loads with and without the final newline",
          "[core][tokenizer]") {
  std::string content = test::read_text(vocab_path());
  REQUIRE(content.back() == '\n');
  content.pop_back();
  const auto tok = Tokenizer::from_vocab_bytes(content, "no-final-newline.txt");
  require_same_vocab(*tok, *world());
}

TEST_CASE("tokenizer_vocab ai00_server JSON equals the txt vocabulary", "[core][tokenizer]") {
  const auto txt = world();
  const std::string json = "{\"0\": \"<|endoftext|>\", " + to_json(*txt).substr(1);
  const std::string dir = test::temp_dir();
  test::write_bytes(dir + "/vocab.json", std::vector<uint8_t>(json.begin(), json.end()));
  const auto tok = Tokenizer::from_vocab_file(dir + "/vocab.json");
  require_same_vocab(*tok, *txt);
  const std::string sample = "Hello, \xE4\xBD\xA0\xE5\xA5\xBD! \xF0\x9F\x98\x80 \xFF\xFE";
  CHECK(tok->encode(sample) == txt->encode(sample));
}

TEST_CASE("tokenizer_vocab JSON errors", "[core][tokenizer]") {
  auto err = [](const std::string& json, const std::string& what) {
    INFO(json);
    CHECK_THROWS_AS(Tokenizer::from_vocab_bytes(json, "v.json"), ModelFileError);
    CHECK_THROWS_WITH(Tokenizer::from_vocab_bytes(json, "v.json"), Catch::Contains(what));
  };
  err("{\"1\": \"a\",", "v.json: bad JSON vocabulary");
  err("{\"1\": 5}", "v.json: /1: value must be a string or an array of bytes");
  err("{\"1\": [97, 256]}", "/1: element 1 is not an integer 0..255");
  err("{\"1\": [97, \"b\"]}", "/1: element 1");
  err("{\"x\": \"a\"}", "/x: key must be a decimal token id");
  err("{\"1\": \"a\", \"3\": \"b\"}", "/3: id 3 is larger than the number of entries");
  err("{\"1\": \"a\", \"1\": \"b\"}", "/1: duplicate id 1");
  err("{\"1\": \"a\", \"0\": \"x\", \"3\": \"b\"}", "id 2 is missing");
  err("{\"1\": \"\"}", "/1: empty token");
  err("{\"1\": \"a\", \"2\": [97]}", "ids 1 and 2 have the same bytes");
  err("{}", "no vocabulary entries");
  const auto ok = Tokenizer::from_vocab_bytes(" {\"2\": [255], \"1\": \"\\u00e9\"}", "v.json");
  CHECK(ok->token_bytes(1) == "\xC3\xA9");
  CHECK(ok->token_bytes(2) == "\xFF");
}

TEST_CASE("tokenizer_vocab GGUF fixture tokens equal the txt vocabulary", "[core][tokenizer]") {
  const auto wf = open_weights(test::shared_path("models/rand-rwkv7-c128-l3-v512-F16.gguf"));
  REQUIRE(wf->gguf_tokens.size() == 512);
  CHECK(wf->gguf_tokens[0] == "<s>");
  const auto tok = Tokenizer::from_gguf(wf->gguf_tokens, wf->gguf_token_types);
  CHECK(tok->vocab_size() == 512);
  CHECK(tok->token_bytes(0).empty());
  const auto txt = world();
  for (uint32_t id = 1; id < 512; ++id) {
    INFO("id " << id << " escaped " << wf->gguf_tokens[id]);
    REQUIRE(tok->token_bytes(id) == txt->token_bytes(id));
  }
  // The 511 entries hold every single byte, so any input still encodes and round-trips.
  const std::string sample = "hello\n\n\xFF\xE4\xBD\xA0";
  CHECK(tok->decode(tok->encode(sample)) == sample);
}

TEST_CASE("tokenizer_vocab GGUF escapes, types and errors", "[core][tokenizer]") {
  std::string out;
  CHECK(vocab::unescape_gguf("a\\tb\\nc\\rd\\x41\\xff\\\\\\'\\q", out).empty());
  CHECK(out == "a\tb\nc\rdA\xFF\\'q");
  out.clear();
  CHECK(vocab::unescape_gguf("\\x4", out).find("hex digits") != std::string::npos);
  CHECK(vocab::unescape_gguf("ab\\", out).find("dangling") != std::string::npos);
  const std::vector<std::string> tokens = {"<s>", "a", "b", "\\xe4\\xbd\\xa0", "[PAD4]", "<ctl>"};
  const std::vector<int32_t> types = {3, 1, 1, 1, 5, 3};
  const auto tok = Tokenizer::from_gguf(tokens, types);
  CHECK(tok->vocab_size() == 6);
  CHECK(tok->token_bytes(3) == "\xE4\xBD\xA0");
  CHECK(tok->token_bytes(4).empty());
  CHECK(tok->token_bytes(5).empty());
  CHECK(tok->find("[PAD4]") == 0);
  const auto untyped = Tokenizer::from_gguf(tokens, {});
  CHECK(untyped->token_bytes(0).empty());
  CHECK(untyped->token_bytes(4) == "[PAD4]");
  CHECK_THROWS_WITH(Tokenizer::from_gguf({"<s>", "a", "\\xZZ"}, {}),
                    Catch::Contains("tokenizer.ggml.tokens[2]") && Catch::Contains("hex digits"));
  CHECK_THROWS_WITH(Tokenizer::from_gguf(tokens, {3, 1}),
                    Catch::Contains("token_type has 2 entries"));
  CHECK_THROWS_AS(Tokenizer::from_gguf({}, {}), ModelFileError);
  CHECK_THROWS_WITH(Tokenizer::from_gguf({"<s>", "abc", "x", "abc"}, {}),
                    Catch::Contains("ids 1 and 3 have the same bytes"));
  CHECK_THROWS_WITH(Tokenizer::from_gguf({"<s>", "a", "a"}, {}),
                    Catch::Contains("ids 1 and 2 have the same bytes"));
}

TEST_CASE("tokenizer_vocab missing file is an IoError", "[core][tokenizer]") {
  CHECK_THROWS_AS(Tokenizer::from_vocab_file(test::temp_dir() + "/nope.txt"), IoError);
}
