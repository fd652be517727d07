'use strict';
// Batched decode, prefix cache, option scoring and State bundles (issue 14).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ai00 = require('..');
const { MODEL, TINY } = require('./helpers');

const model = new ai00.Model(MODEL);
test.after(() => model.close());

const PROMPTS = ['Once upon a time', 'The capital of France is', 'In a village far away'];
const GREEDY = { method: ai00.SamplerMethod.GREEDY };

function alone(prompt, options = {}) {
  const s = model.newState();
  const g = ai00.Generator.raw(model, s, prompt, { sampler: GREEDY, maxTokens: 8, ...options });
  let text = '';
  for (;;) {
    const ds = g.step(4);
    for (const d of ds) if (d.kind === ai00.DeltaKind.TEXT) text += d.text;
    if (g.finished) break;
  }
  g.close(); s.close();
  return text;
}

test('a batch of three gives the lone texts; remove mid-way continues exactly', async () => {
  const expected = PROMPTS.map((p) => alone(p));
  const states = PROMPTS.map(() => model.newState());
  const gens = PROMPTS.map((p, i) => ai00.Generator.raw(model, states[i], p, { sampler: GREEDY, maxTokens: 8 }));
  const texts = new Map(gens.map((g) => [g, '']));
  const finished = new Set();
  const batch = new ai00.Batch(model);
  gens.forEach((g) => batch.add(g));
  assert.equal(batch.size, 3);
  for await (const ev of batch.events({ maxTokens: 2 })) {
    assert.notEqual(ev.kind, ai00.BatchEventKind.ERROR);
    if (ev.kind === ai00.BatchEventKind.DELTA && ev.delta.kind === ai00.DeltaKind.TEXT) {
      texts.set(ev.generator, texts.get(ev.generator) + ev.delta.text);
    }
    if (ev.kind === ai00.BatchEventKind.FINISHED) finished.add(ev.generator);
  }
  assert.equal(finished.size, 3);
  assert.deepEqual(gens.map((g) => texts.get(g)), expected);

  // Remove mid-way (synchronous step), then finish alone.
  const s = model.newState();
  const g = ai00.Generator.raw(model, s, PROMPTS[0], { sampler: GREEDY, maxTokens: 8 });
  batch.add(g);
  assert.throws(() => g.step(), ai00.InvalidArgumentError);
  const r = batch.step({ maxTokens: 3 });
  let first = r.events.filter((e) => e.generator === g && e.kind === ai00.BatchEventKind.DELTA)
    .map((e) => e.delta.text).join('');
  batch.remove(g);
  assert.equal(batch.size, 3);
  first += await g.text();
  assert.equal(first, expected[0]);
  g.close(); s.close();
  batch.close();
  gens.forEach((x) => x.close());
  states.forEach((x) => x.close());
});

test('a time budget takes turns unless wholeBatch', () => {
  const states = PROMPTS.map(() => model.newState());
  const gens = PROMPTS.map((p, i) => ai00.Generator.raw(model, states[i], p, { sampler: GREEDY, maxTokens: 8 }));
  const batch = new ai00.Batch(model);
  gens.forEach((g) => batch.add(g));
  // Nothing measured yet: one row each; then a 1 us budget holds one member per call.
  let r = batch.step({ maxTokens: 4, timeBudgetUs: 1 });
  assert.equal(r.steps, 1); assert.equal(r.promptTokens, 3);
  r = batch.step({ maxTokens: 4, timeBudgetUs: 1 });
  assert.equal(r.steps, 1); assert.equal(r.timeLimited, true); assert.equal(r.promptTokens, 1);
  r = batch.step({ maxTokens: 4, timeBudgetUs: 1, wholeBatch: true });
  assert.equal(r.steps, 1); assert.equal(r.promptTokens, 3);
  gens.forEach((g) => batch.remove(g));
  batch.close();
  gens.forEach((x) => x.close());
  states.forEach((x) => x.close());
});

test('batch bad input: another model, the same generator twice, a busy batch', async () => {
  const other = new ai00.Model(TINY);
  const os1 = other.newState(); const og = ai00.Generator.raw(other, os1, 'Hi', { maxTokens: 2 });
  const s = model.newState(); const g = ai00.Generator.raw(model, s, 'Hi', { maxTokens: 2 });
  const b = new ai00.Batch(model);
  assert.throws(() => b.add(og), (e) => e instanceof ai00.MismatchError && e.status === ai00.Status.MISMATCH && e.libraryMessage.length > 0);
  b.add(g);
  assert.throws(() => b.add(g), (e) => e instanceof ai00.InvalidArgumentError && e.libraryMessage.length > 0);
  const pending = b.stepAsync({ maxTokens: 1 });
  assert.throws(() => g.close(), ai00.InvalidArgumentError); // not while the batch steps on a worker
  assert.throws(() => b.step(), ai00.InvalidArgumentError);
  await pending;
  const r = b.step({ maxTokens: 100 });
  assert.equal(r.unfinished, 0);
  assert.equal(r.events[r.events.length - 1].kind, ai00.BatchEventKind.FINISHED);
  assert.equal(b.step().steps, 0);
  g.close(); // a member closed first leaves the batch
  assert.equal(b.size, 0);
  b.close(); s.close(); og.close(); os1.close(); other.close();
});

