// Tokenizer throughput, one thread: encode and decode of a ~2 MB mixed multilingual text built
// from shared/tokenizer/vectors.jsonl (texts repeated in a seeded shuffled order), streaming
// decode, and vocabulary load time (txt and JSON). Goals on the dev machine: encode >= 200 MB/s,
// decode >= 1 GB/s, load <= 30 ms. Run: build/<dir>/bin/bench_tokenizer
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/utf8.h"
#include "core/tokenizer/tokenizer.h"

namespace {

std::string shared_dir() {
  const char* env = std::getenv("AI00_SHARED_DIR");
  return env && *env ? env : AI00_DEFAULT_SHARED_DIR;
}

std::string vocab_path() { return shared_dir() + "/tokenizer/rwkv_vocab_v20230424.txt"; }

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The vectors' texts (English, code, CJK, Cyrillic, Arabic, emoji, whitespace runs, ...)
// concatenated in a seeded random order until the text reaches 2 MB.
const std::string& corpus() {
  static const std::string text = [] {
    std::vector<std::string> texts;
    simdjson::dom::parser parser;
    std::istringstream lines(read_file(shared_dir() + "/tokenizer/vectors.jsonl"));
    for (std::string line; std::getline(lines, line);) {
      std::string_view t;
      if (!line.empty() && parser.parse(line)["text"].get_string().get(t) == simdjson::SUCCESS) {
        texts.emplace_back(t);
      }
    }
    if (texts.empty()) return std::string();
    std::mt19937 rng(2023);
    std::string out;
    while (out.size() < (2u << 20)) {
      std::shuffle(texts.begin(), texts.end(), rng);
      for (const auto& t : texts) out += t;
    }
    return out;
  }();
  return text;
}

std::shared_ptr<const ai00::internal::Tokenizer> tokenizer() {
  static const auto tok = ai00::internal::Tokenizer::from_vocab_file(vocab_path());
  return tok;
}

void BM_Encode(benchmark::State& state) {
  const auto tok = tokenizer();
  const std::string& text = corpus();
  std::vector<uint32_t> ids;
  for (auto _ : state) {
    ids.clear();
    tok->encode_append(text, ids);
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(text.size()));
  state.counters["bytes_per_token"] = double(text.size()) / double(ids.size());
}
BENCHMARK(BM_Encode)->Unit(benchmark::kMillisecond);

void BM_Decode(benchmark::State& state) {
  const auto tok = tokenizer();
  const std::vector<uint32_t> ids = tok->encode(corpus());
  std::string out;
  for (auto _ : state) {
    out.clear();
    tok->decode_append(ids.data(), ids.size(), out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(out.size()));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(ids.size()));
}
BENCHMARK(BM_Decode)->Unit(benchmark::kMillisecond);

// decode + U+FFFD sanitising (what crosses the C ABI as text).
void BM_DecodeText(benchmark::State& state) {
  const auto tok = tokenizer();
  const std::vector<uint32_t> ids = tok->encode(corpus());
  size_t n = 0;
  for (auto _ : state) {
    const std::string out = tok->decode_text(ids.data(), ids.size());
    n = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(n));
}
BENCHMARK(BM_DecodeText)->Unit(benchmark::kMillisecond);

// One push per token, as the generation loop does.
void BM_StreamDecode(benchmark::State& state) {
  const auto tok = tokenizer();
  const std::vector<uint32_t> ids = tok->encode(corpus());
  std::string out;
  for (auto _ : state) {
    ai00::internal::StreamDecoder dec(tok);
    out.clear();
    for (uint32_t id : ids) dec.push(id, out);
    dec.flush(out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(out.size()));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(ids.size()));
}
BENCHMARK(BM_StreamDecode)->Unit(benchmark::kMillisecond);

void BM_LoadTxt(benchmark::State& state) {
  const std::string path = vocab_path();
  for (auto _ : state) benchmark::DoNotOptimize(ai00::internal::Tokenizer::from_vocab_file(path));
}
BENCHMARK(BM_LoadTxt)->Unit(benchmark::kMillisecond);

// The ai00_server JSON form, generated in memory from the txt vocabulary.
void BM_LoadJson(benchmark::State& state) {
  const auto tok = tokenizer();
  std::string json = "{";
  for (uint32_t id = 1; id < tok->vocab_size(); ++id) {
    const std::string_view b = tok->token_bytes(id);
    json += (id > 1 ? ",\"" : "\"") + std::to_string(id) + "\":";
    if (ai00::internal::utf8::is_valid(b)) {
      json += '"';
      for (char c : b) {
        char esc[8];
        if (c == '"' || c == '\\') {
          json += '\\';
          json += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
          std::snprintf(esc, sizeof esc, "\\u%04x", unsigned(c));
          json += esc;
        } else {
          json += c;
        }
      }
      json += '"';
    } else {
      json += '[';
      for (size_t i = 0; i < b.size(); ++i) json += (i ? "," : "") + std::to_string(uint8_t(b[i]));
      json += ']';
    }
  }
  json += '}';
  for (auto _ : state)
    benchmark::DoNotOptimize(ai00::internal::Tokenizer::from_vocab_bytes(json, "vocab.json"));
}
BENCHMARK(BM_LoadJson)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
