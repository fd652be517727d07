// `ai00 serve` driven by the official openai npm client (pinned in package-lock.json): chat
// streamed and not, tool calls, json_schema, a custom grammar, completions, cancellation by
// closing a stream or aborting a non-streamed request, 50 concurrent requests, malformed
// requests and a wrong API key.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { OpenAI } = require('openai');
const { API_KEY, startServer, stopServer, health, postRaw } = require('../helpers');

let server;
let client;

const USER = [{ role: 'user', content: 'What is the weather in Tokyo?' }];
// Enum and bounded integer: the tiny random model can only write a complete, valid call.
const WEATHER_PARAMS = {
  type: 'object',
  properties: {
    city: { type: 'string', enum: ['Tokyo', 'Paris'] },
    days: { type: 'integer', minimum: 1, maximum: 3 },
  },
  required: ['city', 'days'],
  additionalProperties: false,
};
const OPENAI_TOOLS = [{
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_PARAMS },
}];

test.before(async () => {
  server = await startServer();
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0, timeout: 60000 });
});

test.after(async () => {
  if (server) assert.equal(await stopServer(server), 0, `server stderr: ${server.stderr()}`);
});

test('models lists the loaded model', async () => {
  const page = await client.models.list();
  assert.equal(page.data.length, 1);
  assert.match(page.data[0].id, /tiny-rwkv/);
});

test('a wrong API key is a 401 in OpenAI error shape', async () => {
  const bad = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(bad.chat.completions.create({ model: 'm', messages: USER, max_tokens: 4 }),
    (e) => e.status === 401 && e.code === 'invalid_api_key' && e.type === 'invalid_request_error');
  const r = await postRaw(server.url, '/v1/chat/completions', '{}', 'nope');
  assert.equal(r.status, 401);
  assert.ok(r.json.error.message);
});

test('chat, non-streamed and streamed, give the same reply for the same seed', async () => {
  const params = { model: 'm', messages: USER, max_tokens: 24, seed: 11, temperature: 1 };
  const whole = await client.chat.completions.create(params);
  const choice = whole.choices[0];
  assert.equal(whole.object, 'chat.completion');
  assert.equal(choice.message.role, 'assistant');
  assert.equal(typeof choice.message.content, 'string');
  assert.ok(['stop', 'length'].includes(choice.finish_reason));
  assert.ok(whole.usage.prompt_tokens > 10);
  assert.ok(whole.usage.completion_tokens >= 1 && whole.usage.completion_tokens <= 25);

  const stream = await client.chat.completions.create({
    ...params, stream: true, stream_options: { include_usage: true },
  });
  let text = '';
  let role = null;
  let finish = null;
  let usage = null;
  for await (const chunk of stream) {
    assert.equal(chunk.object, 'chat.completion.chunk');
    if (chunk.usage) usage = chunk.usage;
    if (chunk.choices.length === 0) continue;
    const c = chunk.choices[0];
    if (c.delta.role) role = c.delta.role;
    if (c.delta.content) text += c.delta.content;
    if (c.finish_reason) finish = c.finish_reason;
  }
  assert.equal(role, 'assistant');
  assert.equal(text, choice.message.content);
  assert.equal(finish, choice.finish_reason);
  assert.deepEqual(usage, whole.usage);
});

function checkWeatherCall(call) {
  assert.equal(call.type, 'function');
  assert.match(call.id, /^call_[0-9a-f]{8}$/);
  assert.equal(call.function.name, 'get_weather');
  const args = JSON.parse(call.function.arguments);
  assert.ok(['Tokyo', 'Paris'].includes(args.city), call.function.arguments);
  // An integer parameter is a JSON integer, never a string or a float spelling.
  assert.ok(Number.isInteger(args.days) && args.days >= 1 && args.days <= 3, call.function.arguments);
  assert.match(call.function.arguments, /"days":[123][,}]/);
}