test('a prefix-cache hit gives the output of a miss', () => {
  const prompt = 'A long shared persona line for every character of the village. Hello';
  const miss = alone(prompt);
  const cache = new ai00.PrefixCache({ maxBytes: 64 << 20 });
  assert.equal(alone(prompt, { prefixCache: cache }), miss);
  let st = cache.stats;
  assert.equal(st.misses, 1); assert.equal(st.hits, 0); assert.ok(st.entries >= 1);
  assert.equal(alone(prompt, { prefixCache: cache }), miss);
  st = cache.stats;
  assert.equal(st.hits, 1); assert.ok(st.hitTokens > 0);
  cache.clear();
  assert.equal(cache.stats.entries, 0);
  assert.ok(cache.warm(model, 'A long shared persona') > 0);
  assert.equal(cache.warm(model, model.tokenize('A long shared persona')), 0);
  assert.throws(() => cache.warm(model, []), ai00.InvalidArgumentError);
  cache.close();

  // Closing a cache while a generator uses it waits for the generator (the header's rule).
  const c2 = new ai00.PrefixCache();
  const s = model.newState();
  const g = ai00.Generator.raw(model, s, prompt, { sampler: GREEDY, maxTokens: 8, prefixCache: c2 });
  c2.close();
  assert.ok(c2.closed);
  const s2 = model.newState();
  assert.throws(() => ai00.Generator.raw(model, s2, prompt, { prefixCache: c2 }), ai00.InvalidArgumentError);
  s2.close();
  let text = '';
  while (!g.finished) for (const d of g.step(4)) if (d.kind === ai00.DeltaKind.TEXT) text += d.text;
  assert.equal(text, miss);
  g.close();
  assert.equal(c2._ptr, null); // freed with its last generator
  s.close();
});

test('a prefix-cache reserve sets memory aside until clear', () => {
  const info = model.info;
  const perEntry = info.stateBytes + 4 * info.vocab + 256; // State floats, logits, 256 bytes
  const cache = new ai00.PrefixCache({ maxBytes: 64 << 20 });
  assert.equal(cache.stats.spareBytes, 0);
  assert.equal(cache.reserve(model, 0), 0);
  assert.equal(cache.reserve(model, 2), 2);
  let st = cache.stats;
  assert.equal(st.spareBytes, 2 * perEntry); assert.equal(st.entries, 0);
  // An insert takes a spare.
  assert.ok(cache.warm(model, 'A long shared persona') > 0);
  st = cache.stats;
  assert.equal(st.spareBytes, perEntry); assert.equal(st.entries, 1);
  cache.clear();
  assert.equal(cache.stats.spareBytes, 0);
  assert.throws(() => cache.reserve(model, -1), ai00.InvalidArgumentError);
  cache.close();
  // A bound smaller than one entry sets nothing aside.
  const tiny = new ai00.PrefixCache({ maxBytes: 1024 });
  assert.equal(tiny.reserve(model, 2), 0);
  assert.equal(tiny.stats.spareBytes, 0);
  tiny.close();
});

test('option scoring: finite scores, the State unchanged, K = 0 refused', () => {
  const s = model.newState();
  s.eval(model.tokenize('The cat sat on the'), { logits: false });
  const before = s.save();
  const cands = [' mat', ' roof', ' very big dog'].map((t) => model.tokenize(t));
  const ctx = model.tokenize(' old');
  const scores = ai00.scoreOptions(model, s, cands, { context: ctx });
  assert.equal(scores.length, 3);
  scores.forEach((sc, i) => {
    assert.ok(Number.isFinite(sc.totalLogprob) && sc.totalLogprob < 0);
    assert.equal(sc.nTokens, cands[i].length);
  });
  const texts = ai00.scoreTexts(model, s, [' mat', ' roof', ' very big dog'], { context: ctx });
  assert.deepEqual(texts.map((t) => t.totalLogprob), scores.map((t) => t.totalLogprob));
  assert.ok(s.save().equals(before));
  assert.throws(() => ai00.scoreOptions(model, s, [], { context: ctx }),
    (e) => e instanceof ai00.InvalidArgumentError && e.libraryMessage.length > 0);
  s.close();
});

test('state bundle round trip and a truncated bundle', () => {
  const a = model.newState(); const b = model.newState();
  a.eval(model.tokenize('Alice speaks'), { logits: false });
  b.eval(model.tokenize('Bob listens quietly'), { logits: false });
  const data = ai00.StateBundle.save({ alice: a, bob: b });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ai00-')), 'village.bundle');
  ai00.StateBundle.saveFile(new Map([['alice', a], ['bob', b]]), file);
  const bundle = ai00.StateBundle.open(data);
  const fromFile = ai00.StateBundle.openFile(file);
  assert.equal(bundle.length, 2);
  assert.deepEqual(bundle.names, ['alice', 'bob']);
  assert.deepEqual(fromFile.names, ['alice', 'bob']);
  assert.equal(bundle.find('bob'), 1);
  const loaded = bundle.loadAll(model);
  assert.ok(loaded.get('alice').save().equals(a.save()));
  assert.ok(loaded.get('bob').save().equals(b.save()));
  loaded.forEach((x) => x.close());
  assert.throws(() => bundle.find('carol'), ai00.InvalidArgumentError);
  assert.throws(() => ai00.StateBundle.open(data.subarray(0, data.length - 10)),
    (e) => e instanceof ai00.ModelFileError && e.status === ai00.Status.MODEL_FILE && e.libraryMessage.length > 0);
  bundle.close(); fromFile.close(); a.close(); b.close();
});
