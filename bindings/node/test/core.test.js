'use strict';
// The behaviours every ai00 binding shows: load, the C example's tokens, tool calls, JSON Schema
// replies, State save/load, cancel from another thread, errors.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ai00 = require('..');
const { MODEL, TINY, SHARED, TOOLS, CHAT } = require('./helpers');

const model = new ai00.Model(MODEL);
test.after(() => model.close());

test('versions and status', () => {
  assert.equal(ai00.version(), '0.5.0');
  assert.equal(ai00.abiVersion(), 0);
  assert.equal(ai00.finishReasonName(ai00.FinishReason.TOOL_CALLS), 'tool_calls');
  assert.throws(() => ai00.finishReasonName(99), ai00.InvalidArgumentError);
  assert.notEqual(ai00.statusString(ai00.Status.IO), ai00.statusString(ai00.Status.GRAMMAR));
  assert.ok(ai00.lastError().length > 0);
});

test('model load and info', () => {
  const info = model.info;
  assert.deepEqual([info.embedding, info.layers, info.vocab, info.tokens], [128, 3, 512, 512]);
  const fresh = model.newState();
  // The recurrent floats (L * C * (N + 2) * 4); a saved State adds its header and sampler.
  assert.equal(info.stateBytes, 3 * 128 * 66 * 4);
  assert.equal(info.stateBytes, model.infoJson().state_bytes);
  assert.ok(fresh.size > info.stateBytes);
  fresh.close();
  assert.equal(model.infoJson().format, 'gguf');
  const ids = model.tokenize('hello\n\n');
  assert.equal(ids[0], 105);
  assert.equal(model.detokenize(ids), 'hello\n\n');
  const m2 = new ai00.Model(MODEL, { threads: 2, forcedIsa: 'scalar' });
  assert.equal(m2.isa, 'scalar');
  assert.equal(m2.info.threads, 2);
  m2.close();
});

test('same tokens as the C example', async (t) => {
  const state = model.newState();
  const goose = new ai00.ChatTemplate('goose');
  const gen = ai00.Generator.chat(model, state, goose, CHAT, { maxTokens: 32, seed: 2024 });
  const text = await gen.text();
  const tokens = gen.tokens;
  assert.equal(gen.finishReason, ai00.FinishReason.LENGTH);
  gen.close(); goose.close(); state.close();
  assert.equal(tokens.length, 32);
  if (process.env.AI00_REFERENCE_TURN) {
    const out = execFileSync(process.env.AI00_REFERENCE_TURN, [MODEL], { encoding: 'utf8' });
    assert.equal(tokens.join(','), out.trim());
  }
  if (process.env.AI00_EXAMPLE_CHAT_TURN) {
    const out = execFileSync(process.env.AI00_EXAMPLE_CHAT_TURN, [MODEL], { encoding: 'utf8' });
    assert.equal(out.split('Assistant:')[1].split('\n[finish reason')[0], text);
  }
  if (!process.env.AI00_REFERENCE_TURN && !process.env.AI00_EXAMPLE_CHAT_TURN) t.skip('reference programs not set (ctest sets them)');
});

async function turn(drive) {
  const state = model.newState();
  const t = new ai00.ChatTemplate('goose');
  const g = ai00.Generator.chat(model, state, t, CHAT, { maxTokens: 12, seed: 5 });
  try { return await drive(g); } finally { g.close(); t.close(); state.close(); }
}

test('pull, push and step give the same deltas', async () => {
  const pulled = await turn(async (g) => { const l = []; for await (const d of g) l.push(d); return l; });
  const pushed = await turn((g) => { const l = []; g.run((d) => { l.push(d); }); return l; });
  const stepped = await turn((g) => { const l = []; while (!g.finished) l.push(...g.step(2)); return l; });
  assert.deepEqual(pulled, pushed);
  assert.deepEqual(pulled, stepped);
  assert.equal(pulled.at(-1).kind, ai00.DeltaKind.FINISH);
});