test('a forced tool call is parsed into tool_calls, streamed as OpenAI does', async () => {
  const params = {
    model: 'm', messages: USER, max_tokens: 300, seed: 5, tools: OPENAI_TOOLS,
    tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false,
  };
  const whole = await client.chat.completions.create(params);
  const msg = whole.choices[0].message;
  assert.equal(whole.choices[0].finish_reason, 'tool_calls');
  assert.equal(msg.tool_calls.length, 1);
  checkWeatherCall(msg.tool_calls[0]);

  const calls = [];
  let finish = null;
  let argumentFragments = 0;
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
    const c = chunk.choices[0];
    if (c.finish_reason) finish = c.finish_reason;
    for (const t of c.delta.tool_calls || []) {
      if (t.function && t.function.arguments) argumentFragments++;
      if (!calls[t.index]) {
        assert.ok(t.id && t.function.name, 'the first fragment carries id and name');
        calls[t.index] = { id: t.id, type: t.type, function: { name: t.function.name, arguments: '' } };
      }
      calls[t.index].function.arguments += t.function.arguments || '';
    }
  }
  assert.equal(finish, 'tool_calls');
  assert.deepEqual(calls, msg.tool_calls);
  // The arguments stream as the library parses them: a fragment per parameter and the brace.
  assert.ok(argumentFragments >= 3, `${argumentFragments} argument fragments`);
});

