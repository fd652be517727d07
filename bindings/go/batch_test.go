package ai00

// Batched decode, prefix cache, option scoring and State bundles (issue 14).

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
)

var batchPrompts = []string{"Once upon a time", "The capital of France is", "In a village far away"}

func greedyRaw(t *testing.T, m *Model, s *State, prompt string, cache *PrefixCache) *Generator {
	t.Helper()
	sp := GreedySamplerParams()
	return must[*Generator](t)(NewRawGenerator(m, s, prompt, &sp, &GenerateParams{MaxTokens: 8, PrefixCache: cache}))
}

// textOf runs g alone to its end and returns its content text.
func textOf(t *testing.T, g *Generator) string {
	t.Helper()
	text := ""
	for {
		d, err := g.Next()
		ok(t, err)
		if d.Kind == DeltaText {
			text += d.Text
		}
		if d.Kind == DeltaFinish {
			return text
		}
	}
}

func alone(t *testing.T, m *Model, prompt string, cache *PrefixCache) string {
	t.Helper()
	s := must[*State](t)(NewState(m))
	defer s.Close()
	g := greedyRaw(t, m, s, prompt, cache)
	defer g.Close()
	return textOf(t, g)
}

// addGreedyMembers adds a greedy generator of each batch prompt, each on its own State, closed
// (after the batch, which the caller closes with defer) when the test ends.
func addGreedyMembers(t *testing.T, m *Model, b *Batch) []*Generator {
	t.Helper()
	var gens []*Generator
	for _, p := range batchPrompts {
		s := must[*State](t)(NewState(m))
		g := greedyRaw(t, m, s, p, nil)
		t.Cleanup(func() { s.Close() })
		t.Cleanup(func() { g.Close() })
		ok(t, b.Add(g))
		gens = append(gens, g)
	}
	return gens
}

func TestBatchOfThreeMatchesLoneRunsAndRemoveMidway(t *testing.T) {
	m := load(t)
	var want []string
	for _, p := range batchPrompts {
		want = append(want, alone(t, m, p, nil))
	}
	b := must[*Batch](t)(NewBatch(m, nil))
	defer b.Close()
	gens := addGreedyMembers(t, m, b)
	if n := must[int](t)(b.Len()); n != 3 {
		t.Fatalf("len %d", n)
	}
	texts := map[*Generator]string{}
	finished := 0
	for {
		evs, res, err := b.Step(context.Background(), StepBudget{MaxTokens: 2})
		ok(t, err)
		for _, e := range evs {
			switch e.Kind {
			case BatchEventDelta:
				if e.Delta.Kind == DeltaText {
					texts[e.Generator] += e.Delta.Text
				}
			case BatchEventFinished:
				finished++
			case BatchEventError:
				t.Fatalf("error event: %s", e.Err)
			}
		}
		if res.Unfinished == 0 || res.Steps == 0 {
			break
		}
	}
	if finished != 3 {
		t.Fatalf("finished %d", finished)
	}
	for i, g := range gens {
		if texts[g] != want[i] {
			t.Fatalf("member %d: %q, alone %q", i, texts[g], want[i])
		}
	}

	// Remove mid-way, then finish alone: the same text.
	s := must[*State](t)(NewState(m))
	defer s.Close()
	g := greedyRaw(t, m, s, batchPrompts[0], nil)
	defer g.Close()
	ok(t, b.Add(g))
	_, err := g.Next()
	wantStatus(t, err, ErrInvalidArgument, "")
	evs, _, err := b.Step(context.Background(), StepBudget{MaxTokens: 3})
	ok(t, err)
	first := ""
	for _, e := range evs {
		if e.Generator == g && e.Kind == BatchEventDelta {
			first += e.Delta.Text
		}
	}
	ok(t, b.Remove(g))
	if got := first + textOf(t, g); got != want[0] {
		t.Fatalf("removed member: %q, alone %q", got, want[0])
	}
}

func TestBatchTimeBudgetTakesTurnsUnlessWholeBatch(t *testing.T) {
	m := load(t)
	b := must[*Batch](t)(NewBatch(m, nil))
	defer b.Close()
	addGreedyMembers(t, m, b)
	// Nothing measured yet: one row each; then a 1 us budget holds one member per call.
	for i, want := range []struct {
		whole  bool
		prompt uint64
	}{{false, 3}, {false, 1}, {true, 3}} {
		_, res, err := b.Step(context.Background(), StepBudget{MaxTokens: 4, TimeBudget: time.Microsecond, WholeBatch: want.whole})
		ok(t, err)
		if res.Steps != 1 || res.PromptTokens != want.prompt {
			t.Fatalf("call %d: %+v, want 1 step and %d prompt tokens", i, res, want.prompt)
		}
	}
}

