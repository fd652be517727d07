package ai00

// #include <ai00/ai00.h>
import "C"

import (
	"context"
	"runtime"
	"time"
)

// BatchEventKind is what happened to a member in a step (ai00_batch_event_kind).
type BatchEventKind int32

// Batch event kinds.
const (
	BatchEventDelta    BatchEventKind = C.AI00_BATCH_EVENT_DELTA    // Delta holds its next delta
	BatchEventFinished BatchEventKind = C.AI00_BATCH_EVENT_FINISHED // it finished: FinishReason
	BatchEventError    BatchEventKind = C.AI00_BATCH_EVENT_ERROR    // it finished with FinishError: Err says why
)

// BatchEvent is one event of a step, copied out of the library.
type BatchEvent struct {
	Generator    *Generator
	Kind         BatchEventKind
	FinishReason FinishReason // BatchEventFinished / BatchEventError
	Delta        Delta        // BatchEventDelta
	Err          string       // BatchEventError: the message
}

// StepBudget bounds one Batch.Step: at most MaxTokens tokens per decoding member (0 counts as
// 1) and, when TimeBudget > 0, only steps predicted to end within it; when one token per member
// does not fit, the first step advances the members that fit, least recently advanced first
// (all of them with WholeBatch: throughput before the budget, as a server wants).
type StepBudget struct {
	MaxTokens  uint32
	TimeBudget time.Duration
	WholeBatch bool
}

// StepResult summarizes one Batch.Step.
type StepResult struct {
	Steps         int    // batched forwards run (0: no member was active)
	TokensSampled uint64 // over all members
	PromptTokens  uint64 // prompt tokens prefilled over all members
	TimeLimited   bool   // stopped because the next step was predicted not to fit
	Unfinished    int    // members not finished after the call
}

// BatchOptions are the settings of a batch; nil means the defaults.
type BatchOptions struct {
	PassRows uint32 // rows per forward pass; 0 means the default (128)
}

// Batch advances many Generators of ONE model together, one pass over the weights per step
// (docs/batching.md); each member gives exactly the tokens it gives alone. The batch keeps a
// reference to each member (so a member is never collected while in it), and Generator.Close
// of a member takes it out first. While a member, a Generator's Next/Step/Run fail. One
// goroutine at a time uses a batch; Generator.Cancel works from any goroutine. A forgotten
// Batch is freed by its finalizer (its members by theirs once it is gone).
type Batch struct {
	ptr     *C.ai00_batch
	model   *Model
	members map[*C.ai00_generator]*Generator
}

// NewBatch is a new, empty batch on m.
func NewBatch(m *Model, opts *BatchOptions) (*Batch, error) {
	mp, err := m.raw()
	if err != nil {
		return nil, err
	}
	var p C.ai00_batch_params
	p.struct_size = C.sizeof_ai00_batch_params
	if err := call(func() C.ai00_status { return C.ai00_batch_params_default(&p) }); err != nil {
		return nil, err
	}
	if opts != nil && opts.PassRows != 0 {
		p.pass_rows = C.uint32_t(opts.PassRows)
	}
	var b *C.ai00_batch
	if err := call(func() C.ai00_status { return C.ai00_batch_new(&b, mp, &p) }); err != nil {
		return nil, err
	}
	batch := &Batch{ptr: b, model: m, members: map[*C.ai00_generator]*Generator{}}
	runtime.SetFinalizer(batch, (*Batch).Close)
	return batch, nil
}

// Close frees the batch; its members stay valid and may be stepped alone. Idempotent.
func (b *Batch) Close() error {
	if b.ptr != nil {
		C.ai00_batch_free(b.ptr)
		b.ptr = nil
		b.members = nil
		runtime.SetFinalizer(b, nil)
	}
	return nil
}

func (b *Batch) raw() (*C.ai00_batch, error) {
	if b.ptr == nil {
		return nil, closedError("batch")
	}
	return b.ptr, nil
}

// Add makes g a member: ErrMismatch for a generator of another model, ErrInvalidArgument for
// one already in this or another batch.
func (b *Batch) Add(g *Generator) error {
	p, err := b.raw()
	if err != nil {
		return err
	}
	gp, err := g.raw()
	if err != nil {
		return err
	}
	if err := call(func() C.ai00_status { return C.ai00_batch_add(p, gp) }); err != nil {
		return err
	}
	b.prune()
	b.members[gp] = g
	return nil
}

