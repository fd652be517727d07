package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
import "C"

import "unsafe"

// SamplerMethod is an ai00_sampler_method.
type SamplerMethod int32

// Sampling methods.
const (
	SamplerNucleus    SamplerMethod = C.AI00_SAMPLER_NUCLEUS
	SamplerTypical    SamplerMethod = C.AI00_SAMPLER_TYPICAL
	SamplerMirostatV2 SamplerMethod = C.AI00_SAMPLER_MIROSTAT_V2
	SamplerGreedy     SamplerMethod = C.AI00_SAMPLER_GREEDY
)

// SamplerPreset is one of the Goose presets of seed 001 (ai00_sampler_preset).
type SamplerPreset int32

// The presets.
const (
	PresetChat       SamplerPreset = C.AI00_PRESET_CHAT
	PresetMath       SamplerPreset = C.AI00_PRESET_MATH
	PresetCreative   SamplerPreset = C.AI00_PRESET_CREATIVE
	PresetAi00Server SamplerPreset = C.AI00_PRESET_AI00_SERVER
)

// LogitBias is added to one token's logit; math.Inf(-1) bans it.
type LogitBias struct {
	Token uint32
	Bias  float32
}

// SamplerParams are sampler settings (ai00_sampler_params); ranges are checked when used.
type SamplerParams struct {
	Method                            SamplerMethod
	Temperature                       float32
	TopK                              uint32
	TopP, MinP, TypicalTau            float32
	MirostatTau, MirostatRate         float32
	PresencePenalty, FrequencyPenalty float32
	PenaltyDecay, RepetitionPenalty   float32
	BanEOS                            bool
	LogitBias                         []LogitBias
}

func samplerFromC(p *C.ai00_sampler_params) SamplerParams {
	return SamplerParams{
		Method: SamplerMethod(p.method), Temperature: float32(p.temperature), TopK: uint32(p.top_k),
		TopP: float32(p.top_p), MinP: float32(p.min_p), TypicalTau: float32(p.typical_tau),
		MirostatTau: float32(p.mirostat_tau), MirostatRate: float32(p.mirostat_rate),
		PresencePenalty: float32(p.presence_penalty), FrequencyPenalty: float32(p.frequency_penalty),
		PenaltyDecay: float32(p.penalty_decay), RepetitionPenalty: float32(p.repetition_penalty),
		BanEOS: p.ban_eos != 0,
	}
}

// DefaultSamplerParams is the library default (the Goose "chat" preset).
func DefaultSamplerParams() SamplerParams {
	var p C.ai00_sampler_params
	C.ai00_sampler_params_default(&p)
	return samplerFromC(&p)
}

// GreedySamplerParams is argmax decoding after penalties, mask and bias.
func GreedySamplerParams() SamplerParams {
	p := DefaultSamplerParams()
	p.Method = SamplerGreedy
	return p
}

// Preset is one of the presets.
func Preset(preset SamplerPreset) (SamplerParams, error) {
	var p C.ai00_sampler_params
	err := call(func() C.ai00_status { return C.ai00_sampler_params_preset(&p, C.int32_t(preset)) })
	return samplerFromC(&p), err
}

// toC is a C-allocated copy (nil for nil params) and the function that frees it.
func (s *SamplerParams) toC() (*C.ai00_sampler_params, func()) {
	if s == nil {
		return nil, func() {}
	}
	p := (*C.ai00_sampler_params)(C.calloc(1, C.size_t(unsafe.Sizeof(C.ai00_sampler_params{}))))
	C.ai00_sampler_params_default(p)
	p.method = C.int32_t(s.Method)
	p.temperature = C.float(s.Temperature)
	p.top_k = C.uint32_t(s.TopK)
	p.top_p = C.float(s.TopP)
	p.min_p = C.float(s.MinP)
	p.typical_tau = C.float(s.TypicalTau)
	p.mirostat_tau = C.float(s.MirostatTau)
	p.mirostat_rate = C.float(s.MirostatRate)
	p.presence_penalty = C.float(s.PresencePenalty)
	p.frequency_penalty = C.float(s.FrequencyPenalty)
	p.penalty_decay = C.float(s.PenaltyDecay)
	p.repetition_penalty = C.float(s.RepetitionPenalty)
	p.ban_eos = boolInt(s.BanEOS)
	if len(s.LogitBias) > 0 {
		n := len(s.LogitBias)
		arr := (*[1 << 24]C.ai00_logit_bias)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.ai00_logit_bias{}))))[:n:n]
		for i, b := range s.LogitBias {
			arr[i].token = C.uint32_t(b.Token)
			arr[i].bias = C.float(b.Bias)
		}
		p.logit_bias = &arr[0]
		p.n_logit_bias = C.size_t(n)
	}
	return p, func() {
		if p.logit_bias != nil {
			C.free(unsafe.Pointer(p.logit_bias))
		}
		C.free(unsafe.Pointer(p))
	}
}
