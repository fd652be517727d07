package ai00

// #include <ai00/ai00.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// Tokenizer is an RWKV World tokenizer: immutable, safe for concurrent use.
type Tokenizer struct {
	ptr *C.ai00_tokenizer
}

func wrapTokenizer(p *C.ai00_tokenizer) *Tokenizer {
	t := &Tokenizer{ptr: p}
	runtime.SetFinalizer(t, (*Tokenizer).Close)
	return t
}

// LoadTokenizer loads an RWKV World vocabulary file (rwkv_vocab_v20230424.txt format).
func LoadTokenizer(path string) (*Tokenizer, error) {
	cp, n := cbytes([]byte(path))
	var p *C.ai00_tokenizer
	if err := call(func() C.ai00_status { return C.ai00_tokenizer_load(&p, cp, n) }); err != nil {
		return nil, err
	}
	return wrapTokenizer(p), nil
}

// TokenizerFromModel is the model's tokenizer; it stays valid after the model is closed.
func TokenizerFromModel(m *Model) (*Tokenizer, error) {
	mp, err := m.raw()
	if err != nil {
		return nil, err
	}
	var p *C.ai00_tokenizer
	if err := call(func() C.ai00_status { return C.ai00_tokenizer_from_model(&p, mp) }); err != nil {
		return nil, err
	}
	return wrapTokenizer(p), nil
}

// Close frees the tokenizer. Idempotent.
func (t *Tokenizer) Close() error {
	if t.ptr != nil {
		C.ai00_tokenizer_free(t.ptr)
		t.ptr = nil
		runtime.SetFinalizer(t, nil)
	}
	return nil
}

func (t *Tokenizer) raw() *C.ai00_tokenizer {
	if t == nil {
		return nil
	}
	return t.ptr
}

// VocabSize is the number of ids it knows (id 0 included).
func (t *Tokenizer) VocabSize() (uint32, error) {
	var n C.uint32_t
	err := call(func() C.ai00_status { return C.ai00_tokenizer_vocab_size(&n, t.raw()) })
	return uint32(n), err
}

// Encode encodes any bytes into ids (greedy longest match).
func (t *Tokenizer) Encode(data []byte) ([]uint32, error) {
	d, n := cbytes(data)
	return twoCallTokens(func(out *C.size_t, buf unsafe.Pointer, c C.size_t) C.ai00_status {
		return C.ai00_tokenizer_encode(out, (*C.uint32_t)(buf), c, t.raw(), d, n)
	})
}

// Decode decodes ids into the exact bytes they stand for, stopping at id 0.
func (t *Tokenizer) Decode(tokens []uint32) ([]byte, error) {
	ids, n := tokensPtr(tokens)
	return twoCallBytes(func(out *C.size_t, buf unsafe.Pointer, c C.size_t) C.ai00_status {
		return C.ai00_tokenizer_decode(out, (*C.char)(buf), c, t.raw(), ids, n)
	})
}

// LastError is the message of the last failed call on this tokenizer.
func (t *Tokenizer) LastError() string {
	return C.GoString(C.ai00_tokenizer_last_error(t.raw()))
}