// Remove takes a member out; it may then be stepped alone and continues exactly.
func (b *Batch) Remove(g *Generator) error {
	p, err := b.raw()
	if err != nil {
		return err
	}
	gp, err := g.raw()
	if err != nil {
		return err
	}
	if err := call(func() C.ai00_status { return C.ai00_batch_remove(p, gp) }); err != nil {
		return err
	}
	delete(b.members, gp)
	return nil
}

// prune forgets members closed meanwhile (ai00_generator_free took them out of the batch).
func (b *Batch) prune() {
	for p, g := range b.members {
		if g.ptr == nil {
			delete(b.members, p)
		}
	}
}

// Len is the number of members (finished ones included).
func (b *Batch) Len() (int, error) {
	p, err := b.raw()
	if err != nil {
		return 0, err
	}
	var n C.size_t
	err = call(func() C.ai00_status { return C.ai00_batch_size(&n, p) })
	return int(n), err
}

// Step advances the batch within budget and returns its events in order (per member: its
// deltas, the last being DeltaFinish, then one BatchEventFinished or BatchEventError). The first
// step always runs when a member is active, so every call makes progress. When ctx is done
// (before or during the call) every member is cancelled: they finish FinishCancelled at the next
// step, and Step returns the events so far with ctx.Err().
func (b *Batch) Step(ctx context.Context, budget StepBudget) ([]BatchEvent, StepResult, error) {
	p, err := b.raw()
	if err != nil {
		return nil, StepResult{}, err
	}
	b.prune()
	if ctx != nil && ctx.Done() != nil {
		done := make(chan struct{})
		defer close(done)
		members := make([]*Generator, 0, len(b.members))
		for _, g := range b.members {
			members = append(members, g)
		}
		if ctx.Err() != nil { // already done: cancel before the step, not racing it
			for _, g := range members {
				g.Cancel()
			}
		}
		go func() {
			select {
			case <-ctx.Done():
				for _, g := range members {
					g.Cancel()
				}
			case <-done:
			}
		}()
	}
	var sp C.ai00_batch_step_params
	sp.struct_size = C.sizeof_ai00_batch_step_params
	if err := call(func() C.ai00_status { return C.ai00_batch_step_params_default(&sp) }); err != nil {
		return nil, StepResult{}, err
	}
	sp.max_tokens = C.uint32_t(budget.MaxTokens)
	if budget.TimeBudget > 0 {
		sp.time_budget_us = C.uint64_t(budget.TimeBudget.Microseconds())
	}
	if budget.WholeBatch {
		sp.whole_batch = 1
	}
	var r C.ai00_batch_step_result
	r.struct_size = C.sizeof_ai00_batch_step_result
	if err := call(func() C.ai00_status { return C.ai00_batch_step(&r, p, &sp, nil, nil) }); err != nil {
		return nil, StepResult{}, err
	}
	res := StepResult{int(r.steps), uint64(r.tokens_sampled), uint64(r.prompt_tokens), r.time_limited != 0,
		int(r.unfinished)}
	var n C.size_t
	if err := call(func() C.ai00_status { return C.ai00_batch_pending(&n, p) }); err != nil {
		return nil, res, err
	}
	events := make([]BatchEvent, 0, int(n))
	for i := 0; i < int(n); i++ {
		var e C.ai00_batch_event
		var has C.int32_t
		e.struct_size = C.sizeof_ai00_batch_event
		if err := call(func() C.ai00_status { return C.ai00_batch_next_event(&has, &e, p) }); err != nil {
			return events, res, err
		}
		if has == 0 {
			break
		}
		ev := BatchEvent{Generator: b.members[e.generator], Kind: BatchEventKind(e.kind),
			FinishReason: FinishReason(e.finish_reason)}
		switch ev.Kind {
		case BatchEventDelta:
			ev.Delta = deltaFromC(&e.delta)
		case BatchEventError:
			if e.error != nil {
				ev.Err = C.GoStringN(e.error, C.int(e.error_len))
			}
		}
		events = append(events, ev)
	}
	if ctx != nil && ctx.Err() != nil {
		return events, res, ctx.Err()
	}
	return events, res, nil
}

// LastError is the message of the last failed call on the batch.
func (b *Batch) LastError() string {
	return C.GoString(C.ai00_batch_last_error(b.ptr))
}
