"""Batched decode, prefix cache, option scoring and State bundles (issue 14)."""
import math

import pytest

import ai00
from conftest import MODEL, TINY

PROMPTS = ["Once upon a time", "The capital of France is", "In a village far away"]
GREEDY = ai00.SamplerParams(method=ai00.SamplerMethod.GREEDY)


def alone(model, prompt, max_tokens=8, **kw):
    with model.new_state() as s, ai00.Generator.raw(model, s, prompt, sampler=GREEDY,
                                                    max_tokens=max_tokens, **kw) as g:
        return g.text()


def test_batch_of_three_matches_lone_runs_and_remove_midway(model):
    expected = [alone(model, p) for p in PROMPTS]
    states = [model.new_state() for _ in PROMPTS]
    gens = [ai00.Generator.raw(model, s, p, sampler=GREEDY, max_tokens=8)
            for s, p in zip(states, PROMPTS)]
    texts = {id(g): "" for g in gens}
    finished = set()
    with ai00.Batch(model) as batch:
        for g in gens:
            batch.add(g)
        assert len(batch) == 3
        for ev in batch.events(max_tokens=2):
            if ev.kind == ai00.BatchEventKind.DELTA and ev.delta.kind == ai00.DeltaKind.TEXT:
                texts[id(ev.generator)] += ev.delta.text
            elif ev.kind == ai00.BatchEventKind.FINISHED:
                finished.add(id(ev.generator))
                assert ev.finish_reason in (ai00.FinishReason.LENGTH, ai00.FinishReason.STOP)
            assert ev.kind != ai00.BatchEventKind.ERROR
        assert finished == {id(g) for g in gens}
        assert [texts[id(g)] for g in gens] == expected

        # Remove mid-way: step a new member once, take it out, finish it alone: same text.
        with model.new_state() as s, ai00.Generator.raw(model, s, PROMPTS[0], sampler=GREEDY,
                                                        max_tokens=8) as g:
            batch.add(g)
            with pytest.raises(ai00.InvalidArgumentError):
                g.step()  # a member cannot be stepped alone
            first = "".join(e.delta.text for e in batch.step(max_tokens=3).events
                            if e.generator is g and e.kind == ai00.BatchEventKind.DELTA)
            batch.remove(g)
            assert len(batch) == 3
            assert first + g.text() == expected[0]
    for g in gens:
        g.close()
    for s in states:
        s.close()


def test_batch_time_budget_takes_turns_unless_whole_batch(model):
    states = [model.new_state() for _ in PROMPTS]
    gens = [ai00.Generator.raw(model, s, p, sampler=GREEDY, max_tokens=8)
            for s, p in zip(states, PROMPTS)]
    with ai00.Batch(model) as batch:
        for g in gens:
            batch.add(g)
        r = batch.step(max_tokens=4, time_budget_us=1)  # nothing measured: one row each
        assert r.steps == 1 and r.time_limited and r.prompt_tokens == 3
        for _ in range(3):  # a 1 us budget holds one member: one prompt token per call
            r = batch.step(max_tokens=4, time_budget_us=1)
            assert r.steps == 1 and r.time_limited and r.prompt_tokens == 1
        r = batch.step(max_tokens=4, time_budget_us=1, whole_batch=True)
        assert r.steps == 1 and r.prompt_tokens == 3
        for g in gens:
            batch.remove(g)
    for g in gens:
        g.close()
    for s in states:
        s.close()


def test_batch_bad_input(model, state):
    with ai00.Model(TINY) as other, other.new_state() as os_, \
            ai00.Generator.raw(other, os_, "Hi", max_tokens=2) as og, \
            ai00.Generator.raw(model, state, "Hi", max_tokens=2) as g, ai00.Batch(model) as b:
        with pytest.raises(ai00.MismatchError) as e:
            b.add(og)
        assert e.value.status == ai00.Status.MISMATCH and e.value.message
        b.add(g)
        with pytest.raises(ai00.InvalidArgumentError) as e:
            b.add(g)
        assert e.value.message
        with pytest.raises(ai00.InvalidArgumentError):
            b.remove(og)
        r = b.step(max_tokens=100)
        assert r.unfinished == 0 and r.events[-1].kind == ai00.BatchEventKind.FINISHED
        assert b.step().steps == 0


