// Flags shared by `ai00 generate` and `ai00 chat`: the model, the sampler and the turn settings,
// turned into the public C++ API's types (include/ai00/ai00.hpp); --activations also by every
// other command that loads a model (info, logits, serve). These subcommands use only the public
// API, like any application would.
#pragma once

#include <ai00/ai00.hpp>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "command.h"

namespace ai00::cli {

// Value flags and switches understood by sampler_flags() / generate_options().
inline const std::vector<std::string>& sampler_value_flags() {
  static const std::vector<std::string> flags = {
      "--model",       "--vocab",      "--threads", "--isa",        "--preset",   "--sampler",
      "--temperature", "--top-p",      "--top-k",   "--min-p",      "--presence", "--frequency",
      "--decay",       "--repetition", "--seed",    "--max-tokens", "--stop",     "--activations"};
  return flags;
}

// --activations dot|exact (default dot): ai00_model_params.activations. UsageError otherwise.
inline ai00::Activations activations_flag(const Args& args) {
  const std::string v = args.get("--activations").value_or("dot");
  if (v == "dot") return ai00::Activations::dot;
  if (v == "exact") return ai00::Activations::exact;
  throw UsageError("--activations must be dot or exact, got '" + v + "'");
}

inline ai00::Model load_model_flag(const Args& args) {
  ai00::ModelOptions mo;
  mo.n_threads = static_cast<int32_t>(args.get_int("--threads", 1, 1, INT32_MAX));
  mo.vocab_path = args.get("--vocab").value_or("");
  mo.forced_isa = args.get("--isa").value_or("");
  mo.activations = activations_flag(args);
  return ai00::Model::load(args.require("--model"), mo);
}

// The sampling preset NAME of --preset. With `config` (a template made from --config), the
// configuration's presets: math, chat, creative of the Goose spec unless its [presets.NAME]
// tables change them or add others; without, the built-in three. "ai00" is ai00_server's
// defaults. Names match case-insensitively as well (the Goose spec writes Math, Chat, Creative).
// UsageError naming the known presets otherwise.
inline ai00::SamplerParams preset_flag(const std::string& name, const ai00::ChatTemplate* config) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "ai00") return ai00::SamplerParams::preset(AI00_PRESET_AI00_SERVER);
  if (config == nullptr) {
    if (lower == "chat") return ai00::SamplerParams::preset(AI00_PRESET_CHAT);
    if (lower == "math") return ai00::SamplerParams::preset(AI00_PRESET_MATH);
    if (lower == "creative") return ai00::SamplerParams::preset(AI00_PRESET_CREATIVE);
    throw UsageError("--preset: unknown preset '" + name +
                     "' (known: math, chat, creative, ai00; more with --config [presets.NAME])");
  }
  for (const std::string& n : {name, lower}) {
    try {
      ai00::SamplerParams p;
      static_cast<ai00_sampler_params&>(p) = config->sampler_preset(n);
      return p;
    } catch (const ai00::Error& e) {
      if (n != lower) continue;  // then the lower-case spelling
      // The library's message lists the configuration's presets: "... (known: math, ...)".
      const std::string msg = e.what();
      const size_t at = msg.rfind("(known: ");
      const std::string known =
          at == std::string::npos ? msg : msg.substr(at + 8, msg.size() - at - 9);
      throw UsageError("--preset: unknown preset '" + name + "' (known: " + known + ", ai00)");
    }
  }
  throw UsageError("--preset: unknown preset '" + name + "'");
}

// --preset NAME (preset_flag), then --sampler and the per-field overrides, which win over the
// preset.
inline ai00::SamplerParams sampler_flags(const Args& args,
                                         const ai00::ChatTemplate* config = nullptr) {
  ai00::SamplerParams p;
  if (auto preset = args.get("--preset")) p = preset_flag(*preset, config);
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

// --show-sampler: the effective sampler settings on stderr, one line of JSON.
inline void show_sampler(const ai00::SamplerParams& p) {
  std::fprintf(stderr,
               "{\"temperature\": %g, \"top_p\": %g, \"top_k\": %u, \"min_p\": %g, "
               "\"presence_penalty\": %g, \"frequency_penalty\": %g, \"penalty_decay\": %g}\n",
               p.temperature, p.top_p, static_cast<unsigned>(p.top_k), p.min_p, p.presence_penalty,
               p.frequency_penalty, p.penalty_decay);
}

inline ai00::GenerateOptions generate_options(const Args& args,
                                              const ai00::ChatTemplate* config = nullptr) {
  ai00::GenerateOptions o;
  o.sampler = sampler_flags(args, config);
  if (args.has("--show-sampler")) show_sampler(o.sampler);
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
