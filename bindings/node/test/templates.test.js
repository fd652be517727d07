'use strict';
// Chat templates (every format and option), tokenizers and grammars without a model.
const test = require('node:test');
const assert = require('node:assert/strict');
const ai00 = require('..');
const { MODEL, VOCAB, TOOLS } = require('./helpers');

const CONV = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }];

test('every format and option renders', () => {
  for (const name of ai00.FORMATS) {
    const t = new ai00.ChatTemplate(name);
    const r = t.render(CONV);
    assert.match(r.prompt, /Hi/);
    assert.notEqual(t.render(CONV, { addGenerationPrompt: false }).prompt, r.prompt);
    if (name === 'ai00-v0') assert.throws(() => t.render(CONV, { thinking: ai00.Thinking.ON }), ai00.UnsupportedError);
    else assert.ok(t.render(CONV, { thinking: ai00.Thinking.A_LOT }).prompt.length > 0);
    const named = t.render(CONV, { assistantName: 'Ann' });
    assert.equal(t.lastRender().prompt, named.prompt);
    t.close();
  }
  const goose = new ai00.ChatTemplate('goose');
  assert.ok(goose.render(CONV).stopSequences.includes('\n\n'));
  goose.close();
  const v1 = new ai00.ChatTemplate('ai00-v1');
  assert.match(v1.render(CONV, { tools: TOOLS, thinking: ai00.Thinking.ON }).prompt, /get_weather/);
  assert.equal(v1.lastRender().constraints.tool_syntax, 'ai00_v1_xml');
  v1.close();
  const c = new ai00.ChatTemplate('openchatml');
  assert.throws(() => c.lastRender(), (e) => /not rendered/.test(e.libraryMessage));
  assert.match(c.lastError, /not rendered/);
  c.close();
});

test('reasoning from the output parser', () => {
  const goose = new ai00.ChatTemplate('goose');
  const p = goose.outputParser({ thinking: ai00.Thinking.ON });
  const deltas = [...p.push('>\nI think.\n</think>\nHi!\n\nUser: x'), ...p.finish()];
  const join = (k) => deltas.filter((d) => d.kind === k).map((d) => d.text).join('');
  assert.equal(join(ai00.DeltaKind.REASONING), 'I think.');
  assert.equal(join(ai00.DeltaKind.TEXT), 'Hi!');
  p.close(); goose.close();
});

test('tokenizers from a file and from a model', () => {
  const tok = new ai00.Tokenizer(VOCAB);
  assert.ok(tok.vocabSize > 65000);
  assert.deepEqual(tok.encode('Hello, 你好'), [33155, 45, 33, 10464, 11685]);
  const raw = Buffer.from([0x63, 0x61, 0x66, 0xc3, 0xa9, 0x20, 0xff, 0xfe, 0x80]);
  assert.deepEqual(tok.decode(tok.encode(raw)), raw);
  assert.throws(() => tok.decode([5, 70000]), (e) => e.libraryMessage.includes('token id 70000 at position 1'));
  assert.match(tok.lastError, /70000/);
  const g = ai00.Grammar.fromKbnf("start ::= #ex'</a>' '</a>';", { tokenizer: tok });
  assert.ok(g.check('Hello world, how are you?</a>').accepted);
  assert.equal(g.check('Hello</a>x').byteOffset, 9);
  g.close(); tok.close();
  assert.throws(() => new ai00.Tokenizer('/nonexistent/vocab.txt'), ai00.IOError);
  const m = new ai00.Model(MODEL);
  const fromModel = m.tokenizer();
  m.close();
  assert.equal(fromModel.vocabSize, 512);
  assert.equal(fromModel.encode('hello\n\n')[0], 105);
  fromModel.close();
});

test('grammars without a model', () => {
  const yesNo = "start ::= 'yes' | 'no';\nalt ::= 'ok';";
  let g = ai00.Grammar.fromKbnf(yesNo);
  assert.ok(g.check('yes').accepted && g.accepts('no') && !g.accepts('yeah'));
  assert.equal(g.check('yeah').byteOffset, 2);
  g.close();
  g = ai00.Grammar.fromKbnf(yesNo, { startRule: 'alt' });
  assert.ok(g.accepts('ok') && !g.accepts('yes'));
  g.close();
  assert.throws(() => ai00.Grammar.fromKbnf('start ::= a;'), (e) => /undefined rule/.test(e.libraryMessage));
  const schema = { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] };
  g = ai00.Grammar.fromJsonSchema(schema);
  assert.ok(g.accepts('{"x": 12}') && !g.accepts('{"x": "a"}'));
  assert.match(g.kbnf, /start/);
  assert.deepEqual(g.warnings, []);
  g.close();
  g = ai00.Grammar.fromJsonSchema({ type: 'array', unevaluatedItems: {} }, { lenient: true });
  assert.equal(g.warnings.length, 1);
  g.close();
  g = ai00.Grammar.fromJsonSchema(schema, { flexibleWhitespace: true, maxWhitespace: 2 });
  assert.ok(g.accepts('{ "x" : 1 }'));
  g.close();
  assert.throws(() => ai00.Grammar.fromJsonSchema(schema, { maxWhitespace: 65 }), /max_whitespace = 65/);
  const v1 = new ai00.ChatTemplate('ai00-v1');
  const goose = new ai00.ChatTemplate('goose');
  g = ai00.Grammar.forTools(v1, TOOLS, { thinkingStart: ai00.ThinkingStart.OPTIONAL, allowEosEnd: true, schema: {} });
  assert.match(g.kbnf, /<ai00:function_calls>/);
  g.close();
  assert.throws(() => ai00.Grammar.forTools(goose, TOOLS), ai00.InvalidArgumentError);
  assert.throws(() => ai00.Grammar.forTools(v1, [{ name: 3 }]), (e) => e instanceof ai00.FormatError && /\/0\/name/.test(e.libraryMessage));
  v1.close(); goose.close();
});

