package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
// ai00_status ai00go_generator_run(int32_t* out_finish_reason, ai00_generator* gen, uintptr_t handle);
// ai00_status ai00go_generator_step(int32_t* out_finished, ai00_generator* gen, uint32_t max_tokens, uintptr_t handle);
import "C"

import (
	"context"
	"runtime"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// GenerateParams are the settings of one turn (ai00_generate_params); nil means the defaults.
type GenerateParams struct {
	MaxTokens     uint32      // new tokens at most; 0 means the default (256)
	PrefillChunk  uint32      // prompt tokens per forward call; 0 means the default (64)
	Seed          *uint64     // set the State's seed first; nil continues the State's RNG
	GrammarMode   GrammarMode // ignored when Grammar is set
	Grammar       *Grammar    // a custom grammar for the reply (made from the same model)
	StopSequences []string    // extra stop strings, never emitted
	// PrefixCache, when set, starts a turn on a pristine State from the longest cached prefix
	// of its prompt and stores States at the prompt's end (docs/prefix-cache.md). The cache is
	// freed only after the generator (PrefixCache.Close waits for it).
	PrefixCache *PrefixCache
	// StreamToolCalls (chat turns): each tool call is also streamed as a DeltaToolCallStart and
	// DeltaToolCallArguments pieces before its whole DeltaToolCall.
	StreamToolCalls bool
	// ToolChoice (chat turns with tools): which tool calls the tool grammar allows; the zero
	// value is ToolChoiceAuto. ToolChoiceNamed calls the tool ToolName only.
	ToolChoice ToolChoice
	// ToolName is the tool of ToolChoiceNamed; a name not among the turn's tools is an
	// ErrInvalidArgument error naming it. The library copies it.
	ToolName string
	// NoParallelToolCalls (chat turns with tools): at most one call per reply (OpenAI's
	// parallel_tool_calls = false). The zero value allows several.
	NoParallelToolCalls bool
}

// ToolChoice is which tool calls a chat turn's tool grammar allows (ai00_tool_choice, OpenAI's
// tool_choice). Anything but ToolChoiceAuto needs tools and a grammar mode other than
// GrammarNone.
type ToolChoice int32

// The tool choices.
const (
	ToolChoiceAuto     ToolChoice = C.AI00_TOOL_CHOICE_AUTO     // text, or text then calls
	ToolChoiceNone     ToolChoice = C.AI00_TOOL_CHOICE_NONE     // the tools are listed, no call may be made
	ToolChoiceRequired ToolChoice = C.AI00_TOOL_CHOICE_REQUIRED // the reply is the call block
	ToolChoiceNamed    ToolChoice = C.AI00_TOOL_CHOICE_NAMED    // as Required, every call to ToolName
)

// Seed is a helper for GenerateParams.Seed.
func Seed(s uint64) *uint64 { return &s }

func (g *GenerateParams) toC() (*C.ai00_generate_params, func()) {
	p := (*C.ai00_generate_params)(C.calloc(1, C.sizeof_ai00_generate_params))
	p.struct_size = C.sizeof_ai00_generate_params
	C.ai00_generate_params_default(p)
	var stops []*C.char
	var stopArr **C.char
	var toolName *C.char // the library copies it during the creation call
	if g != nil {
		if g.StreamToolCalls {
			p.stream_tool_calls = 1
		}
		if g.NoParallelToolCalls {
			p.parallel_tool_calls = 0
		}
		p.tool_choice = C.int32_t(g.ToolChoice)
		if g.ToolChoice == ToolChoiceNamed && g.ToolName != "" {
			toolName = C.CString(g.ToolName)
			p.tool_choice_name = toolName
			p.tool_choice_name_len = C.size_t(len(g.ToolName))
		}
		if g.MaxTokens != 0 {
			p.max_tokens = C.uint32_t(g.MaxTokens)
		}
		if g.PrefillChunk != 0 {
			p.prefill_chunk = C.uint32_t(g.PrefillChunk)
		}
		if g.Seed != nil {
			p.set_seed = 1
			p.seed = C.uint64_t(*g.Seed)
		}
		p.grammar_mode = C.int32_t(g.GrammarMode)
		if g.Grammar != nil {
			p.grammar = g.Grammar.ptr
		}
		if n := len(g.StopSequences); n > 0 {
			stopArr = (**C.char)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
			arr := unsafe.Slice(stopArr, n)
			for i, s := range g.StopSequences {
				arr[i] = C.CString(s)
				stops = append(stops, arr[i])
			}
			p.stop_sequences = stopArr
			p.n_stop_sequences = C.size_t(n)
		}
	}
	return p, func() {
		if toolName != nil {
			C.free(unsafe.Pointer(toolName))
		}
		for _, s := range stops {
			C.free(unsafe.Pointer(s))
		}
		if stopArr != nil {
			C.free(unsafe.Pointer(stopArr))
		}
		C.free(unsafe.Pointer(p))
	}
}

// Generator runs one turn on a borrowed State, streamed as deltas: pull (Next, Stream), push
// (Run) or step (Step + Next, for frame loops). One goroutine at a time; Cancel may be called
// from any goroutine. Close it to give the State back (it then holds every token so far).
type Generator struct {
	mu    sync.Mutex // orders Cancel against Close
	ptr   *C.ai00_generator
	state *State
	// model and grammar are kept reachable for the finalizers' order; the C generator holds its
	// own references.
	model   *Model
	grammar *Grammar
	cache   *PrefixCache
}

func newGenerator(m *Model, s *State, grammar *Grammar, cache *PrefixCache,
	f func(out **C.ai00_generator, mp *C.ai00_model, sp *C.ai00_state, cp *C.ai00_prefix_cache) C.ai00_status) (*Generator, error) {
	mp, err := m.raw()
	if err != nil {
		return nil, err
	}
	sp, err := s.raw()
	if err != nil {
		return nil, err
	}
	if s.borrowed {
		return nil, &Error{Status: ErrInvalidArgument, Message: "state is borrowed by another open Generator"}
	}
	var cp *C.ai00_prefix_cache
	if cache != nil {
		if cp, err = cache.retain(); err != nil {
			return nil, err
		}
	}
	var p *C.ai00_generator
	if err := call(func() C.ai00_status { return f(&p, mp, sp, cp) }); err != nil {
		if cache != nil {
			cache.release()
		}
		return nil, err
	}
	s.borrowed = true
	g := &Generator{ptr: p, state: s, model: m, grammar: grammar, cache: cache}
	runtime.SetFinalizer(g, (*Generator).Close)
	return g, nil
}

// NewChatGenerator starts a chat turn: the template renders conversationJSON (tools and
// thinking from render) and parses the reply into text, reasoning and tool calls. nil options
// are the defaults.
func NewChatGenerator(m *Model, s *State, t *ChatTemplate, conversationJSON string,
	render *RenderOptions, sampler *SamplerParams, params *GenerateParams) (*Generator, error) {
	r, freeR := render.toC()
	defer freeR()
	sa, freeS := sampler.toC()
	defer freeS()
	gp, freeG := params.toC()
	defer freeG()
	c, n := cbytes([]byte(conversationJSON))
	var grammar *Grammar
	var cache *PrefixCache
	if params != nil {
		grammar, cache = params.Grammar, params.PrefixCache
	}
	return newGenerator(m, s, grammar, cache, func(out **C.ai00_generator, mp *C.ai00_model, sp *C.ai00_state, cp *C.ai00_prefix_cache) C.ai00_status {
		gp.prefix_cache = cp
		return C.ai00_generator_new_chat(out, mp, sp, t.raw(), c, n, r, sa, gp)
	})
}

// NewRawGenerator starts a raw-text turn: the prompt is fed as is; the reply is text deltas.
func NewRawGenerator(m *Model, s *State, prompt string, sampler *SamplerParams, params *GenerateParams) (*Generator, error) {
	sa, freeS := sampler.toC()
	defer freeS()
	gp, freeG := params.toC()
	defer freeG()
	c, n := cbytes([]byte(prompt))
	var grammar *Grammar
	var cache *PrefixCache
	if params != nil {
		grammar, cache = params.Grammar, params.PrefixCache
	}
	return newGenerator(m, s, grammar, cache, func(out **C.ai00_generator, mp *C.ai00_model, sp *C.ai00_state, cp *C.ai00_prefix_cache) C.ai00_status {
		gp.prefix_cache = cp
		return C.ai00_generator_new_raw(out, mp, sp, c, n, sa, gp)
	})
}

// Close frees the generator and gives the State back. Idempotent.
func (g *Generator) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ptr != nil {
		// ai00_generator_free takes a member out of its batch (the Batch forgets it at its next
		// call: a generator does not point back at its batch, so that no reference cycle keeps
		// a forgotten Batch and its members from their finalizers).
		C.ai00_generator_free(g.ptr)
		g.ptr = nil
		if g.cache != nil {
			g.cache.release()
		}
		g.state.borrowed = false
		runtime.SetFinalizer(g, nil)
	}
	return nil
}

