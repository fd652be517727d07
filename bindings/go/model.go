package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
// ai00_status ai00go_model_load(ai00_model** out_model, const char* path, size_t path_len,
//                               ai00_model_params* params, uintptr_t handle);
import "C"

import (
	"runtime"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// ModelOptions are load options (ai00_model_params); nil means the defaults.
type ModelOptions struct {
	// Threads of the model's pool (>= 1; 0 means the default, 1). Results do not depend on it.
	Threads int
	// ISA to force ("scalar", "sse2", "avx2", "avx512", "neon64"), or "" for the best.
	ForcedISA string
	// An RWKV World vocabulary file for a weight file that carries none, or "".
	VocabPath string
	// Progress, if set, is called on the loading goroutine with done of total bytes of tensor
	// data: done never decreases, and the last call, on success only, is (total, total).
	// Returning false cancels the load (ErrCancelled, no Model); a panic in it cancels the load
	// too and is re-raised once the library has returned.
	Progress func(done, total uint64) bool
	// Activations of every evaluation on the model: ActivationsDot (the zero value, the
	// default) or ActivationsExact. Another value fails the load with ErrInvalidArgument.
	Activations Activations
}

// Activations are the activations of the matrix products on quantized and BF16 weights
// (ai00_activations).
type Activations int32

const (
	// ActivationsDot: int8 / bf16 dot products where the weights allow (logits within about
	// 0.05 of exact, so greedy tokens can differ where the top two logits are that close).
	ActivationsDot Activations = C.AI00_ACTIVATIONS_DOT
	// ActivationsExact: fp32 activations everywhere, the reference computation's logits; slower.
	ActivationsExact Activations = C.AI00_ACTIVATIONS_EXACT
)

// ModelInfo is the shape of a loaded model (ai00_model_info).
type ModelInfo struct {
	Layers, Embd, Heads, HeadSize, Vocab, Tokens, Threads uint32
	StateBytes                                            uint64
}

// Model is a loaded model: immutable, safe for concurrent use by any number of goroutines.
// Close it when done; the C model is freed once it is closed and every State made from it is
// closed too (the header forbids freeing a model whose States are in use).
type Model struct {
	mu     sync.Mutex
	ptr    *C.ai00_model
	states int
	closed bool
}

// LoadModel loads a weight file (GGUF, safetensors/.st, rwkv.cpp .bin, PyTorch .pth).
func LoadModel(path string, opts *ModelOptions) (*Model, error) {
	var p C.ai00_model_params
	C.ai00_model_params_default(&p)
	if opts != nil {
		if opts.Threads != 0 {
			p.n_threads = C.int32_t(opts.Threads)
		}
		if opts.ForcedISA != "" {
			p.forced_isa = C.CString(opts.ForcedISA)
			defer C.free(unsafe.Pointer(p.forced_isa))
		}
		p.activations = C.int32_t(opts.Activations)
		if opts.VocabPath != "" {
			p.vocab_path = C.CString(opts.VocabPath)
			defer C.free(unsafe.Pointer(p.vocab_path))
		}
	}
	cpath, n := cbytes([]byte(path))
	var m *C.ai00_model
	var sink *progressSink
	handle := C.uintptr_t(0)
	if opts != nil && opts.Progress != nil {
		sink = &progressSink{fn: opts.Progress}
		h := cgo.NewHandle(sink)
		defer h.Delete()
		handle = C.uintptr_t(h)
	}
	err := call(func() C.ai00_status { return C.ai00go_model_load(&m, cpath, n, &p, handle) })
	if sink != nil && sink.panic != nil {
		if err == nil {
			C.ai00_model_free(m)
		}
		panic(sink.panic)
	}
	if err != nil {
		return nil, err
	}
	model := &Model{ptr: m}
	runtime.SetFinalizer(model, (*Model).Close)
	return model, nil
}

// Close releases the model (freed now, or when its last State is closed). Idempotent.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		runtime.SetFinalizer(m, nil)
		m.freeIfUnused()
	}
	return nil
}

func (m *Model) freeIfUnused() {
	if m.closed && m.states == 0 && m.ptr != nil {
		C.ai00_model_free(m.ptr)
		m.ptr = nil
	}
}

// acquire registers a State of the model; release unregisters it.
func (m *Model) acquire() (*C.ai00_model, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, closedError("model")
	}
	m.states++
	return m.ptr, nil
}

func (m *Model) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.states--
	m.freeIfUnused()
}

func (m *Model) raw() (*C.ai00_model, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, closedError("model")
	}
	return m.ptr, nil
}

// Info is the model's shape.
func (m *Model) Info() (ModelInfo, error) {
	p, err := m.raw()
	if err != nil {
		return ModelInfo{}, err
	}
	var i C.ai00_model_info
	i.struct_size = C.uint32_t(unsafe.Sizeof(i))
	if err := call(func() C.ai00_status { return C.ai00_model_get_info(&i, p) }); err != nil {
		return ModelInfo{}, err
	}
	return ModelInfo{uint32(i.n_layer), uint32(i.n_embd), uint32(i.n_head), uint32(i.head_size),
		uint32(i.n_vocab), uint32(i.n_tokens), uint32(i.n_threads), uint64(i.state_bytes)}, nil
}

// ISAName is the kernel ISA chosen at load ("avx2", ...).
func (m *Model) ISAName() (string, error) {
	p, err := m.raw()
	if err != nil {
		return "", err
	}
	var name *C.char
	if err := call(func() C.ai00_status { return C.ai00_model_isa_name(&name, p) }); err != nil {
		return "", err
	}
	return C.GoString(name), nil
}

// InfoJSON describes the model as one JSON object (what `ai00 info` prints).
func (m *Model) InfoJSON() (string, error) {
	p, err := m.raw()
	if err != nil {
		return "", err
	}
	b, err := twoCallBytes(func(out *C.size_t, buf unsafe.Pointer, c C.size_t) C.ai00_status {
		return C.ai00_model_info_json(out, (*C.char)(buf), c, p)
	})
	return string(b), err
}

// Tokenize encodes text into token ids with the model's tokenizer.
func (m *Model) Tokenize(text string) ([]uint32, error) {
	p, err := m.raw()
	if err != nil {
		return nil, err
	}
	tp, tn := cbytes([]byte(text))
	return twoCallTokens(func(out *C.size_t, buf unsafe.Pointer, c C.size_t) C.ai00_status {
		return C.ai00_model_tokenize(out, (*C.uint32_t)(buf), c, p, tp, tn)
	})
}

// Detokenize decodes ids into valid UTF-8, stopping at id 0.
func (m *Model) Detokenize(tokens []uint32) (string, error) {
	p, err := m.raw()
	if err != nil {
		return "", err
	}
	ids, n := tokensPtr(tokens)
	b, err := twoCallBytes(func(out *C.size_t, buf unsafe.Pointer, c C.size_t) C.ai00_status {
		return C.ai00_model_detokenize(out, (*C.char)(buf), c, p, ids, n)
	})
	return string(b), err
}

// LastError is the message of the last failed call on this model (ai00_model_last_error);
// with several goroutines prefer the error each call returns.
func (m *Model) LastError() string {
	p, err := m.raw()
	if err != nil {
		return err.Error()
	}
	return C.GoString(C.ai00_model_last_error(p))
}

func tokensPtr(t []uint32) (*C.uint32_t, C.size_t) {
	if len(t) == 0 {
		return nil, 0
	}
	return (*C.uint32_t)(unsafe.Pointer(&t[0])), C.size_t(len(t))
}