test('a callback stops the turn and its exception propagates', () => {
  const state = model.newState();
  const t = new ai00.ChatTemplate('goose');
  let g = ai00.Generator.chat(model, state, t, CHAT, { maxTokens: 50, seed: 1 });
  assert.ok([ai00.FinishReason.CANCELLED, ai00.FinishReason.STOP].includes(g.run(() => true)));
  g.close();
  state.reset();
  g = ai00.Generator.chat(model, state, t, CHAT, { maxTokens: 50, seed: 1 });
  assert.throws(() => g.run(() => { throw new RangeError('from the callback'); }), RangeError);
  g.close(); t.close(); state.close();
});

test('a tool call is parsed into a structured call', () => {
  const reply = '<ai00:function_calls>\n  <invoke name="get_weather">\n    <parameter '
    + 'name="city">Tokyo</parameter>\n  </invoke>\n</ai00:function_calls>';
  const v1 = new ai00.ChatTemplate('ai00-v1');
  const p = v1.outputParser({ tools: TOOLS });
  const deltas = [];
  for (let i = 0; i < reply.length; i += 7) deltas.push(...p.push(reply.slice(i, i + 7)));
  deltas.push(...p.finish(ai00.FinishReason.STOP));
  const calls = deltas.filter((d) => d.kind === ai00.DeltaKind.TOOL_CALL);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].name, 'get_weather');
  assert.deepEqual(calls[0].arguments, { city: 'Tokyo' });
  assert.match(calls[0].id, /^call_/);
  assert.equal(p.finishReason, ai00.FinishReason.TOOL_CALLS);
  assert.deepEqual(p.message.tool_calls[0].function, { name: 'get_weather', arguments: { city: 'Tokyo' } });
  assert.deepEqual(p.warnings, []);
  p.close();
  const g = ai00.Grammar.forTools(v1, TOOLS, { level: ai00.GrammarMode.SCHEMA_AWARE });
  assert.match(g.kbnf, /get_weather/);
  assert.ok(g.check(reply).accepted);
  assert.equal(g.check(reply.replace('get_weather', 'get_time')).verdict, ai00.CheckVerdict.BYTES);
  g.close(); v1.close();
});

test('streamed tool-call deltas from the parser', () => {
  const reply = '<ai00:function_calls>\n  <invoke name="get_weather">\n    <parameter '
    + 'name="city">Tokyo</parameter>\n  </invoke>\n</ai00:function_calls>';
  const v1 = new ai00.ChatTemplate('ai00-v1');
  const p = v1.outputParser({ tools: TOOLS, streamToolCalls: true });
  const deltas = [...p.push(reply), ...p.finish()];
  p.close();
  const plain = v1.outputParser({ tools: TOOLS });
  assert.ok(![...plain.push(reply), ...plain.finish()].some((d) => d.kind === ai00.DeltaKind.TOOL_CALL_START));
  plain.close(); v1.close();
  const si = deltas.findIndex((d) => d.kind === ai00.DeltaKind.TOOL_CALL_START);
  const ci = deltas.findIndex((d) => d.kind === ai00.DeltaKind.TOOL_CALL);
  assert.ok(si >= 0 && si < ci);
  assert.equal(deltas[si].name, 'get_weather');
  assert.equal(deltas[si].id, deltas[ci].id);
  assert.equal(deltas[si].call, 0);
  const pieces = deltas.filter((d) => d.kind === ai00.DeltaKind.TOOL_CALL_ARGUMENTS).map((d) => d.text).join('');
  assert.deepEqual(JSON.parse(pieces), { city: 'Tokyo' });
  assert.equal(deltas.at(-1).kind, ai00.DeltaKind.FINISH);
});