func (g *Generator) raw() (*C.ai00_generator, error) {
	if g.ptr == nil {
		return nil, closedError("generator")
	}
	return g.ptr, nil
}

// Cancel asks the turn to stop before the next token or prefill chunk (finish
// FinishCancelled). Any goroutine, any time; after Close it does nothing.
func (g *Generator) Cancel() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ptr == nil {
		return nil
	}
	return call(func() C.ai00_status { return C.ai00_generator_cancel(g.ptr) })
}

// watch cancels the turn when ctx is done, until the returned stop function is called.
func (g *Generator) watch(ctx context.Context) func() {
	if ctx == nil || ctx.Done() == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			g.Cancel()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// Next is the next delta (generating as many tokens as it takes). After DeltaFinish every
// further call returns it again.
func (g *Generator) Next() (Delta, error) {
	p, err := g.raw()
	if err != nil {
		return Delta{}, err
	}
	d := newCDelta()
	if err := call(func() C.ai00_status { return C.ai00_generator_next(&d, p) }); err != nil {
		return Delta{}, err
	}
	return deltaFromC(&d), nil
}

// Stream runs the turn in a goroutine and sends its deltas on the returned channel, which is
// closed after the DeltaFinish delta (or after a delta whose Err is set). A done ctx cancels
// the turn (it then finishes with FinishCancelled); after that, deltas may be dropped but the
// final one is still delivered, and a reader may also stop reading. Do not call other methods
// of the generator until the channel is closed.
func (g *Generator) Stream(ctx context.Context) <-chan Delta {
	out := make(chan Delta, 1)
	go func() {
		defer close(out)
		stop := g.watch(ctx)
		defer stop()
		var done <-chan struct{}
		if ctx != nil {
			done = ctx.Done()
		}
		// After ctx is done a delta the reader is not ready for is dropped (the turn was
		// cancelled), except the final one, which always goes into the channel's buffer; so a
		// reader may stop reading once it has cancelled, and never misses the end of the turn.
		send := func(d Delta) {
			select {
			case out <- d:
				return
			case <-done:
			}
			for d.Kind == DeltaFinish {
				select {
				case out <- d:
					return
				default:
				}
				select {
				case <-out: // a stale delta of the cancelled turn makes room
				default:
				}
			}
		}
		for {
			d, err := g.Next()
			if err != nil {
				send(Delta{Kind: DeltaFinish, FinishReason: FinishError, Err: err})
				return
			}
			send(d)
			if d.Kind == DeltaFinish {
				return
			}
		}
	}()
	return out
}

// Run runs the turn to its end on this goroutine, calling fn for every delta; fn returning
// false stops the turn (FinishCancelled), and so does a done ctx. A panic in fn stops the turn
// and is re-raised here.
func (g *Generator) Run(ctx context.Context, fn func(Delta) bool) (FinishReason, error) {
	p, err := g.raw()
	if err != nil {
		return FinishError, err
	}
	stop := g.watch(ctx)
	defer stop()
	sink := &deltaSink{fn: fn}
	h := cgo.NewHandle(sink)
	defer h.Delete()
	var reason C.int32_t
	err = call(func() C.ai00_status { return C.ai00go_generator_run(&reason, p, C.uintptr_t(h)) })
	if sink.panic != nil {
		panic(sink.panic)
	}
	return FinishReason(reason), err
}

// Step does bounded work for a frame loop: at most maxTokens tokens (0 counts as 1), or prefill
// chunks. The deltas are queued for Next (Pending says how many). finished is true once the
// turn has ended.
func (g *Generator) Step(maxTokens uint32) (finished bool, err error) {
	p, err := g.raw()
	if err != nil {
		return false, err
	}
	var f C.int32_t
	err = call(func() C.ai00_status { return C.ai00go_generator_step(&f, p, C.uint32_t(maxTokens), 0) })
	return f != 0, err
}

// StepFunc is Step with the deltas passed to fn instead of queued.
func (g *Generator) StepFunc(maxTokens uint32, fn func(Delta) bool) (finished bool, err error) {
	p, err := g.raw()
	if err != nil {
		return false, err
	}
	sink := &deltaSink{fn: fn}
	h := cgo.NewHandle(sink)
	defer h.Delete()
	var f C.int32_t
	err = call(func() C.ai00_status {
		return C.ai00go_generator_step(&f, p, C.uint32_t(maxTokens), C.uintptr_t(h))
	})
	if sink.panic != nil {
		panic(sink.panic)
	}
	return f != 0, err
}

// Pending is the number of deltas queued by Step and not yet taken by Next.
func (g *Generator) Pending() (int, error) {
	p, err := g.raw()
	if err != nil {
		return 0, err
	}
	var n C.size_t
	err = call(func() C.ai00_status { return C.ai00_generator_pending(&n, p) })
	return int(n), err
}

// FinishReason is FinishNone while the turn runs.
func (g *Generator) FinishReason() (FinishReason, error) {
	p, err := g.raw()
	if err != nil {
		return FinishError, err
	}
	var r C.int32_t
	err = call(func() C.ai00_status { return C.ai00_generator_finish_reason(&r, p) })
	return FinishReason(r), err
}

// MessageJSON is the reply so far as one seed 004 message in JSON; final once finished.
func (g *Generator) MessageJSON() (string, error) {
	p, err := g.raw()
	if err != nil {
		return "", err
	}
	return ownedText(func(s **C.char, n *C.size_t) C.ai00_status { return C.ai00_generator_message_json(s, n, p) })
}

// Warnings of this turn (grammar building, the output parser).
func (g *Generator) Warnings() ([]string, error) {
	p, err := g.raw()
	if err != nil {
		return nil, err
	}
	var n C.size_t
	if err := call(func() C.ai00_status { return C.ai00_generator_warning_count(&n, p) }); err != nil {
		return nil, err
	}
	var out []string
	for i := C.size_t(0); i < n; i++ {
		w, err := ownedText(func(s **C.char, l *C.size_t) C.ai00_status { return C.ai00_generator_warning(s, l, p, i) })
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// Tokens are the token ids sampled this turn (a final token 0 included).
func (g *Generator) Tokens() ([]uint32, error) {
	p, err := g.raw()
	if err != nil {
		return nil, err
	}
	var t *C.uint32_t
	var n C.size_t
	if err := call(func() C.ai00_status { return C.ai00_generator_tokens(&t, &n, p) }); err != nil {
		return nil, err
	}
	out := make([]uint32, int(n))
	if n > 0 {
		copy(out, unsafe.Slice((*uint32)(unsafe.Pointer(t)), int(n)))
	}
	return out, nil
}

// LastError is the last failed call on this generator, or why the turn ended with FinishError.
func (g *Generator) LastError() string {
	return C.GoString(C.ai00_generator_last_error(g.ptr))
}
