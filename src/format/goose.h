// RWKV Goose / G1 chat format (seed 001): "System: …\n\nUser: …\n\nAssistant: …\n\nAssistant:".
//
// * In content, "\r\n" → "\n", runs of blank lines → one "\n", then trimmed: "\n\n" is the
//   model's round separator. The prompt never ends in whitespace: the generation prompt is
//   "Assistant:" with no trailing space (the model writes it; the parser drops that one space).
// * Thinking (models dated 2025-09-22 or later): " think a bit", " think" or " think a lot" is
//   appended to the last user message, and the prompt ends in "Assistant: <think" with the
//   bracket left open. The parser then starts in reasoning and first consumes the ">" that
//   completes the tag. Earlier reasoning is rendered as "<think>\n…\n</think>\n" before content.
// * A speaker name replaces the role label ("Alice: …"); names may not contain ':' or newlines.
// * Stop "\n\n" and token 0. Token 0 is not prepended unless GooseOptions::prepend_token0.
// * Seed 001 defines no tool syntax: tools, tool calls and tool messages are refused with an
//   unsupported error (use ai00-v1 for tool use with G1 models).
//
// Threading: the format is immutable; parsers are per stream.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/format.h"

namespace ai00::internal::format {

struct GooseOptions {
  // seed 001 "Token 0 Prefix": ask the caller to feed token 0 before the prompt. Off because
  // ai00 starts every State from its initial state. RenderOptions::prepend_token0 overrides it.
  bool prepend_token0 = false;
  // The thinking tiers of seed 001, appended to the last user message.
  std::string think_a_bit = " think a bit";  // tier 1: about 1–4K thinking tokens
  std::string think = " think";              // tier 2: about 4–16K
  std::string think_a_lot = " think a lot";  // tier 3: 16K and more
};

std::shared_ptr<const ChatFormat> make_goose(const GooseOptions& options = {});

// Recommended sampling parameters of seeds 000/001 as plain data; the sampler maps them.
// Ranges in the seed are pinned to one value: creative top_p 0.6–0.8 → 0.7, presence 1–2 → 1.5,
// frequency 0–0.2 → 0.1. top_k 128 bounds the partial sort (docs/generation.md "Sampling").
struct SamplingPreset {
  std::string_view name;  // "math", "chat" (the library default), "creative"
  float temperature;
  float top_p;
  float presence_penalty;
  float frequency_penalty;
  float penalty_decay;
  int top_k;
};

const std::vector<SamplingPreset>& goose_sampling_presets();
std::optional<SamplingPreset> goose_sampling_preset(std::string_view name);

// The suffix appended to the last user message for a thinking level ("" for off).
std::string_view goose_thinking_suffix(Thinking t);

}  // namespace ai00::internal::format
