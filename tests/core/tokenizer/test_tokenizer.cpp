// Tests of src/core/tokenizer.{h,cpp}: the official vectors, greedy longest match against a
// brute-force reference, round trips on random (also invalid UTF-8) bytes, decode errors and the
// streaming decoder. Loader and vocabulary-error tests are in test_tokenizer_vocab.cpp.
#include <simdjson.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "base/utf8.h"
#include "core/tokenizer/tokenizer.h"
#include "fixtures.h"

using namespace ai00::internal;
namespace test = ai00::test;

namespace {

std::shared_ptr<const Tokenizer> world() {
  static const auto tok =
      Tokenizer::from_vocab_file(test::shared_path("tokenizer/rwkv_vocab_v20230424.txt"));
  return tok;
}

struct Vector {
  std::string input;
  std::vector<uint32_t> ids;
};

std::string from_hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::vector<Vector> read_vectors(const std::string& file) {
  std::vector<Vector> out;
  simdjson::dom::parser parser;
  const std::string text = test::read_text(test::shared_path("tokenizer/" + file));
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    simdjson::dom::element doc = parser.parse(line);
    Vector v;
    std::string_view s;
    if (doc["text"].get_string().get(s) == simdjson::SUCCESS) {
      v.input = std::string(s);
    } else {
      v.input = from_hex(doc["bytes_hex"].get_string().value());
    }
    for (simdjson::dom::element id : doc["ids"].get_array())
      v.ids.push_back(uint32_t(id.get_uint64()));
    out.push_back(std::move(v));
  }
  return out;
}

// Brute-force greedy longest match (the reference algorithm of rwkv_tokenizer_ref.py).
class NaiveGreedy {
 public:
  explicit NaiveGreedy(const Tokenizer& tok) {
    for (uint32_t id = 1; id < tok.vocab_size(); ++id) {
      const std::string_view b = tok.token_bytes(id);
      if (b.empty()) continue;
      map_.emplace(std::string(b), id);
      max_len_ = std::max(max_len_, b.size());
    }
  }
  std::vector<uint32_t> encode(const std::string& s) const {
    std::vector<uint32_t> ids;
    for (size_t i = 0; i < s.size();) {
      for (size_t len = std::min(max_len_, s.size() - i); len > 0; --len) {
        auto it = map_.find(s.substr(i, len));
        if (it != map_.end()) {
          ids.push_back(it->second);
          i += len;
          break;
        }
      }
    }
    return ids;
  }

 private:
  std::unordered_map<std::string, uint32_t> map_;
  size_t max_len_ = 0;
};

// Random input: a mix of vocabulary pieces, random bytes and fragments of UTF-8 text.
std::string random_input(std::mt19937& rng, const Tokenizer& tok) {
  std::string s;
  const int parts = static_cast<int>(rng() % 12);
  for (int p = 0; p < parts; ++p) {
    switch (rng() % 4) {
      case 0:
        s += tok.token_bytes(1 + rng() % (tok.vocab_size() - 1));
        break;
      case 1:
        s.push_back(static_cast<char>(rng() & 0xFF));
        break;
      case 2:
        s += "\xE4\xBD\xA0\xE5\xA5\xBD, world \xF0\x9F\x98\x80";
        break;
      default:
        s.append(rng() % 40, ' ');
        break;
    }
  }
  return s;
}

// Streams `ids` through a StreamDecoder one id at a time; checks each piece is valid UTF-8.
std::string stream_all(const std::shared_ptr<const Tokenizer>& tok,
                       const std::vector<uint32_t>& ids) {
  StreamDecoder dec(tok);
  std::string all;
  for (uint32_t id : ids) {
    std::string piece;
    dec.push(id, piece);
    REQUIRE(utf8::is_valid(piece));
    REQUIRE(dec.pending_bytes() <= 3);
    all += piece;
  }
  const std::string tail = dec.flush();
  REQUIRE(utf8::is_valid(tail));
  return all + tail;
}

}  // namespace

TEST_CASE("tokenizer World vocab basics", "[core][tokenizer]") {
  const auto tok = world();
  CHECK(tok->vocab_size() == 65530);
  CHECK(tok->max_token_len() == 128);
  CHECK(tok->token_bytes(0).empty());
  CHECK(tok->token_bytes(65530).empty());
  CHECK(tok->token_bytes(0xFFFFFFFFu).empty());
  for (uint32_t b = 0; b < 256; ++b) {  // all single bytes: id = byte + 1
    REQUIRE(tok->token_bytes(b + 1) == std::string(1, static_cast<char>(b)));
    REQUIRE(tok->find(std::string(1, static_cast<char>(b))) == b + 1);
  }
  CHECK(tok->token_bytes(261) == "\n\n");
  CHECK(tok->find("\n\n") == 261);
  CHECK(tok->find("") == 0);
  CHECK(tok->find(std::string(129, ' ')) == 0);
  CHECK(tok->encode("").empty());
}

