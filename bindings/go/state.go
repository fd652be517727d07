package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
import "C"

import (
	"runtime"
	"unsafe"
)

// State is one sequence of one model: the recurrent state plus the sampler's seed, RNG and
// penalties. One goroutine at a time. A Generator borrows it for its turn: closing a State
// while a Generator on it is open is refused.
type State struct {
	ptr      *C.ai00_state
	model    *Model
	borrowed bool
}

func wrapState(p *C.ai00_state, m *Model) *State {
	s := &State{ptr: p, model: m}
	runtime.SetFinalizer(s, (*State).Close)
	return s
}

// newState runs a constructor taking the model's handle, registering the State with the model.
func newState(m *Model, f func(out **C.ai00_state, mp *C.ai00_model) C.ai00_status) (*State, error) {
	mp, err := m.acquire()
	if err != nil {
		return nil, err
	}
	var p *C.ai00_state
	if err := call(func() C.ai00_status { return f(&p, mp) }); err != nil {
		m.release()
		return nil, err
	}
	return wrapState(p, m), nil
}

// NewState is a fresh State (zeros, seed 0) of the model.
func NewState(m *Model) (*State, error) {
	return newState(m, func(out **C.ai00_state, mp *C.ai00_model) C.ai00_status {
		return C.ai00_state_new(out, mp)
	})
}

// LoadState is a new State of the model from bytes written by State.Save.
func LoadState(m *Model, data []byte) (*State, error) {
	d, n := cbytes(data)
	return newState(m, func(out **C.ai00_state, mp *C.ai00_model) C.ai00_status {
		return C.ai00_state_load(out, mp, unsafe.Pointer(d), n)
	})
}

// LoadStateFile is a new State of the model from a file written by State.SaveFile.
func LoadStateFile(m *Model, path string) (*State, error) {
	p, n := cbytes([]byte(path))
	return newState(m, func(out **C.ai00_state, mp *C.ai00_model) C.ai00_status {
		return C.ai00_state_load_file(out, mp, p, n)
	})
}

// LoadInitialState is a new State from an ai00 .state file (a state-tuned initial state).
func LoadInitialState(m *Model, path string) (*State, error) {
	p, n := cbytes([]byte(path))
	return newState(m, func(out **C.ai00_state, mp *C.ai00_model) C.ai00_status {
		return C.ai00_state_load_initial(out, mp, p, n)
	})
}

func (s *State) raw() (*C.ai00_state, error) {
	if s.ptr == nil {
		return nil, closedError("state")
	}
	return s.ptr, nil
}

// Close frees the State. Idempotent; refused while a Generator borrows it.
func (s *State) Close() error {
	if s.borrowed {
		return &Error{Status: ErrInvalidArgument, Message: "state is borrowed by an open Generator"}
	}
	if s.ptr != nil {
		C.ai00_state_free(s.ptr)
		s.ptr = nil
		runtime.SetFinalizer(s, nil)
		s.model.release()
	}
	return nil
}

// Clone is an independent copy (branching a dialogue, retries).
func (s *State) Clone() (*State, error) {
	p, err := s.raw()
	if err != nil {
		return nil, err
	}
	return newState(s.model, func(out **C.ai00_state, _ *C.ai00_model) C.ai00_status {
		return C.ai00_state_clone(out, p)
	})
}

// Reset returns to the fresh state; the RNG restarts from the current seed.
func (s *State) Reset() error {
	p, err := s.raw()
	if err != nil {
		return err
	}
	return call(func() C.ai00_status { return C.ai00_state_reset(p) })
}

// SetSeed sets the sampler seed and restarts the RNG from it.
func (s *State) SetSeed(seed uint64) error {
	p, err := s.raw()
	if err != nil {
		return err
	}
	return call(func() C.ai00_status { return C.ai00_state_set_seed(p, C.uint64_t(seed)) })
}

func (s *State) vocab() (int, error) {
	info, err := s.model.Info()
	return int(info.Vocab), err
}

// Eval runs tokens through the model and returns the logits after the last one.
func (s *State) Eval(tokens []uint32) ([]float32, error) {
	p, err := s.raw()
	if err != nil {
		return nil, err
	}
	v, err := s.vocab()
	if err != nil {
		return nil, err
	}
	logits := make([]float32, v)
	ids, n := tokensPtr(tokens)
	var got C.size_t
	err = call(func() C.ai00_status {
		return C.ai00_state_eval(&got, (*C.float)(&logits[0]), C.size_t(v), s.model.ptr, p, ids, n)
	})
	return logits, err
}

// Prefill runs tokens through the model without computing logits.
func (s *State) Prefill(tokens []uint32) error {
	p, err := s.raw()
	if err != nil {
		return err
	}
	ids, n := tokensPtr(tokens)
	return call(func() C.ai00_status {
		return C.ai00_state_eval(nil, nil, 0, s.model.ptr, p, ids, n)
	})
}

// EvalAll runs tokens and returns one row of logits per token.
func (s *State) EvalAll(tokens []uint32) ([][]float32, error) {
	p, err := s.raw()
	if err != nil {
		return nil, err
	}
	v, err := s.vocab()
	if err != nil || len(tokens) == 0 {
		return nil, err
	}
	flat := make([]float32, v*len(tokens))
	ids, n := tokensPtr(tokens)
	var got C.size_t
	if err := call(func() C.ai00_status {
		return C.ai00_state_eval_all(&got, (*C.float)(&flat[0]), C.size_t(len(flat)), s.model.ptr, p, ids, n)
	}); err != nil {
		return nil, err
	}
	rows := make([][]float32, len(tokens))
	for i := range rows {
		rows[i] = flat[i*v : (i+1)*v]
	}
	return rows, nil
}

// Sample draws one token from logits with this State's RNG and penalty table; nil params
// means the defaults.
func (s *State) Sample(params *SamplerParams, logits []float32) (uint32, error) {
	p, err := s.raw()
	if err != nil {
		return 0, err
	}
	sp, free := params.toC()
	defer free()
	var tok C.uint32_t
	var lp *C.float
	if len(logits) > 0 {
		lp = (*C.float)(&logits[0])
	}
	err = call(func() C.ai00_status { return C.ai00_state_sample(&tok, p, sp, lp, C.size_t(len(logits))) })
	return uint32(tok), err
}

// Save serializes the State (recurrent and sampler parts).
func (s *State) Save() ([]byte, error) {
	p, err := s.raw()
	if err != nil {
		return nil, err
	}
	return twoCallBytes(func(out *C.size_t, buf unsafe.Pointer, c C.size_t) C.ai00_status {
		return C.ai00_state_save(out, buf, c, p)
	})
}

// Size is the length of Save's output.
func (s *State) Size() (int, error) {
	p, err := s.raw()
	if err != nil {
		return 0, err
	}
	var n C.size_t
	err = call(func() C.ai00_status { return C.ai00_state_save(&n, nil, 0, p) })
	if e, ok := err.(*Error); ok && e.Status == ErrBufferTooSmall {
		err = nil
	}
	return int(n), err
}

// SaveFile writes Save's bytes to a file.
func (s *State) SaveFile(path string) error {
	p, err := s.raw()
	if err != nil {
		return err
	}
	cp, n := cbytes([]byte(path))
	return call(func() C.ai00_status { return C.ai00_state_save_file(p, cp, n) })
}

// LastError is the message of the last failed call on this State.
func (s *State) LastError() string {
	return C.GoString(C.ai00_state_last_error(s.ptr))
}