const TOML = '[prompts]\nrole_user = "human"\n[prompts.goose]\nprepend_token0 = true\n[presets.math]\ntemperature = 0.25\n';

test('template configuration and presets', () => {
  const t = ai00.ChatTemplate.withConfig('ai00-v1', TOML);
  assert.ok(t.render([{ role: 'user', content: 'Hi' }]).prompt.startsWith('<ai00:human>\nHi\n</ai00:human>'));
  const math = t.samplerPreset('math');
  assert.ok(Math.abs(math.temperature - 0.25) < 1e-6 && Math.abs(math.topP - 0.3) < 1e-6);
  assert.throws(() => t.samplerPreset('wild'),
    (e) => e instanceof ai00.InvalidArgumentError && e.libraryMessage.includes('known: math, chat, creative'));
  t.close();
  assert.throws(() => new ai00.ChatTemplate('goose', { config: '[prompts]\nrole_user = 3\n' }),
    (e) => e instanceof ai00.FormatError && e.libraryMessage.includes('config:2:13: prompts.role_user'));
  const g = new ai00.ChatTemplate('goose', { config: TOML });
  g.render([]);
  assert.equal(g.lastRender().prepend_token0, true);
  g.render([], { prependToken0: false });
  assert.equal(g.lastRender().prepend_token0, false);
  assert.throws(() => g.render([], { reflect: true }), ai00.UnsupportedError);
  assert.throws(() => g.renderFim('a', 'b'), ai00.UnsupportedError);
  g.close();
});

test('OpenChatML flags, FIM, files and transcripts', () => {
  const o = new ai00.ChatTemplate('openchatml');
  assert.match(o.render([], { reflect: true }).prompt, /<\|reflect\|>/);
  assert.match(o.render([], { introspect: true }).prompt, /<\|introspect\|>/);
  assert.equal(o.renderFim('ab', 'cd'), '<|fim_prefix|>ab<|fim_middle|><|fim_suffix|>cd');
  assert.throws(() => o.renderFim('<|im_end|>', ''), (e) => e instanceof ai00.FormatError && e.libraryMessage.includes('prefix: contains'));
  assert.equal(o.renderFiles(['one', 'two']), 'one\n<|file_separator|>\ntwo');
  assert.equal(o.renderFiles(['x'], { leadingSeparator: true }), '<|file_separator|>\nx');
  const msgs = o.parseTranscript('<|im_start|>user name=Eric\nHi\n<|im_end|>\n<|im_start|>assistant\nHello\n<|im_end|>');
  assert.equal(msgs[0].name, 'Eric');
  assert.equal(msgs[1].role, 'assistant');
  assert.throws(() => o.parseTranscript('<|im_start|>bot\nx<|im_end|>'),
    (e) => e instanceof ai00.FormatError && e.libraryMessage.includes('byte 12: unknown role "bot"'));
  o.close();
});

test('schema options: defaults and compact layout', () => {
  assert.deepEqual(ai00.defaultSchemaOptions(),
    { lenient: false, strictProperties: false, flexibleWhitespace: true, maxWhitespace: 0, compact: false });
  const model = new ai00.Model(MODEL);
  const schema = { type: 'object', properties: { a: { type: 'integer' } } };
  let g = model.jsonSchemaGrammar(schema);
  assert.ok(g.accepts('{ "a" : 1.0 ,\n "b": [] }'));
  g.close();
  g = model.jsonSchemaGrammar(schema, { flexibleWhitespace: false, compact: true, strictProperties: true });
  assert.ok(g.accepts('{"a":1}') && !g.accepts('{"a": 1}') && !g.accepts('{"a":1,"b":2}'));
  g.close();
  assert.throws(() => model.jsonSchemaGrammar(schema, { maxWhitespace: 65 }), /max_whitespace = 65/);
  model.close();
});
