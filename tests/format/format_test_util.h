// Shared helpers of the src/format tests: golden files and the streaming harness that feeds a
// parser the same output whole, byte by byte, split in two at every offset, in random pieces and
// truncated at every prefix (docs/chat-formats.md "Parser tests").
#pragma once

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "fixtures.h"
#include "format/delta.h"
#include "format/format.h"
#include "format/message.h"

namespace ai00::test {
using namespace ::ai00::internal;  // test helpers of the internal layers

inline std::string format_data(const std::string& name) {
  return std::string(AI00_FORMAT_DATA_DIR) + "/" + name;
}
inline std::string golden(const std::string& name) { return read_text(format_data(name)); }

inline std::vector<format::Message> load_conversation(const std::string& name) {
  auto conv = format::parse_conversation(golden(name));
  INFO(name << ": " << (conv ? "" : conv.error().message));
  REQUIRE(conv.ok());
  return conv.value();
}

inline std::vector<format::ToolDesc> load_tools(const std::string& name) {
  auto tools = format::parse_tools(golden(name));
  INFO(name << ": " << (tools ? "" : tools.error().message));
  REQUIRE(tools.ok());
  return tools.value();
}

inline std::string render_ok(const format::ChatFormat& f, const std::vector<format::Message>& conv,
                             const format::RenderOptions& opts) {
  auto r = f.render(conv, opts);
  INFO((r ? "" : r.error().message));
  REQUIRE(r.ok());
  return r.value().prompt;
}

inline bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (int k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

struct StreamRun {
  format::ParseResult result;
  std::vector<format::MessageDelta> deltas;
};

inline StreamRun run_pieces(const format::ChatFormat& f, const format::ParseOptions& opts,
                            const std::vector<std::string_view>& pieces,
                            format::FinishReason end = format::FinishReason::stop) {
  auto p = f.make_parser(opts);
  StreamRun run;
  for (auto piece : pieces) {
    auto d = p->feed(piece);
    run.deltas.insert(run.deltas.end(), d.begin(), d.end());
  }
  auto d = p->finish(end);
  run.deltas.insert(run.deltas.end(), d.begin(), d.end());
  run.result = p->result();
  return run;
}

// Checks one run against the reference: same message, finish reason and warnings; the deltas
// accumulate to the message; every delta holds whole code points.
inline void check_run(const StreamRun& run, const StreamRun& ref, const std::string& how) {
  INFO("fed " << how);
  CHECK(run.result.message == ref.result.message);
  CHECK(run.result.finish_reason == ref.result.finish_reason);
  CHECK(run.result.warnings.size() == ref.result.warnings.size());
  format::MessageDelta acc;
  for (const auto& d : run.deltas) {
    for (const auto& p : d.contents) CHECK(valid_utf8(p.text));
    CHECK(valid_utf8(d.reasoning));
    acc.accumulate(d);
  }
  format::Message m = acc.finish();
  m.name = run.result.message.name;
  CHECK(m == run.result.message);
}

// Parses `output` fed in every way the harness knows and returns the (identical) result.
inline format::ParseResult parse_every_way(const format::ChatFormat& f,
                                           const format::ParseOptions& opts,
                                           std::string_view output) {
  const StreamRun ref = run_pieces(f, opts, {output});
  std::vector<std::string_view> bytes;
  for (size_t i = 0; i < output.size(); ++i) bytes.push_back(output.substr(i, 1));
  check_run(run_pieces(f, opts, bytes), ref, "byte by byte");
  for (size_t cut = 0; cut <= output.size(); ++cut)
    check_run(run_pieces(f, opts, {output.substr(0, cut), output.substr(cut)}), ref,
              "split at " + std::to_string(cut));
  std::mt19937 rng(1234);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string_view> pieces;
    for (size_t at = 0; at < output.size();) {
      const size_t n = std::min<size_t>(output.size() - at, 1 + rng() % 7);
      pieces.push_back(output.substr(at, n));
      at += n;
    }
    check_run(run_pieces(f, opts, pieces), ref, "random pieces, round " + std::to_string(round));
  }
  // Truncated output: every prefix finishes (with a message whose deltas accumulate to it).
  for (size_t cut = 0; cut < output.size(); ++cut) {
    const StreamRun t = run_pieces(f, opts, {output.substr(0, cut)}, format::FinishReason::length);
    check_run(t, t, "truncated at " + std::to_string(cut));
  }
  return ref.result;
}

// The text a model writes for the last message of `conv`: the render of `conv` without the
// generation prompt, minus the render of conv[0..n-1] with it, cut at the first stop string.
inline std::string model_output(const format::ChatFormat& f,
                                const std::vector<format::Message>& conv,
                                format::RenderOptions opts, bool cut_at_stop = true) {
  std::vector<format::Message> head(conv.begin(), conv.end() - 1);
  opts.add_generation_prompt = true;
  auto prompt = f.render(head, opts);
  REQUIRE(prompt.ok());
  opts.add_generation_prompt = false;
  auto full = f.render(conv, opts);
  REQUIRE(full.ok());
  const std::string& p = prompt.value().prompt;
  INFO("prompt: " << p << "\nfull: " << full.value().prompt);
  REQUIRE(full.value().prompt.compare(0, p.size(), p) == 0);
  std::string out = full.value().prompt.substr(p.size());
  if (cut_at_stop)
    for (const auto& s : prompt.value().stop_sequences)
      if (auto at = out.find(s); at != std::string::npos) out.resize(at);
  return out;
}

}  // namespace ai00::test
