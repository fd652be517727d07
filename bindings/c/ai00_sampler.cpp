// Sampler parameters of the C ABI: defaults, presets and the conversion to core SamplerParams.
#include <cmath>
#include <string>

#include "abi_state.h"

namespace {

void from_core(const ai00::internal::SamplerParams& p, ai00_sampler_params* out) {
  *out = ai00_sampler_params{};
  out->struct_size = sizeof(ai00_sampler_params);
  out->method = static_cast<int32_t>(p.method);
  out->temperature = p.temperature;
  out->top_k = p.top_k;
  out->top_p = p.top_p;
  out->min_p = p.min_p;
  out->typical_tau = p.typical_tau;
  out->mirostat_tau = p.mirostat_tau;
  out->mirostat_rate = p.mirostat_rate;
  out->presence_penalty = p.presence_penalty;
  out->frequency_penalty = p.frequency_penalty;
  out->penalty_decay = p.penalty_decay;
  out->repetition_penalty = p.repetition_penalty;
  out->ban_eos = p.ban_eos ? 1 : 0;
}

}  // namespace

namespace ai00::internal::abi {

SamplerParams sampler_params(const ai00_sampler_params* c, const char* function) {
  SamplerParams p;
  if (c == nullptr) return p;
  check_struct_size(c->struct_size, sizeof(ai00_sampler_params), sizeof(ai00_sampler_params),
                    function, "ai00_sampler_params");
  if (c->method < AI00_SAMPLER_NUCLEUS || c->method > AI00_SAMPLER_GREEDY) {
    throw InvalidArgument(std::string(function) + ": ai00_sampler_params.method = " +
                          std::to_string(c->method) + " is not an ai00_sampler_method");
  }
  p.method = static_cast<SamplerMethod>(c->method);
  p.temperature = c->temperature;
  p.top_k = c->top_k;
  p.top_p = c->top_p;
  p.min_p = c->min_p;
  p.typical_tau = c->typical_tau;
  p.mirostat_tau = c->mirostat_tau;
  p.mirostat_rate = c->mirostat_rate;
  p.presence_penalty = c->presence_penalty;
  p.frequency_penalty = c->frequency_penalty;
  p.penalty_decay = c->penalty_decay;
  p.repetition_penalty = c->repetition_penalty;
  p.ban_eos = c->ban_eos != 0;
  if (c->n_logit_bias > 0) require(c->logit_bias, function, "ai00_sampler_params.logit_bias");
  for (size_t i = 0; i < c->n_logit_bias; ++i) {
    p.logit_bias.push_back(LogitBias{c->logit_bias[i].token, c->logit_bias[i].bias});
  }
  validate(p);  // InvalidArgument naming the field and its value
  return p;
}

}  // namespace ai00::internal::abi

extern "C" {

AI00_API ai00_status ai00_sampler_params_default(ai00_sampler_params* out_params) {
  try {
    ai00::internal::abi::require(out_params, "ai00_sampler_params_default", "out_params");
    from_core(ai00::internal::SamplerParams{}, out_params);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_sampler_params_preset(ai00_sampler_params* out_params, int32_t preset) {
  try {
    ai00::internal::abi::require(out_params, "ai00_sampler_params_preset", "out_params");
    switch (preset) {
      case AI00_PRESET_CHAT:
        from_core(ai00::internal::goose_preset(ai00::internal::GoosePreset::chat), out_params);
        break;
      case AI00_PRESET_MATH:
        from_core(ai00::internal::goose_preset(ai00::internal::GoosePreset::math), out_params);
        break;
      case AI00_PRESET_CREATIVE:
        from_core(ai00::internal::goose_preset(ai00::internal::GoosePreset::creative), out_params);
        break;
      case AI00_PRESET_AI00_SERVER:
        from_core(ai00::internal::ai00_server_defaults(), out_params);
        break;
      default:
        throw ai00::internal::InvalidArgument("ai00_sampler_params_preset: preset " +
                                              std::to_string(preset) +
                                              " is not an ai00_sampler_preset");
    }
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

}  // extern "C"
