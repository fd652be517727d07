package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
// ai00_status ai00go_model_convert(const char* path_in, size_t path_in_len, const char* path_out, size_t path_out_len, ai00_convert_params* params, uintptr_t handle);
import "C"

import (
	"context"
	"runtime/cgo"
	"unsafe"
)

// WeightType is the weight type of a converted file (ai00_weight_type).
type WeightType int32

// Weight types.
const (
	WeightF32  WeightType = C.AI00_WEIGHT_F32
	WeightF16  WeightType = C.AI00_WEIGHT_F16
	WeightBF16 WeightType = C.AI00_WEIGHT_BF16
	WeightQ8_0 WeightType = C.AI00_WEIGHT_Q8_0
	WeightQ4_0 WeightType = C.AI00_WEIGHT_Q4_0
	WeightQ4_1 WeightType = C.AI00_WEIGHT_Q4_1
	WeightQ5_0 WeightType = C.AI00_WEIGHT_Q5_0
	WeightQ5_1 WeightType = C.AI00_WEIGHT_Q5_1
)

// FileFormat is the container of a converted file (ai00_file_format).
type FileFormat int32

// File formats.
const (
	FileGGUF        FileFormat = C.AI00_FILE_GGUF
	FileSafetensors FileFormat = C.AI00_FILE_SAFETENSORS // F32, F16 and BF16 only
)

// ConvertParams are conversion options (ai00_convert_params); nil means the defaults.
type ConvertParams struct {
	WeightType WeightType
	FileFormat FileFormat
	Overwrite  bool   // replace an existing output file (else ErrIO)
	VocabPath  string // a vocabulary for a source without one, or ""
	// Progress, if set, is called on the converting goroutine with done of total bytes of
	// tensor data; returning false stops the conversion (ErrCancelled, nothing written).
	Progress func(done, total uint64) bool
}

// DefaultConvertParams are the library's defaults (F16, GGUF, no overwrite).
func DefaultConvertParams() ConvertParams {
	var p C.ai00_convert_params
	p.struct_size = C.sizeof_ai00_convert_params
	C.ai00_convert_params_default(&p)
	return ConvertParams{WeightType: WeightType(p.weight_type), FileFormat: FileFormat(p.file_format),
		Overwrite: p.overwrite != 0}
}

// ConvertModel rewrites the weight file pathIn as pathOut (GGUF or ai00 safetensors, in one
// weight type), through a temporary file renamed into place, so pathOut never holds a partial
// file. A cancelled ctx stops it at the next progress report (ErrCancelled).
func ConvertModel(ctx context.Context, pathIn, pathOut string, params *ConvertParams) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if params == nil {
		d := DefaultConvertParams()
		params = &d
	}
	p := (*C.ai00_convert_params)(C.calloc(1, C.sizeof_ai00_convert_params))
	defer C.free(unsafe.Pointer(p))
	C.ai00_convert_params_default(p)
	p.weight_type = C.int32_t(params.WeightType)
	p.file_format = C.int32_t(params.FileFormat)
	p.overwrite = boolInt(params.Overwrite)
	p.vocab_path, _ = cstr(params.VocabPath)
	defer freeStr(p.vocab_path)
	in := C.CString(pathIn)
	defer C.free(unsafe.Pointer(in))
	out := C.CString(pathOut)
	defer C.free(unsafe.Pointer(out))
	user := params.Progress
	sink := &progressSink{fn: func(done, total uint64) bool {
		if ctx.Err() != nil {
			return false
		}
		return user == nil || user(done, total)
	}}
	h := cgo.NewHandle(sink)
	defer h.Delete()
	err := call(func() C.ai00_status {
		return C.ai00go_model_convert(in, C.size_t(len(pathIn)), out, C.size_t(len(pathOut)), p,
			C.uintptr_t(h))
	})
	if sink.panic != nil {
		panic(sink.panic)
	}
	return err
}

// Limits are the process-wide resource limits (ai00_limits) every parser, compiler and loader
// checks before the work they bound. Zero is never a valid value.
type Limits struct {
	MaxNestingDepth  uint32 // grammar groups, JSON nesting, pickle MARKs: 256 (<= 1000)
	MaxThreads       uint32 // model threads: 1024
	MaxGrammarStates uint64 // DFA states of one grammar: 50,000
	MaxNFAStates     uint64 // NFA states of one grammar terminal: 200,000
	MaxInputBytes    uint64 // one text input: 64 MiB
	MaxFileBytes     uint64 // one file the library opens: 1 TiB
	MaxStringBytes   uint64 // one KBNF literal, regex or #substrs text: 1 MiB
	MaxTokens        uint64 // tokens of one prompt or generation: 16 Mi
}

func limitsFromC(l *C.ai00_limits) Limits {
	return Limits{MaxNestingDepth: uint32(l.max_nesting_depth), MaxThreads: uint32(l.max_threads),
		MaxGrammarStates: uint64(l.max_grammar_states), MaxNFAStates: uint64(l.max_nfa_states),
		MaxInputBytes: uint64(l.max_input_bytes), MaxFileBytes: uint64(l.max_file_bytes),
		MaxStringBytes: uint64(l.max_string_bytes), MaxTokens: uint64(l.max_tokens)}
}

// DefaultLimits are the documented defaults (ai00_limits_default).
func DefaultLimits() Limits {
	var l C.ai00_limits
	l.struct_size = C.sizeof_ai00_limits
	C.ai00_limits_default(&l)
	return limitsFromC(&l)
}

// GetLimits are the limits in force (ai00_limits_get).
func GetLimits() (Limits, error) {
	var l C.ai00_limits
	l.struct_size = C.sizeof_ai00_limits
	if err := call(func() C.ai00_status { return C.ai00_limits_get(&l) }); err != nil {
		return Limits{}, err
	}
	return limitsFromC(&l), nil
}

// SetLimits replaces the process-wide limits for calls that start afterwards, on every
// goroutine (ai00_limits_set). A zero field or a nesting depth above 1000 is ErrInvalidArgument
// and nothing changes.
func SetLimits(limits Limits) error {
	var l C.ai00_limits
	l.struct_size = C.sizeof_ai00_limits
	C.ai00_limits_default(&l)
	l.max_nesting_depth = C.uint32_t(limits.MaxNestingDepth)
	l.max_threads = C.uint32_t(limits.MaxThreads)
	l.max_grammar_states = C.uint64_t(limits.MaxGrammarStates)
	l.max_nfa_states = C.uint64_t(limits.MaxNFAStates)
	l.max_input_bytes = C.uint64_t(limits.MaxInputBytes)
	l.max_file_bytes = C.uint64_t(limits.MaxFileBytes)
	l.max_string_bytes = C.uint64_t(limits.MaxStringBytes)
	l.max_tokens = C.uint64_t(limits.MaxTokens)
	return call(func() C.ai00_status { return C.ai00_limits_set(&l) })
}