test('limits: get, set, bad values', () => {
  const d = ai00.Limits.default();
  assert.equal(d.maxNestingDepth, 256);
  assert.equal(d.maxThreads, 1024);
  assert.deepEqual(ai00.Limits.get(), d);
  try {
    ai00.Limits.set({ ...d, maxNestingDepth: 3 });
    assert.equal(ai00.Limits.get().maxNestingDepth, 3);
    assert.throws(() => ai00.Grammar.fromKbnf("start ::= ((((('a')))));"),
      (e) => e instanceof ai00.GrammarError && e.libraryMessage.includes('max_nesting_depth'));
    assert.throws(() => ai00.Limits.set({ ...d, maxTokens: 0 }),
      (e) => e instanceof ai00.InvalidArgumentError && e.libraryMessage.includes('max_tokens'));
    assert.equal(ai00.Limits.get().maxNestingDepth, 3);
  } finally { ai00.Limits.set(d); }
  assert.deepEqual(ai00.Limits.get(), d);
});

test('convert a model with progress', () => {
  const src = path.join(SHARED, 'models', 'rand-rwkv7-c128-l3-v512-FP32.bin');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ai00-node-convert-'));
  const dst = path.join(dir, 'm.gguf'); const st = path.join(dir, 'm.st');
  try {
    const seen = [];
    ai00.convertModel(src, dst, { weightType: ai00.WeightType.Q8_0, progress: (done, total) => { seen.push([done, total]); } });
    assert.ok(seen.length > 0 && seen.at(-1)[0] === seen.at(-1)[1] && seen.at(-1)[1] > 0);
    const m = new ai00.Model(dst);
    assert.equal(m.info.embedding, 128);
    m.close();
    assert.throws(() => ai00.convertModel(src, dst), (e) => e instanceof ai00.IOError && /exists/.test(e.libraryMessage));
    assert.throws(() => ai00.convertModel(src, st, { fileFormat: ai00.FileFormat.SAFETENSORS, weightType: ai00.WeightType.Q4_0 }),
      (e) => e instanceof ai00.UnsupportedError && /Q4_0/.test(e.libraryMessage));
    assert.throws(() => ai00.convertModel(src, st, { progress: () => true }), ai00.CancelledError);
    assert.ok(!fs.existsSync(st));
    assert.throws(() => ai00.convertModel(src, st, { progress: () => { throw new RangeError('boom'); } }), RangeError);
    assert.ok(!fs.existsSync(st));
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});

test('a schema-aware tool turn only writes what parses', async () => {
  const state = model.newState();
  const v1 = new ai00.ChatTemplate('ai00-v1');
  const g = ai00.Generator.chat(model, state, v1, [{ role: 'user', content: 'Weather in Paris?' }],
    { tools: TOOLS, maxTokens: 64, seed: 3, grammarMode: ai00.GrammarMode.SCHEMA_AWARE });
  for await (const d of g) if (d.kind === ai00.DeltaKind.TOOL_CALL) assert.equal(d.name, 'get_weather');
  assert.equal(g.message.role, 'assistant');
  g.close(); v1.close(); state.close();
});

test('a JSON-Schema-constrained reply parses', async () => {
  const schema = {
    type: 'object', properties: { ok: { type: 'boolean' }, mood: { enum: ['calm', 'angry'] } }, required: ['ok', 'mood'],
  };
  // The canonical layout and strict keys: a random model would otherwise write whitespace.
  const grammar = model.jsonSchemaGrammar(schema, { flexibleWhitespace: false, strictProperties: true });
  const state = model.newState();
  const g = ai00.Generator.raw(model, state, 'Answer in JSON: ', { grammar, maxTokens: 40, seed: 11 });
  const text = await g.text();
  assert.ok([ai00.FinishReason.GRAMMAR_DONE, ai00.FinishReason.STOP].includes(g.finishReason));
  const value = JSON.parse(text);
  assert.equal(typeof value.ok, 'boolean');
  assert.ok(['calm', 'angry'].includes(value.mood));
  assert.ok(grammar.accepts(text));
  g.close(); state.close(); grammar.close();
});

test('State save/load continues identically', async () => {
  const s = model.newState();
  const t = new ai00.ChatTemplate('goose');
  let g = ai00.Generator.chat(model, s, t, CHAT, { maxTokens: 8, seed: 9 });
  await g.text();
  g.close();
  const data = s.save();
  assert.equal(data.length, s.size);
  const file = path.join(os.tmpdir(), `ai00_node_${process.pid}.state`);
  s.saveFile(file);
  const follow = [...CHAT, { role: 'user', content: 'And then?' }];
  const cont = async (st) => {
    const g2 = ai00.Generator.chat(model, st, t, follow, { maxTokens: 10 });
    const text = await g2.text();
    const tokens = g2.tokens;
    g2.close();
    return [text, tokens];
  };
  const a = ai00.State.load(model, data);
  const b = ai00.State.loadFile(model, file);
  const c = s.clone();
  const expected = await cont(s);
  assert.deepEqual(await cont(a), expected);
  assert.deepEqual(await cont(b), expected);
  assert.deepEqual(await cont(c), expected);
  fs.unlinkSync(file);
  [a, b, c, s, t].forEach((x) => x.close());
});

test('eval, sample and sampler parameters', () => {
  const math = ai00.SamplerParams.preset(ai00.Preset.MATH);
  assert.ok(Math.abs(math.temperature - 0.3) < 1e-6 && math.presencePenalty === 0);
  const s = model.newState();
  const logits = s.eval([0, 69, 66]);
  assert.equal(logits.length, 512);
  const top = logits.indexOf(Math.max(...logits));
  const greedy = { ...ai00.SamplerParams.default(), method: ai00.SamplerMethod.GREEDY };
  assert.equal(s.sample(logits, greedy), top);
  assert.notEqual(s.sample(logits, { ...greedy, logitBias: { [top]: -Infinity } }), top);
  s.setSeed(4);
  assert.ok(s.sample(logits) < 512);
  assert.throws(() => s.sample(logits, { topP: 2 }), (e) => e instanceof ai00.InvalidArgumentError && /top_p/.test(e.libraryMessage));
  const s2 = model.newState();
  const rows = s2.evalAll([0, 69, 66]);
  assert.equal(rows.length, 3);
  rows[2].forEach((x, i) => assert.ok(Math.abs(x - logits[i]) < 1e-3));
  assert.equal(s2.eval([1], { logits: false }), null);
  const s3 = ai00.State.loadInitial(model, path.join(SHARED, 'models', 'rand-rwkv7-c128-l3-v512-init.state'));
  assert.ok(s3.size >= model.info.stateBytes);
  [s, s2, s3].forEach((x) => x.close());
});

test('an AbortSignal cancels a generation running on another thread', async () => {
  const state = model.newState();
  const g = ai00.Generator.raw(model, state, 'Once upon a time',
    { maxTokens: 100000, seed: 1, sampler: { banEos: true } });
  const controller = new AbortController();
  let last = null;
  for await (const d of g.stream({ signal: controller.signal })) {
    last = d;
    // The token after this one is being generated on a worker thread while we abort here.
    if (!controller.signal.aborted) setImmediate(() => controller.abort());
  }
  assert.equal(last.finishReason, ai00.FinishReason.CANCELLED);
  assert.equal(g.finishReason, ai00.FinishReason.CANCELLED);
  assert.ok(g.tokens.length < 100000);
  g.close(); state.close();
});

test('bad input gives Ai00Error subclasses with the library message', () => {
  assert.throws(() => new ai00.Model('/nonexistent/model.gguf'),
    (e) => e instanceof ai00.IOError && e instanceof Error && e.status === ai00.Status.IO
      && e.libraryMessage.includes('/nonexistent/model.gguf'));
  assert.throws(() => model.grammar("start ::= 'a' |;"),
    (e) => e instanceof ai00.GrammarError && e.libraryMessage.includes('line 1, column 16'));
  assert.throws(() => ai00.Grammar.fromJsonSchema({ type: 'array', unevaluatedItems: {} }),
    (e) => e instanceof ai00.GrammarError && e.libraryMessage.includes('/unevaluatedItems'));
  const tiny = new ai00.Model(TINY);
  const other = tiny.newState();
  const t = new ai00.ChatTemplate('goose');
  assert.throws(() => ai00.Generator.chat(model, other, t, CHAT), ai00.MismatchError);
  assert.throws(() => ai00.State.load(model, other.save()), ai00.MismatchError);
  assert.throws(() => t.render([{ role: 'nobody' }]), ai00.FormatError);
  other.close(); tiny.close(); t.close();
  const junk = Buffer.alloc(72); junk.write('AI00STAT');
  assert.throws(() => ai00.State.load(model, junk), ai00.ModelFileError);
  assert.throws(() => ai00.State.loadFile(model, '/nonexistent/x.state'), ai00.IOError);
  assert.throws(() => new ai00.ChatTemplate('nope'), (e) => e instanceof ai00.InvalidArgumentError && /goose/.test(e.libraryMessage));
  const s = model.newState();
  assert.throws(() => ai00.Generator.raw(model, s, ''), ai00.InvalidArgumentError);
  assert.throws(() => s.eval([600]), ai00.InvalidArgumentError);
  assert.match(s.lastError, /600/);
  s.close();
});

test('closed handles are refused; closing a State closes its generator', () => {
  const s = model.newState();
  s.close(); s.close();
  assert.ok(s.closed);
  assert.throws(() => s.save(), ai00.InvalidArgumentError);
  const s2 = model.newState();
  const t = new ai00.ChatTemplate('goose');
  const g = ai00.Generator.chat(model, s2, t, CHAT, { maxTokens: 2 });
  s2.close();
  assert.ok(g.closed);
  g.cancel(); // harmless once closed
  t.close();
});

test('a model load reports monotonic progress, ends at (total, total) and cancels', () => {
  const src = path.join(SHARED, 'models', 'rand-rwkv7-c128-l3-v512-F16.gguf');
  const seen = [];
  const m = new ai00.Model(src, { progress: (done, total) => { seen.push([done, total]); } });
  assert.equal(m.info.vocab, 512);
  m.close();
  assert.ok(seen.length >= 3 && seen[0][0] === 0 && seen[0][1] > 0);
  const total = seen[0][1];
  for (let i = 1; i < seen.length; ++i) assert.ok(seen[i][0] >= seen[i - 1][0] && seen[i][1] === total);
  assert.deepEqual(seen.at(-1), [total, total]);
  assert.equal(seen.filter(([d, t]) => d === t).length, 1);
  let last = 0;
  assert.throws(() => new ai00.Model(src, { progress: (d, t) => { last = d / t; return last >= 0.5; } }),
    (e) => e instanceof ai00.CancelledError && /cancelled/.test(e.libraryMessage));
  assert.ok(last >= 0.5 && last < 1);
  assert.throws(() => new ai00.Model(src, { progress: () => { throw new RangeError('boom'); } }), RangeError);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ai00-node-broken-'));
  try {
    const bad = path.join(dir, 'broken.gguf');
    fs.writeFileSync(bad, Buffer.from('GGUF\x03\x00\x00\x00 truncated', 'latin1'));
    let calls = 0;
    assert.throws(() => new ai00.Model(bad, { progress: () => { calls++; } }), ai00.ModelFileError);
    assert.equal(calls, 0);
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  const caps = ai00.capabilities();
  assert.ok(caps.isa_compiled.includes('scalar') && caps.isa_supported.includes(caps.isa));
  assert.ok(caps.chat_formats.includes('ai00-v1') && caps.grammar.includes('json_schema'));
});

test('tool choice: a named tool, streamed calls, an unknown name', () => {
  // As tests/c/test_c_tool_choice.c: finite arguments, so a forced call always closes.
  const tools = [
    { name: 'get_weather', parameters: { type: 'object', properties: { location: { enum: ['Oslo', 'Tokyo'] }, unit: { enum: ['c', 'f'] } },
      required: ['location', 'unit'], additionalProperties: false } },
    { name: 'get_time', parameters: { type: 'object', additionalProperties: false } }];
  const msgs = [{ role: 'user', content: 'Weather in Oslo?' }];
  const tmpl = new ai00.ChatTemplate('ai00-v1');
  const common = { tools, maxTokens: 200, seed: 7, grammarMode: ai00.GrammarMode.SCHEMA_AWARE, parallelToolCalls: false };
  const turn = (options) => {
    const state = model.newState();
    try {
      const g = ai00.Generator.chat(model, state, tmpl, msgs, { ...common, ...options });
      const deltas = [];
      const reason = g.run((d) => { deltas.push(d); });
      const message = g.message;
      g.close();
      return { deltas, reason, message };
    } finally { state.close(); }
  };
  let r = turn({ streamToolCalls: true, toolChoice: { name: 'get_weather' } });
  assert.equal(r.reason, ai00.FinishReason.TOOL_CALLS);
  const of = (k) => r.deltas.filter((d) => d.kind === k);
  assert.deepEqual(of(ai00.DeltaKind.TOOL_CALL_START).map((d) => d.name), ['get_weather']);
  const calls = of(ai00.DeltaKind.TOOL_CALL);
  assert.deepEqual(calls.map((d) => d.name), ['get_weather']);
  assert.equal(of(ai00.DeltaKind.TOOL_CALL_ARGUMENTS).map((d) => d.text).join(''), calls[0].text);
  assert.ok(JSON.stringify(r.message.tool_calls).includes('get_weather'));
  // Without streaming: the whole call only.
  r = turn({ toolChoice: { name: 'get_time' } });
  assert.ok(!r.deltas.some((d) => d.kind === ai00.DeltaKind.TOOL_CALL_START || d.kind === ai00.DeltaKind.TOOL_CALL_ARGUMENTS));
  assert.deepEqual(r.deltas.filter((d) => d.kind === ai00.DeltaKind.TOOL_CALL).map((d) => d.name), ['get_time']);
  // none: no call.
  r = turn({ toolChoice: ai00.ToolChoice.NONE, maxTokens: 24 });
  assert.ok(!r.deltas.some((d) => d.kind === ai00.DeltaKind.TOOL_CALL));
  // An unknown tool: InvalidArgumentError naming it.
  assert.throws(() => turn({ toolChoice: { name: 'get_wether' } }),
    (e) => e instanceof ai00.InvalidArgumentError && e.message.includes('`get_wether`'));
  tmpl.close();
});

test('exact activations give the reference logits', () => {
  // Activations.EXACT: the fp64 reference logits of the Q8_0 fixture after its first three
  // tokens; the default DOT (int8 dot products) is farther; infoJson says which; another value
  // is refused naming the field.
  const file = path.join(SHARED, 'models', 'rand-rwkv7-c128-l3-v512-Q8_0.gguf');
  const raw = fs.readFileSync(path.join(SHARED, 'models', 'rand-rwkv7-c128-l3-v512-Q8_0-logits.bin'));
  const maxDiff = (activations) => {
    const m = new ai00.Model(file, { activations });
    try {
      const name = activations === ai00.Activations.EXACT ? 'exact' : 'dot';
      assert.equal(m.infoJson().activations, name);
      const s = m.newState();
      const logits = s.eval([0, 69, 66]);
      s.close();
      let d = 0;
      for (let i = 0; i < logits.length; ++i) d = Math.max(d, Math.abs(logits[i] - raw.readFloatLE((2 * 512 + i) * 4)));
      return d;
    } finally {
      m.close();
    }
  };
  assert.ok(maxDiff(ai00.Activations.EXACT) <= 2e-5);
  assert.ok(maxDiff(ai00.Activations.DOT) > 1e-4);
  assert.throws(() => new ai00.Model(file, { activations: 7 }),
    (e) => e instanceof ai00.InvalidArgumentError && e.message.includes('ai00_model_params.activations'));
});
