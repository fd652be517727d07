// JSON bodies of /v1/chat/completions and /v1/completions -> GenerationRequest (request.h).
// Every refusal is an ApiError 400 whose message and `param` carry the JSON pointer of the
// field (docs/server.md "Request fields" maps each OpenAI field onto the library).
#pragma once

#include <ai00/ai00.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "request.h"

namespace ai00::serve {

struct ParserSettings {
  std::string model_name;            // answered as "model" whatever the client asked
  std::string chat_format;           // default of the `chat_format` extension field
  uint32_t max_tokens_limit = 4096;  // max_tokens above it is a 400
  uint32_t default_max_tokens = 256;
  // Sampling of a request that sets no sampler field (the server's --preset / --temperature ...).
  ai00::SamplerParams default_sampler;
  // The sampling preset `name` of the server's chat template (the `preset` extension field);
  // throws ApiError for an unknown name.
  std::function<ai00::SamplerParams(const std::string& name)> preset;
};

GenerationRequest parse_chat_request(const std::string& body, const ParserSettings& settings);
GenerationRequest parse_completion_request(const std::string& body, const ParserSettings& settings);

}  // namespace ai00::serve