def test_prefix_cache_hit_gives_the_same_output(model):
    prompt = "A long shared persona line for every character of the village. Hello"
    miss = alone(model, prompt)
    with ai00.PrefixCache(max_bytes=64 << 20) as cache:
        assert alone(model, prompt, prefix_cache=cache) == miss
        st = cache.stats
        assert st.misses == 1 and st.hits == 0 and st.inserts >= 1 and st.entries >= 1
        assert alone(model, prompt, prefix_cache=cache) == miss
        st = cache.stats
        assert st.hits == 1 and st.hit_tokens > 0
        cache.clear()
        assert cache.stats.entries == 0
        assert cache.warm(model, "A long shared persona") > 0
        assert cache.warm(model, model.tokenize("A long shared persona")) == 0
        with pytest.raises(ai00.InvalidArgumentError) as e:
            cache.warm(model, [])
        assert e.value.status == ai00.Status.INVALID_ARGUMENT

    # Closing a cache while a generator uses it waits for the generator (the header's rule).
    cache = ai00.PrefixCache()
    with model.new_state() as s:
        g = ai00.Generator.raw(model, s, prompt, sampler=GREEDY, max_tokens=8, prefix_cache=cache)
        cache.close()
        assert cache.closed
        with pytest.raises(ai00.InvalidArgumentError):
            ai00.Generator.raw(model, s.clone(), prompt, prefix_cache=cache)
        assert g.text() == miss
        g.close()
        assert cache._h is None  # freed with its last generator


def test_prefix_cache_reserve(model):
    info = model.info
    per_entry = info.state_bytes + 4 * info.n_vocab + 256  # State floats, logits, 256 bytes
    with ai00.PrefixCache(max_bytes=64 << 20) as cache:
        assert cache.stats.spare_bytes == 0
        assert cache.reserve(model, 0) == 0
        assert cache.reserve(model, 2) == 2
        st = cache.stats
        assert st.spare_bytes == 2 * per_entry and st.entries == 0
        # An insert takes a spare.
        assert cache.warm(model, "A long shared persona") > 0
        st = cache.stats
        assert st.spare_bytes == per_entry and st.entries == 1
        cache.clear()
        assert cache.stats.spare_bytes == 0
        with pytest.raises(ai00.InvalidArgumentError):
            cache.reserve(model, -1)
    # A bound smaller than one entry sets nothing aside.
    with ai00.PrefixCache(max_bytes=1024) as tiny:
        assert tiny.reserve(model, 2) == 0
        assert tiny.stats.spare_bytes == 0


def test_option_scoring(model, state):
    state.eval(model.tokenize("The cat sat on the"), logits=False)
    before = state.save()
    cands = [model.tokenize(" mat"), model.tokenize(" roof"), model.tokenize(" very big dog")]
    scores = ai00.score_options(model, state, cands, context=model.tokenize(" old"))
    assert len(scores) == 3
    for sc, c in zip(scores, cands):
        assert math.isfinite(sc.total_logprob) and sc.total_logprob < 0
        assert sc.n_tokens == len(c)
        assert sc.mean_logprob == pytest.approx(sc.total_logprob / sc.n_tokens)
    texts = ai00.score_texts(model, state, [" mat", " roof", " very big dog"],
                             context=model.tokenize(" old"))
    assert [t.total_logprob for t in texts] == [s.total_logprob for s in scores]
    assert state.save() == before  # the State is unchanged
    with pytest.raises(ai00.InvalidArgumentError) as e:
        ai00.score_options(model, state, [], context=[1])
    assert e.value.message
    with pytest.raises(ai00.InvalidArgumentError):
        ai00.score_options(model, state, [[1]])  # neither context nor logits


def test_bundle_round_trip_and_truncated(model, tmp_path):
    with model.new_state() as a, model.new_state() as b:
        a.eval(model.tokenize("Alice speaks"), logits=False)
        b.eval(model.tokenize("Bob listens quietly"), logits=False)
        data = ai00.StateBundle.save({"alice": a, "bob": b})
        ai00.StateBundle.save_file({"alice": a, "bob": b}, tmp_path / "village.bundle")
        with ai00.StateBundle.open(data) as bundle, \
                ai00.StateBundle.open_file(tmp_path / "village.bundle") as from_file:
            assert len(bundle) == 2 and bundle.names == ["alice", "bob"]
            assert from_file.names == ["alice", "bob"]
            assert bundle.find("bob") == 1
            loaded = bundle.load_all(model)
            assert loaded["alice"].save() == a.save() and loaded["bob"].save() == b.save()
            for s in loaded.values():
                s.close()
            with pytest.raises(ai00.InvalidArgumentError):
                bundle.find("carol")
            with ai00.Model(TINY) as other:
                with pytest.raises(ai00.MismatchError):
                    bundle.load(other, "alice")
        with pytest.raises(ai00.ModelFileError) as e:
            ai00.StateBundle.open(data[:len(data) - 10])
        assert e.value.status == ai00.Status.MODEL_FILE and e.value.message
        with pytest.raises(ai00.InvalidArgumentError):
            ai00.StateBundle.save({"": a})
