// Flags shared by `ai00 generate` and `ai00 chat`: the model, the sampler and the turn settings,
// turned into the public C++ API's types (include/ai00/ai00.hpp). These subcommands use only
// the public API, like any application would.
#pragma once

#include <ai00/ai00.hpp>
#include <string>
#include <vector>

#include "command.h"

namespace ai00::cli {

// Value flags and switches understood by sampler_flags() / generate_options().
inline const std::vector<std::string>& sampler_value_flags() {
  static const std::vector<std::string> flags = {
      "--model",       "--vocab",      "--threads", "--isa",        "--preset",   "--sampler",
      "--temperature", "--top-p",      "--top-k",   "--min-p",      "--presence", "--frequency",
      "--decay",       "--repetition", "--seed",    "--max-tokens", "--stop"};
  return flags;
}

inline ai00::Model load_model_flag(const Args& args) {
  ai00::ModelOptions mo;
  mo.n_threads = static_cast<int32_t>(args.get_int("--threads", 1, 1, INT32_MAX));
  mo.vocab_path = args.get("--vocab").value_or("");
  mo.forced_isa = args.get("--isa").value_or("");
  return ai00::Model::load(args.require("--model"), mo);
}

// --preset chat|math|creative|ai00, then --sampler and the per-field overrides.
inline ai00::SamplerParams sampler_flags(const Args& args) {
  ai00::SamplerParams p;
  if (auto preset = args.get("--preset")) {
    if (*preset == "chat")
      p = ai00::SamplerParams::preset(AI00_PRESET_CHAT);
    else if (*preset == "math")
      p = ai00::SamplerParams::preset(AI00_PRESET_MATH);
    else if (*preset == "creative")
      p = ai00::SamplerParams::preset(AI00_PRESET_CREATIVE);
    else if (*preset == "ai00")
      p = ai00::SamplerParams::preset(AI00_PRESET_AI00_SERVER);
    else
      throw UsageError("--preset must be chat, math, creative or ai00, got '" + *preset + "'");
  }
  if (auto m = args.get("--sampler")) {
    if (*m == "nucleus")
      p.method = AI00_SAMPLER_NUCLEUS;
    else if (*m == "typical")
      p.method = AI00_SAMPLER_TYPICAL;
    else if (*m == "mirostat")
      p.method = AI00_SAMPLER_MIROSTAT_V2;
    else if (*m == "greedy")
      p.method = AI00_SAMPLER_GREEDY;
    else
      throw UsageError("--sampler must be nucleus, typical, mirostat or greedy, got '" + *m + "'");
  }
  auto f = [&](const char* flag, float& field) {
    field = static_cast<float>(args.get_double(flag, field));
  };
  f("--temperature", p.temperature);
  f("--top-p", p.top_p);
  f("--min-p", p.min_p);
  f("--presence", p.presence_penalty);
  f("--frequency", p.frequency_penalty);
  f("--decay", p.penalty_decay);
  f("--repetition", p.repetition_penalty);
  long long k = args.get_int("--top-k", p.top_k, 0, UINT32_MAX);
  p.top_k = static_cast<uint32_t>(k);
  if (args.has("--ban-eos")) p.ban_eos = 1;
  return p;
}

inline ai00::GenerateOptions generate_options(const Args& args) {
  ai00::GenerateOptions o;
  o.sampler = sampler_flags(args);
  long long max = args.get_int("--max-tokens", 256, 1, UINT32_MAX);
  o.max_tokens = static_cast<uint32_t>(max);
  if (args.has("--seed")) o.seed = static_cast<uint64_t>(args.get_int("--seed", 0, 0, LLONG_MAX));
  if (auto s = args.get("--stop")) o.stop_sequences.push_back(*s);
  return o;
}

inline const char* finish_name(ai00::FinishReason r) {
  switch (r) {
    case ai00::FinishReason::stop:
      return "stop";
    case ai00::FinishReason::length:
      return "length";
    case ai00::FinishReason::tool_calls:
      return "tool_calls";
    case ai00::FinishReason::cancelled:
      return "cancelled";
    case ai00::FinishReason::grammar_done:
      return "grammar_done";
    case ai00::FinishReason::error:
      return "error";
    case ai00::FinishReason::none:
      break;
  }
  return "none";
}

}  // namespace ai00::cli