func TestBatchBadInputAndCancelledContext(t *testing.T) {
	m := load(t)
	other := must[*Model](t)(LoadModel(filepath.Join(sharedDir(), "models", "tiny-rwkv-7v0-834K-FP32.bin"), nil))
	defer other.Close()
	os1 := must[*State](t)(NewState(other))
	defer os1.Close()
	og := must[*Generator](t)(NewRawGenerator(other, os1, "Hi", nil, &GenerateParams{MaxTokens: 2}))
	defer og.Close()
	s := must[*State](t)(NewState(m))
	defer s.Close()
	g := must[*Generator](t)(NewRawGenerator(m, s, "Hi", nil, &GenerateParams{MaxTokens: 50}))
	defer g.Close()
	b := must[*Batch](t)(NewBatch(m, nil))
	defer b.Close()
	wantStatus(t, b.Add(og), ErrMismatch, "")
	ok(t, b.Add(g))
	e := wantStatus(t, b.Add(g), ErrInvalidArgument, "")
	if e.Message == "" {
		t.Fatal("no message")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	evs, res, err := b.Step(ctx, StepBudget{MaxTokens: 1})
	if err != context.Canceled {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if len(evs) == 0 || res.Unfinished != 0 || evs[len(evs)-1].Kind != BatchEventFinished || evs[len(evs)-1].FinishReason != FinishCancelled {
		t.Fatalf("want a cancelled finish, got %+v %+v", res, evs)
	}
	ok(t, g.Close()) // a member closed first leaves the batch
	if n := must[int](t)(b.Len()); n != 0 {
		t.Fatalf("len %d after closing the member", n)
	}
}

func TestPrefixCacheHitGivesTheSameOutput(t *testing.T) {
	m := load(t)
	prompt := "A long shared persona line for every character of the village. Hello"
	miss := alone(t, m, prompt, nil)
	c := must[*PrefixCache](t)(NewPrefixCache(&PrefixCacheOptions{MaxBytes: 64 << 20}))
	defer c.Close()
	if got := alone(t, m, prompt, c); got != miss {
		t.Fatalf("%q vs %q", got, miss)
	}
	st := must[PrefixCacheStats](t)(c.Stats())
	if st.Misses != 1 || st.Hits != 0 || st.Entries == 0 {
		t.Fatalf("%+v", st)
	}
	if got := alone(t, m, prompt, c); got != miss {
		t.Fatalf("hit %q vs miss %q", got, miss)
	}
	st = must[PrefixCacheStats](t)(c.Stats())
	if st.Hits != 1 || st.HitTokens == 0 {
		t.Fatalf("%+v", st)
	}
	ok(t, c.Clear())
	if st = must[PrefixCacheStats](t)(c.Stats()); st.Entries != 0 {
		t.Fatalf("%+v", st)
	}
	if n := must[int](t)(c.WarmText(m, "A long shared persona")); n == 0 {
		t.Fatal("warm ran nothing")
	}
	if n := must[int](t)(c.Warm(m, must[[]uint32](t)(m.Tokenize("A long shared persona")))); n != 0 {
		t.Fatalf("warm again ran %d", n)
	}
	_, err := c.Warm(m, nil)
	wantStatus(t, err, ErrInvalidArgument, "")

	// Closing a cache while a generator uses it waits for the generator (the header's rule).
	c2 := must[*PrefixCache](t)(NewPrefixCache(nil))
	s := must[*State](t)(NewState(m))
	defer s.Close()
	g := greedyRaw(t, m, s, prompt, c2)
	ok(t, c2.Close())
	_, err = c2.Stats()
	wantStatus(t, err, ErrInvalidArgument, "closed")
	s2 := must[*State](t)(NewState(m))
	defer s2.Close()
	_, err = NewRawGenerator(m, s2, prompt, nil, &GenerateParams{PrefixCache: c2})
	wantStatus(t, err, ErrInvalidArgument, "closed")
	if got := textOf(t, g); got != miss {
		t.Fatalf("with a closed cache %q vs %q", got, miss)
	}
	ok(t, g.Close())
	if c2.ptr != nil {
		t.Fatal("the cache was not freed with its last generator")
	}
}

func TestPrefixCacheReserve(t *testing.T) {
	m := load(t)
	info := must[ModelInfo](t)(m.Info())
	// One entry's memory: the State floats, the logits and 256 bytes.
	perEntry := info.StateBytes + 4*uint64(info.Vocab) + 256
	c := must[*PrefixCache](t)(NewPrefixCache(&PrefixCacheOptions{MaxBytes: 64 << 20}))
	defer c.Close()
	if st := must[PrefixCacheStats](t)(c.Stats()); st.SpareBytes != 0 {
		t.Fatalf("%+v", st)
	}
	if n := must[int](t)(c.Reserve(m, 0)); n != 0 {
		t.Fatalf("reserved %d of 0", n)
	}
	if n := must[int](t)(c.Reserve(m, 2)); n != 2 {
		t.Fatalf("reserved %d of 2", n)
	}
	if st := must[PrefixCacheStats](t)(c.Stats()); st.SpareBytes != 2*perEntry || st.Entries != 0 {
		t.Fatalf("%+v, want SpareBytes %d", st, 2*perEntry)
	}
	// An insert takes a spare.
	if n := must[int](t)(c.WarmText(m, "A long shared persona")); n == 0 {
		t.Fatal("warm ran nothing")
	}
	if st := must[PrefixCacheStats](t)(c.Stats()); st.SpareBytes != perEntry || st.Entries != 1 {
		t.Fatalf("%+v, want SpareBytes %d", st, perEntry)
	}
	ok(t, c.Clear())
	if st := must[PrefixCacheStats](t)(c.Stats()); st.SpareBytes != 0 {
		t.Fatalf("%+v", st)
	}
	_, err := c.Reserve(m, -1)
	wantStatus(t, err, ErrInvalidArgument, "negative")
	// A bound smaller than one entry sets nothing aside.
	tiny := must[*PrefixCache](t)(NewPrefixCache(&PrefixCacheOptions{MaxBytes: 1024}))
	defer tiny.Close()
	if n := must[int](t)(tiny.Reserve(m, 2)); n != 0 {
		t.Fatalf("reserved %d under a 1024-byte bound", n)
	}
	if st := must[PrefixCacheStats](t)(tiny.Stats()); st.SpareBytes != 0 {
		t.Fatalf("%+v", st)
	}
}

func TestOptionScoring(t *testing.T) {
	m := load(t)
	s := must[*State](t)(NewState(m))
	defer s.Close()
	ok(t, s.Prefill(must[[]uint32](t)(m.Tokenize("The cat sat on the"))))
	before := must[[]byte](t)(s.Save())
	words := []string{" mat", " roof", " very big dog"}
	var cands [][]uint32
	for _, w := range words {
		cands = append(cands, must[[]uint32](t)(m.Tokenize(w)))
	}
	ctx := must[[]uint32](t)(m.Tokenize(" old"))
	scores := must[[]Score](t)(s.ScoreOptions(cands, &ScoreParams{Context: ctx}))
	if len(scores) != 3 {
		t.Fatalf("%d scores", len(scores))
	}
	for i, sc := range scores {
		if math.IsNaN(sc.TotalLogprob) || math.IsInf(sc.TotalLogprob, 0) || sc.TotalLogprob >= 0 || sc.Tokens != len(cands[i]) {
			t.Fatalf("score %d: %+v", i, sc)
		}
	}
	texts := must[[]Score](t)(s.ScoreTexts(words, &ScoreParams{Context: ctx}))
	if !reflect.DeepEqual(texts, scores) {
		t.Fatalf("%+v vs %+v", texts, scores)
	}
	if !bytes.Equal(must[[]byte](t)(s.Save()), before) {
		t.Fatal("scoring changed the State")
	}
	_, err := s.ScoreOptions(nil, &ScoreParams{Context: ctx})
	wantStatus(t, err, ErrInvalidArgument, "")
}

func TestBundleRoundTripAndTruncated(t *testing.T) {
	m := load(t)
	a := must[*State](t)(NewState(m))
	defer a.Close()
	b := must[*State](t)(NewState(m))
	defer b.Close()
	ok(t, a.Prefill(must[[]uint32](t)(m.Tokenize("Alice speaks"))))
	ok(t, b.Prefill(must[[]uint32](t)(m.Tokenize("Bob listens quietly"))))
	entries := []BundleEntry{{"alice", a}, {"bob", b}}
	data := must[[]byte](t)(SaveBundle(entries))
	path := filepath.Join(t.TempDir(), "village.bundle")
	ok(t, SaveBundleFile(entries, path))
	for _, open := range []func() (*Bundle, error){
		func() (*Bundle, error) { return OpenBundle(data) },
		func() (*Bundle, error) { return OpenBundleFile(path) },
	} {
		bu := must[*Bundle](t)(open())
		names := must[[]string](t)(bu.Names())
		if !reflect.DeepEqual(names, []string{"alice", "bob"}) {
			t.Fatalf("%v", names)
		}
		i := must[int](t)(bu.Find("bob"))
		ls := must[*State](t)(bu.Load(m, i))
		if !bytes.Equal(must[[]byte](t)(ls.Save()), must[[]byte](t)(b.Save())) {
			t.Fatal("bob differs")
		}
		ok(t, ls.Close())
		_, err := bu.Find("carol")
		wantStatus(t, err, ErrInvalidArgument, "carol")
		ok(t, bu.Close())
	}
	_, err := OpenBundle(data[:len(data)-10])
	wantStatus(t, err, ErrModelFile, "")
	_, err = SaveBundle([]BundleEntry{{"", a}})
	wantStatus(t, err, ErrInvalidArgument, "")
}

// A forgotten Batch and its member are finalized (no reference cycle between them): the member's
// finalizer gives its State back.
func TestForgottenBatchAndMemberAreFinalized(t *testing.T) {
	m := load(t)
	s := must[*State](t)(NewState(m))
	defer s.Close()
	func() {
		g := must[*Generator](t)(NewRawGenerator(m, s, "Hi", nil, &GenerateParams{MaxTokens: 2}))
		b := must[*Batch](t)(NewBatch(m, nil))
		ok(t, b.Add(g))
	}()
	for i := 0; i < 50 && s.borrowed; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if s.borrowed {
		t.Fatal("the forgotten member was never finalized")
	}
}