// OpenChatML writes a call's arguments before its name (seed 002 section 8.2): the arguments
// stream as the tokens arrive, under a first fragment without a name, and the name follows as a
// fragment of its own, which OpenAI clients concatenate like the arguments.
test('OpenChatML streams a call\'s arguments before its name', async () => {
  const ocml = await startServer(['--format', 'openchatml']);
  try {
    const c = new OpenAI({ baseURL: `${ocml.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    const params = {
      model: 'm', messages: USER, max_tokens: 300, seed: 5, tools: OPENAI_TOOLS,
      tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false,
    };
    const whole = await c.chat.completions.create(params);
    const msg = whole.choices[0].message;
    assert.equal(whole.choices[0].finish_reason, 'tool_calls');
    checkWeatherCall(msg.tool_calls[0]);
    const calls = [];
    let fragmentsBeforeName = 0;
    for await (const chunk of await c.chat.completions.create({ ...params, stream: true })) {
      for (const t of chunk.choices[0]?.delta.tool_calls || []) {
        if (!calls[t.index]) {
          assert.ok(t.id, 'the first fragment carries the id');
          calls[t.index] = { id: t.id, type: t.type, function: { name: '', arguments: '' } };
        }
        const f = calls[t.index].function;
        if (t.function?.arguments && f.name === '') fragmentsBeforeName++;
        f.name += t.function?.name || '';
        f.arguments += t.function?.arguments || '';
      }
    }
    assert.deepEqual(calls, msg.tool_calls);
    assert.ok(fragmentsBeforeName >= 3, `${fragmentsBeforeName} argument fragments before the name`);
  } finally {
    await stopServer(ocml);
  }
});

test('tool_choice none keeps the tools in the prompt and makes no call', async () => {
  const r = await client.chat.completions.create({
    model: 'm', messages: USER, max_tokens: 40, seed: 5, tools: OPENAI_TOOLS, tool_choice: 'none',
  });
  assert.notEqual(r.choices[0].finish_reason, 'tool_calls');
  assert.equal(r.choices[0].message.tool_calls, undefined);
  // The prompt still lists the tools: more prompt tokens than without them.
  const bare = await client.chat.completions.create({
    model: 'm', messages: USER, max_tokens: 1, seed: 5,
  });
  assert.ok(r.usage.prompt_tokens > bare.usage.prompt_tokens);
});

test('required with parallel_tool_calls false gives exactly one call of either tool', async () => {
  const timeTool = {
    type: 'function',
    function: { name: 'get_time', parameters: { type: 'object', additionalProperties: false } },
  };
  for (const seed of [1, 2, 3]) {
    const r = await client.chat.completions.create({
      model: 'm', messages: USER, max_tokens: 300, seed, tools: [...OPENAI_TOOLS, timeTool],
      tool_choice: 'required', parallel_tool_calls: false,
    });
    assert.equal(r.choices[0].finish_reason, 'tool_calls');
    const calls = r.choices[0].message.tool_calls;
    assert.equal(calls.length, 1);
    if (calls[0].function.name === 'get_weather') checkWeatherCall(calls[0]);
    else assert.equal(calls[0].function.arguments, '{}');
  }
});

test('tools in the KBNF spec shape with tool_choice required', async () => {
  const r = await client.chat.completions.create({
    model: 'm', messages: USER, max_tokens: 300, seed: 9, tool_choice: 'required',
    parallel_tool_calls: false,
    tools: [{ name: 'get_weather', description: 'Weather', input_schema: WEATHER_PARAMS }],
  });
  assert.equal(r.choices[0].finish_reason, 'tool_calls');
  checkWeatherCall(r.choices[0].message.tool_calls[0]);
});

test('a conversation with every role, tool calls and tool results in OpenAI shapes', async () => {
  const messages = [
    { role: 'developer', content: 'You are terse.' },
    { role: 'system', content: [{ type: 'text', text: 'Answer in English.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Weather in Tokyo?' }] },
    {
      role: 'assistant', content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo","days":1}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '{"forecast":"sunny"}' },
  ];
  const r = await client.chat.completions.create({
    model: 'm', messages, tools: OPENAI_TOOLS, max_tokens: 8, seed: 4, bnf_validation: 'none',
  });
  assert.equal(typeof r.choices[0].message.content, 'string');
  // Without the tool list the tool turn still renders; the library names a bad part's pointer.
  const bad = await postRaw(server.url, '/v1/chat/completions', JSON.stringify({
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
  }));
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error.param, '/messages/0/content/0/type');
});

test('thinking replies carry reasoning_content, streamed and not', async () => {
  const params = { model: 'm', messages: USER, max_tokens: 20, seed: 1, thinking: 'on', chat_format: 'ai00-v1' };
  const whole = await client.chat.completions.create(params);
  const reasoning = whole.choices[0].message.reasoning_content;
  assert.ok(typeof reasoning === 'string' && reasoning.length > 0);
  let streamed = '';
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) {
    const d = chunk.choices[0].delta;
    if (d.reasoning_content) streamed += d.reasoning_content;
  }
  assert.equal(streamed, reasoning);
});

test('a json_schema reply parses and has the schema shape', async () => {
  const schema = {
    type: 'object',
    properties: { ok: { type: 'boolean' }, n: { type: 'integer', minimum: 0, maximum: 9 } },
    required: ['ok', 'n'],
    additionalProperties: false,
  };
  for (const seed of [1, 2, 3]) {
    const r = await client.chat.completions.create({
      model: 'm', messages: USER, max_tokens: 200, seed,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    });
    const value = JSON.parse(r.choices[0].message.content);
    assert.deepEqual(Object.keys(value).sort(), ['n', 'ok']);
    assert.equal(typeof value.ok, 'boolean');
    assert.ok(Number.isInteger(value.n) && value.n >= 0 && value.n <= 9, String(value.n));
  }
});

test('a custom KBNF grammar constrains the reply', async () => {
  for (const seed of [1, 2, 3, 4]) {
    const r = await client.chat.completions.create({
      model: 'm', messages: USER, max_tokens: 20, seed,
      grammar: "start ::= 'yes' | 'no' | 'maybe';",
    });
    assert.ok(['yes', 'no', 'maybe'].includes(r.choices[0].message.content));
  }
});

test('completions take a raw prompt', async () => {
  const r = await client.completions.create({ model: 'm', prompt: 'Once upon a time', max_tokens: 10, seed: 2 });
  assert.equal(r.object, 'text_completion');
  assert.equal(typeof r.choices[0].text, 'string');
  assert.ok(r.usage.prompt_tokens === 16);
});

async function waitFor(predicate, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const h = await health(server.url);
    if (predicate(h)) return h;
    if (Date.now() > end) return h;
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('closing a stream cancels its generation at once', async () => {
  const before = await health(server.url);
  const stream = await client.chat.completions.create({
    model: 'm', messages: USER, max_tokens: 4096, seed: 1, stream: true,
  });
  let n = 0;
  for await (const chunk of stream) {
    if (++n === 5) break;  // leaving the loop aborts the request and closes the connection
    assert.ok(chunk.choices.length);
  }
  const h = await waitFor((x) => x.active_generations === 0 && x.cancelled > before.cancelled, 5000);
  assert.equal(h.active_generations, 0);
  assert.equal(h.cancelled, before.cancelled + 1);
  const r = await client.chat.completions.create({ model: 'm', messages: USER, max_tokens: 4 });
  assert.ok(r.choices[0].message);
});

// 1,000,000 letters the grammar will not let end sooner: a generation that runs for seconds
// even on the tiny model (which writes thousands of tokens a second).
const LONG_GRAMMAR = "a ::= #'[a-z]{1000}'; b ::= a a a a a a a a a a; c ::= b b b b b b b b b b; " +
  'start ::= c c c c c c c c c c;';

test('a non-streamed request whose client leaves is cancelled at once', async () => {
  const long = await startServer(['--max-tokens-limit', '1000000']);
  try {
    const c = new OpenAI({ baseURL: `${long.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    const before = await health(long.url);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 300);
    await assert.rejects(c.chat.completions.create(
      { model: 'm', messages: USER, max_tokens: 1000000, seed: 1, grammar: LONG_GRAMMAR },
      { signal: controller.signal }));
    clearTimeout(timer);
    let h = before;
    for (let end = Date.now() + 5000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      h = await health(long.url);
      if (h.active_generations === 0 && h.cancelled > before.cancelled) break;
    }
    assert.equal(h.active_generations, 0);
    assert.equal(h.cancelled, before.cancelled + 1);
    // A reply long enough for whitespace heartbeats: the body starts with them and still parses,
    // raw and through the client.
    const req = { model: 'm', messages: USER, max_tokens: 12000, seed: 1, grammar: LONG_GRAMMAR };
    const raw = await fetch(`${long.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify(req),
    });
    assert.equal(raw.status, 200);
    const text = await raw.text();
    assert.match(text, /^ +\{/);
    assert.equal(JSON.parse(text).choices[0].finish_reason, 'length');
    const r = await c.chat.completions.create(req);
    assert.equal(r.choices[0].finish_reason, 'length');
    assert.equal(r.usage.completion_tokens, 12000);
    assert.equal(r.choices[0].message.content, JSON.parse(text).choices[0].message.content);
  } finally {
    assert.equal(await stopServer(long), 0);
  }
});

test('a full queue is a 503 while a slot is busy', async () => {
  const small = await startServer(['--parallel', '1', '--queue', '0']);
  try {
    const c = new OpenAI({ baseURL: `${small.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    const stream = await c.chat.completions.create({ model: 'm', messages: USER, max_tokens: 4096, stream: true });
    const it = stream[Symbol.asyncIterator]();
    await it.next();  // the first turn holds the only slot now
    await assert.rejects(c.chat.completions.create({ model: 'm', messages: USER, max_tokens: 4 }),
      (e) => e.status === 503 && e.code === 'queue_full');
    stream.controller.abort();
    const h = await (async () => {
      for (let i = 0; i < 100; ++i) {
        const x = await health(small.url);
        if (x.active_generations === 0) return x;
        await new Promise((r) => setTimeout(r, 50));
      }
      return health(small.url);
    })();
    assert.equal(h.active_generations, 0);
    assert.equal(h.rejected, 1);
    const r = await c.chat.completions.create({ model: 'm', messages: USER, max_tokens: 4 });
    assert.ok(r.choices[0].message);
  } finally {
    assert.equal(await stopServer(small), 0);
  }
});

test('streamed completions end with [DONE] after the finish chunk', async () => {
  let text = '';
  let finish = null;
  for await (const chunk of await client.completions.create({ model: 'm', prompt: 'Hello', max_tokens: 6, seed: 2, stream: true })) {
    assert.equal(chunk.object, 'text_completion');
    text += chunk.choices[0].text;
    if (chunk.choices[0].finish_reason) finish = chunk.choices[0].finish_reason;
  }
  const whole = await client.completions.create({ model: 'm', prompt: 'Hello', max_tokens: 6, seed: 2 });
  assert.equal(text, whole.choices[0].text);
  assert.equal(finish, whole.choices[0].finish_reason);
});

test('50 concurrent requests are all answered', async () => {
  const started = Date.now();
  const replies = await Promise.all(Array.from({ length: 50 }, (_, i) =>
    client.chat.completions.create({ model: 'm', messages: USER, max_tokens: 8, seed: i })));
  assert.equal(replies.length, 50);
  for (const r of replies) assert.ok(['stop', 'length'].includes(r.choices[0].finish_reason));
  assert.ok(Date.now() - started < 60000, `took ${Date.now() - started} ms`);
  const h = await health(server.url);
  assert.equal(h.active_generations, 0);
  assert.equal(h.queued, 0);
  // They ran batched: up to --parallel (4) members in one ai00_batch step.
  assert.ok(h.batch.max_members > 1 && h.batch.max_members <= 4, `largest batch ${h.batch.max_members}`);
});

test('malformed requests are 4xx in OpenAI error shape and the server keeps serving', async () => {
  const cases = [
    ['{"messages": [', 400, null],
    ['[]', 400, '/'],
    ['{"messages": "hi"}', 400, '/messages'],
    ['{"messages": [{"role": "user", "content": "x"}], "temperature": "hot"}', 400, '/temperature'],
    ['{"messages": [{"role": "user", "content": "x"}], "max_tokens": 1.5}', 400, '/max_tokens'],
    ['{"messages": [{"role": "user", "content": "x"}], "tempurature": 1}', 400, '/tempurature'],
    ['{"messages": [{"role": "robot", "content": "x"}]}', 400, '/messages/0/role'],
    ['{"messages": [{"role": "user", "content": 7}]}', 400, '/messages/0/content'],
    ['{"messages": [{"role": "user", "content": "x"}], "grammar": "start ::= ("}', 400, '/grammar'],
    ['{"messages": [{"role": "user", "content": "x"}], "stop": [1]}', 400, '/stop/0'],
    ['{"messages": [{"role": "user", "content": "x"}], "tool_choice": "required"}', 400, '/tool_choice'],
    ['{"messages": [{"role": "user", "content": "x"}], "bnf_validation": "strict"}', 400, '/bnf_validation'],
    ['{"messages": [{"role": "user", "content": "x"}], "response_format": {"type": "json_schema", "json_schema": {"schema": {"type": "string", "format": "bogus"}}}}',
      400, '/response_format/json_schema/schema'],
    ['{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": {"type": "function", "function": {"name": "g"}}}',
      400, '/tool_choice/function/name'],
    ['{"messages": [{"role": "user", "content": "x"}], "grammar": "start ::= \'a\';", "response_format": {"type": "json_object"}}',
      400, '/response_format'],
    // A forced call needs the tool grammar.
    ['{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": "required", "bnf_validation": "none"}',
      400, '/tool_choice'],
    [`{"messages": [{"role": "user", "content": "${'x'.repeat(70000)}"}]}`, 413, null],
  ];
  for (const [body, status, param] of cases) {
    const r = await postRaw(server.url, '/v1/chat/completions', body);
    assert.equal(r.status, status, `${body.slice(0, 80)} -> ${JSON.stringify(r.json)}`);
    assert.equal(typeof r.json.error.message, 'string');
    assert.equal(typeof r.json.error.type, 'string');
    assert.equal(r.json.error.param, param, r.json.error.message);
    if (param && param !== '/') assert.ok(r.json.error.message.includes(param), r.json.error.message);
  }
  await assert.rejects(client.chat.completions.create({ model: 'm', messages: [] }),
    (e) => e.status === 400 && e.param === '/messages');
  const h = await health(server.url);
  assert.equal(h.status, 'ok');
  const r = await client.chat.completions.create({ model: 'm', messages: USER, max_tokens: 4 });
  assert.ok(r.choices[0].message);
});