TEST_CASE("tokenizer encodes vectors.jsonl exactly and decodes back", "[core][tokenizer]") {
  const auto tok = world();
  const auto vectors = read_vectors("vectors.jsonl");
  REQUIRE(vectors.size() == 200);
  for (size_t i = 0; i < vectors.size(); ++i) {
    INFO("vector " << i);
    REQUIRE(tok->encode(vectors[i].input) == vectors[i].ids);
    REQUIRE(tok->decode(vectors[i].ids) == vectors[i].input);
  }
}

TEST_CASE("tokenizer encodes vectors_bytes.jsonl exactly and decodes back", "[core][tokenizer]") {
  const auto tok = world();
  const auto vectors = read_vectors("vectors_bytes.jsonl");
  REQUIRE(vectors.size() == 20);
  for (size_t i = 0; i < vectors.size(); ++i) {
    INFO("vector " << i);
    REQUIRE(tok->encode(vectors[i].input) == vectors[i].ids);
    REQUIRE(tok->decode(vectors[i].ids) == vectors[i].input);
  }
}

TEST_CASE("tokenizer greedy match equals brute force and round-trips random bytes",
          "[core][tokenizer]") {
  const auto tok = world();
  const NaiveGreedy naive(*tok);
  std::mt19937 rng(42);
  for (int iter = 0; iter < 3000; ++iter) {
    const std::string s = random_input(rng, *tok);
    const std::vector<uint32_t> ids = tok->encode(s);
    REQUIRE(ids == naive.encode(s));
    for (uint32_t id : ids) REQUIRE(id != 0);
    REQUIRE(tok->decode(ids) == s);
  }
  // Every byte value at every position, including the last one (first-two-byte table edge).
  for (int b = 0; b < 256; ++b) {
    const std::string s = "x" + std::string(1, static_cast<char>(b));
    REQUIRE(tok->encode(s) == naive.encode(s));
    REQUIRE(tok->decode(tok->encode(s)) == s);
  }
  const std::string spaces(1000, ' ');  // longest token is 128 spaces
  REQUIRE(tok->encode(spaces) == naive.encode(spaces));
}

// Small vocabularies take other build paths (std::sort instead of the bucket sort below 4096
// keys; first-two-byte rows probed only under bytes that start a longer token): every single
// byte plus a random sample of the World vocab's longer tokens, sizes around the threshold.
TEST_CASE("tokenizer of a small vocabulary equals brute force on both sides of the sort switch",
          "[core][tokenizer]") {
  const auto world_tok = world();
  std::vector<std::string> longer;
  for (uint32_t id = 1; id < world_tok->vocab_size(); ++id)
    if (world_tok->token_bytes(id).size() > 1) longer.emplace_back(world_tok->token_bytes(id));
  std::mt19937 rng(7);
  for (size_t n_keys : {256u, 300u, 4095u, 4096u, 4097u}) {
    std::shuffle(longer.begin(), longer.end(), rng);
    std::string bytes(256, '\0');
    for (int b = 0; b < 256; ++b) bytes[b] = static_cast<char>(b);
    std::vector<std::string_view> entries{std::string_view()};
    for (int b = 0; b < 256; ++b) entries.push_back(std::string_view(bytes).substr(b, 1));
    for (size_t i = 0; entries.size() <= n_keys; ++i) entries.push_back(longer[i]);
    const auto tok = Tokenizer::build(entries, "sample");
    REQUIRE(tok->vocab_size() == n_keys + 1);
    const NaiveGreedy naive(*tok);
    for (int iter = 0; iter < 300; ++iter) {
      const std::string s = random_input(rng, *tok) + random_input(rng, *world_tok);
      const std::vector<uint32_t> ids = tok->encode(s);
      REQUIRE(ids == naive.encode(s));
      REQUIRE(tok->decode(ids) == s);
    }
    for (size_t i = 257; i < entries.size(); i += 97) REQUIRE(tok->find(entries[i]) == uint32_t(i));
  }
}

TEST_CASE("tokenizer decode stops at token 0 and rejects unknown ids", "[core][tokenizer]") {
  const auto tok = world();
  const std::vector<uint32_t> ids = {0x48 + 1, 0x69 + 1, 0, 0x21 + 1};
  CHECK(tok->decode(ids) == "Hi");
  std::string out = "pre:";
  CHECK(tok->decode_append(ids.data(), ids.size(), out) == 2);
  CHECK(out == "pre:Hi");
  const std::vector<uint32_t> bad = {5, 6, 70000};
  CHECK_THROWS_AS(tok->decode(bad), InvalidArgument);
  CHECK_THROWS_WITH(tok->decode(bad), Catch::Contains("70000") && Catch::Contains("position 2"));
  // An unknown id after the end-of-text token is never looked at.
  const std::vector<uint32_t> after_end = {5, 0, 70000};
  CHECK(tok->decode(after_end) == "\x04");
  CHECK(tok->decode_text(std::vector<uint32_t>{0xFF + 1, 0x41 + 1}.data(), 2) ==
        "\xEF\xBF\xBD"
        "A");
}

