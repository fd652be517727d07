package ai00

// #include <stdlib.h>
// #include <string.h>
// #include <ai00/ai00.h>
import "C"

import "unsafe"

// ScoreParams say where the first candidate token's probabilities come from: exactly one of
// Context (tokens fed to a copy of the State first) or Logits (the State's last logits).
type ScoreParams struct {
	Context []uint32
	Logits  []float32
}

// Score is one candidate's natural-log probability (ai00_option_score).
type Score struct {
	TotalLogprob float64
	MeanLogprob  float64
	Tokens       int
}

// scoreCall fills the C score params (in C memory) and runs f with them.
func scoreCall(params *ScoreParams, k int, f func(out *C.ai00_option_score, p *C.ai00_score_params) C.ai00_status) ([]Score, error) {
	p := (*C.ai00_score_params)(C.calloc(1, C.sizeof_ai00_score_params))
	defer C.free(unsafe.Pointer(p))
	p.struct_size = C.sizeof_ai00_score_params
	if err := call(func() C.ai00_status { return C.ai00_score_params_default(p) }); err != nil {
		return nil, err
	}
	if params != nil && params.Context != nil {
		ctx := (*C.uint32_t)(cArray(len(params.Context), 4))
		defer C.free(unsafe.Pointer(ctx))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(ctx)), len(params.Context)), params.Context)
		p.context, p.n_context = ctx, C.size_t(len(params.Context))
	}
	if params != nil && params.Logits != nil {
		lg := (*C.float)(cArray(len(params.Logits), 4))
		defer C.free(unsafe.Pointer(lg))
		copy(unsafe.Slice((*float32)(unsafe.Pointer(lg)), len(params.Logits)), params.Logits)
		p.logits, p.n_logits = lg, C.size_t(len(params.Logits))
	}
	out := make([]C.ai00_option_score, k+1)
	if err := call(func() C.ai00_status { return f(&out[0], p) }); err != nil {
		return nil, err
	}
	scores := make([]Score, k)
	for i := range scores {
		scores[i] = Score{float64(out[i].total_logprob), float64(out[i].mean_logprob), int(out[i].n_tokens)}
	}
	return scores, nil
}

// ScoreOptions is how likely the State continues with each candidate token sequence
// (ai00_state_score_options): log-probabilities of the raw logits, no sampler settings. The
// State is not changed. No candidates, an empty one or an id out of range is ErrInvalidArgument.
func (s *State) ScoreOptions(candidates [][]uint32, params *ScoreParams) ([]Score, error) {
	sp, err := s.raw()
	if err != nil {
		return nil, err
	}
	mp, err := s.model.raw()
	if err != nil {
		return nil, err
	}
	k := len(candidates)
	ptrs := (**C.uint32_t)(cArray(k, unsafe.Sizeof((*C.uint32_t)(nil))))
	defer C.free(unsafe.Pointer(ptrs))
	lens := (*C.size_t)(cArray(k, unsafe.Sizeof(C.size_t(0))))
	defer C.free(unsafe.Pointer(lens))
	pv, lv := unsafe.Slice(ptrs, k), unsafe.Slice(lens, k)
	for i, c := range candidates {
		row := (*C.uint32_t)(cArray(len(c), 4))
		defer C.free(unsafe.Pointer(row))
		copy(unsafe.Slice((*uint32)(unsafe.Pointer(row)), len(c)), c)
		pv[i], lv[i] = row, C.size_t(len(c))
	}
	return scoreCall(params, k, func(out *C.ai00_option_score, p *C.ai00_score_params) C.ai00_status {
		return C.ai00_state_score_options(out, C.size_t(k), mp, sp, ptrs, lens, C.size_t(k), p)
	})
}

// ScoreTexts is ScoreOptions with texts, each encoded alone (a new word usually starts with a
// space).
func (s *State) ScoreTexts(texts []string, params *ScoreParams) ([]Score, error) {
	sp, err := s.raw()
	if err != nil {
		return nil, err
	}
	mp, err := s.model.raw()
	if err != nil {
		return nil, err
	}
	k := len(texts)
	ptrs := (**C.char)(cArray(k, unsafe.Sizeof((*C.char)(nil))))
	defer C.free(unsafe.Pointer(ptrs))
	lens := (*C.size_t)(cArray(k, unsafe.Sizeof(C.size_t(0))))
	defer C.free(unsafe.Pointer(lens))
	pv, lv := unsafe.Slice(ptrs, k), unsafe.Slice(lens, k)
	for i, t := range texts {
		pv[i], lv[i] = C.CString(t), C.size_t(len(t))
		defer C.free(unsafe.Pointer(pv[i]))
	}
	return scoreCall(params, k, func(out *C.ai00_option_score, p *C.ai00_score_params) C.ai00_status {
		return C.ai00_state_score_texts(out, C.size_t(k), mp, sp, ptrs, lens, C.size_t(k), p)
	})
}
