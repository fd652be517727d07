// Shared helpers of the forward/state tests: the random fixture's tokens and expected outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fixtures.h"

namespace ai00::test {
using namespace ::ai00::internal;  // test helpers of the internal layers

// The random multi-head fixture in the float formats (same weights, same expected outputs);
// the .pth variant is tested on its own.
inline const char* const kRandFloatFiles[] = {
    "rand-rwkv7-c128-l3-v512-FP32.bin", "rand-rwkv7-c128-l3-v512-FP16.bin",
    "rand-rwkv7-c128-l3-v512.st", "rand-rwkv7-c128-l3-v512-F16.gguf"};

struct RandFixture {
  std::vector<uint32_t> tokens;          // 32 tokens
  std::vector<float> logits;             // [32][512] from the zero state
  std::vector<float> state_after;        // rwkv.cpp layout after the 32 tokens
  std::vector<float> logits_from_state;  // [32][512] from init.state
};

// Reads the tokens out of rand-…-tokens.json (the only array of plain integers after "tokens").
inline RandFixture load_rand_fixture() {
  RandFixture f;
  const std::string pre = "models/rand-rwkv7-c128-l3-v512-";
  const std::string json = read_text(shared_path(pre + "tokens.json"));
  size_t p = json.find('[', json.find("\"tokens\""));
  const size_t end = json.find(']', p);
  while (p < end) {
    p = json.find_first_of("0123456789", p);
    if (p >= end) break;
    size_t q = json.find_first_not_of("0123456789", p);
    f.tokens.push_back(static_cast<uint32_t>(std::stoul(json.substr(p, q - p))));
    p = q;
  }
  f.logits = read_f32(shared_path(pre + "logits.bin"));
  f.state_after = read_f32(shared_path(pre + "state-after.bin"));
  f.logits_from_state = read_f32(shared_path(pre + "logits-from-state.bin"));
  return f;
}

}  // namespace ai00::test