TEST_CASE("tokenizer stream decoder is split-invariant and emits valid UTF-8",
          "[core][tokenizer]") {
  const auto tok = world();
  std::mt19937 rng(7);
  std::vector<std::vector<uint32_t>> sequences;
  for (const auto& v : read_vectors("vectors.jsonl")) sequences.push_back(v.ids);
  for (const auto& v : read_vectors("vectors_bytes.jsonl")) sequences.push_back(v.ids);
  for (int i = 0; i < 500; ++i) {  // random ids: many are partial or invalid UTF-8 on their own
    std::vector<uint32_t> ids(rng() % 20);
    for (auto& id : ids) id = 1 + rng() % (tok->vocab_size() - 1);
    sequences.push_back(ids);
  }
  for (const auto& ids : sequences) {
    const std::string expected = utf8::sanitize(tok->decode(ids));
    REQUIRE(stream_all(tok, ids) == expected);
    REQUIRE(tok->decode_text(ids.data(), ids.size()) == expected);
    // Split anywhere: a fresh decoder for the prefix state, then the rest one at a time, gives
    // the same concatenation as pushing everything.
    for (size_t split = 0; split <= ids.size(); ++split) {
      StreamDecoder dec(tok);
      std::string all;
      for (size_t i = 0; i < ids.size(); ++i) {
        std::string piece = dec.push(ids[i]);
        REQUIRE(utf8::is_valid(piece));
        all += piece;
        if (i + 1 == split) {
          StreamDecoder copy = dec;  // a copy continues identically
          std::string rest;
          for (size_t j = split; j < ids.size(); ++j) copy.push(ids[j], rest);
          copy.flush(rest);
          REQUIRE(all + rest == expected);
        }
      }
      REQUIRE(all + dec.flush() == expected);
    }
  }
}

TEST_CASE("tokenizer stream decoder holds partial characters and reports end of text",
          "[core][tokenizer]") {
  const auto tok = world();
  const std::vector<uint32_t> emoji =
      tok->encode("\xF0\x9F\x98\x80");  // U+1F600, split by the vocab
  REQUIRE(emoji.size() >= 2);
  StreamDecoder dec(tok);
  std::string out;
  for (size_t i = 0; i + 1 < emoji.size(); ++i) {
    CHECK(dec.push(emoji[i], out));
    CHECK(out.empty());
  }
  CHECK(dec.pending_bytes() > 0);
  CHECK(dec.push(emoji.back(), out));
  CHECK(out == "\xF0\x9F\x98\x80");
  // Token 0 flushes a dangling partial character as U+FFFD and reports the end.
  out.clear();
  CHECK(dec.push(emoji[0], out));
  CHECK_FALSE(dec.push(0, out));
  CHECK(dec.ended());
  CHECK(out == "\xEF\xBF\xBD");
  CHECK(dec.pending_bytes() == 0);
  CHECK(dec.push(0x41 + 1) == "A");  // a new text starts after the end
  CHECK_FALSE(dec.ended());
  CHECK(dec.position() == emoji.size() + 3);
  const std::string pos = "position " + std::to_string(emoji.size() + 3);
  CHECK_THROWS_WITH(dec.push(65530), Catch::Contains("65530") && Catch::Contains(pos));
  dec.reset();
  CHECK(dec.position() == 0);
}

TEST_CASE("tokenizer byte-level vocabulary maps id to byte", "[core][tokenizer]") {
  const auto tok = Tokenizer::byte_level(256);
  CHECK(tok->vocab_size() == 256);
  const std::vector<uint32_t> ids = tok->encode("\"in");
  CHECK(ids == std::vector<uint32_t>{0x22, 0x69, 0x6E});
  CHECK(tok->decode(ids) == "\"in");
  std::string all_bytes;
  for (int b = 1; b < 256; ++b) all_bytes.push_back(static_cast<char>(b));
  CHECK(tok->decode(tok->encode(all_bytes)) == all_bytes);
  CHECK(tok->token_bytes(0).empty());
  CHECK_THROWS_WITH(tok->encode(std::string("ab\0", 3)),
                    Catch::Contains("0x00") && Catch::Contains("offset 2"));
  CHECK_THROWS_AS(tok->decode(std::vector<uint32_t>{256}), InvalidArgument);
  const auto wide = Tokenizer::byte_level(512);
  CHECK(wide->vocab_size() == 512);
  CHECK(wide->token_bytes(300).empty());
  CHECK(wide->decode(std::vector<uint32_t>{300, 0x41}) == "A");
  CHECK_THROWS_AS(Tokenizer::byte_level(100), InvalidArgument);
  // Loads of 256-token models share one build (immutable, so sharing is safe).
  CHECK(Tokenizer::byte_level(256) == tok);
  CHECK(Tokenizer::byte_level(512) != wide);
}
