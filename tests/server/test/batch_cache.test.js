// `ai00 serve` decodes every request as a member of one ai00_batch and shares one prefix-state
// cache (docs/server.md "Scheduler"): concurrent requests run batched and reply exactly as they
// do alone (a closed stream cancels only its member), and requests with a common system prompt
// reuse its State, replying exactly as a server without the cache does.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { OpenAI } = require('openai');
const { API_KEY, startServer, stopServer, health } = require('../helpers');

let cached;   // default --prefix-cache-mb (256)
let uncached; // --prefix-cache-mb 0

function clientOf(server) {
  return new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0, timeout: 60000 });
}

test.before(async () => {
  [cached, uncached] = await Promise.all([
    startServer(['--parallel', '8']),
    startServer(['--parallel', '8', '--prefix-cache-mb', '0']),
  ]);
});

test.after(async () => {
  if (cached) assert.equal(await stopServer(cached), 0, `server stderr: ${cached.stderr()}`);
  if (uncached) assert.equal(await stopServer(uncached), 0, `server stderr: ${uncached.stderr()}`);
});

// A long system prompt (a few hundred tokens) shared by different conversations.
const SYSTEM = 'You are the village archivist of Lowmere. ' +
  Array.from({ length: 24 }, (_, i) =>
    `Rule ${i + 1}: answer in plain words, cite the ledger page ${i * 7 + 3}, and never invent a date.`).join(' ');

function conversation(question) {
  return [{ role: 'system', content: SYSTEM }, { role: 'user', content: question }];
}

test('/health reports the batch and the prefix cache (null when off)', async () => {
  const h = await health(cached.url);
  assert.equal(typeof h.batch.max_members, 'number');
  assert.equal(typeof h.batch.members, 'number');
  assert.equal(h.prefix_cache.max_bytes, 256 * 1024 * 1024);
  for (const k of ['hits', 'misses', 'hit_tokens', 'inserts', 'evictions', 'entries', 'bytes',
    'spare_bytes'])
    assert.equal(typeof h.prefix_cache[k], 'number', k);
  assert.equal((await health(uncached.url)).prefix_cache, null);
});

test('a shared system prompt is a prefix-cache hit, and replies equal a cache-less server', async () => {
  const c = clientOf(cached);
  const u = clientOf(uncached);
  const params = (question, seed) => ({
    model: 'm', messages: conversation(question), max_tokens: 24, seed, temperature: 1,
  });
  const h0 = await health(cached.url);
  const first = await c.chat.completions.create(params('Who kept the ledger in 1820?', 7));
  const h1 = await health(cached.url);
  const second = await c.chat.completions.create(params('Where is the old mill?', 8));
  const h2 = await health(cached.url);

  assert.ok(first.usage.prompt_tokens > 300, `prompt of ${first.usage.prompt_tokens} tokens`);
  // The first request finds no prefix and stores its States (end of the system message, end of
  // the prompt); the second restores the State after the system message.
  assert.equal(h1.prefix_cache.misses, h0.prefix_cache.misses + 1);
  assert.ok(h1.prefix_cache.inserts > h0.prefix_cache.inserts);
  assert.equal(h2.prefix_cache.hits, h1.prefix_cache.hits + 1, JSON.stringify(h2.prefix_cache));
  const skipped = h2.prefix_cache.hit_tokens - h1.prefix_cache.hit_tokens;
  assert.ok(skipped > 250 && skipped < second.usage.prompt_tokens, `skipped ${skipped} tokens`);
  // ... and the batch prefilled only the rest of the prompt.
  assert.equal(h2.batch.prompt_tokens - h1.batch.prompt_tokens, second.usage.prompt_tokens - skipped);

  // Determinism: the same seeds give the same replies without the cache.
  const firstU = await u.chat.completions.create(params('Who kept the ledger in 1820?', 7));
  const secondU = await u.chat.completions.create(params('Where is the old mill?', 8));
  assert.equal(first.choices[0].message.content, firstU.choices[0].message.content);
  assert.equal(second.choices[0].message.content, secondU.choices[0].message.content);
  assert.deepEqual(first.usage, firstU.usage);
  assert.deepEqual(second.usage, secondU.usage);

  // A repeated request is a hit on its whole prompt and still the same reply.
  const again = await c.chat.completions.create(params('Where is the old mill?', 8));
  const h3 = await health(cached.url);
  assert.equal(h3.prefix_cache.hits, h2.prefix_cache.hits + 1);
  assert.equal(again.choices[0].message.content, second.choices[0].message.content);
  assert.equal(h3.batch.prompt_tokens, h2.batch.prompt_tokens, 'nothing left to prefill');
});

test('concurrent requests run batched and reply as they do one at a time', async () => {
  const c = clientOf(uncached);
  const params = (i) => ({
    model: 'm', messages: [{ role: 'user', content: `Count the sheep of field ${i}.` }],
    max_tokens: 48, seed: 100 + i, temperature: 1,
  });
  const alone = [];
  for (let i = 0; i < 8; ++i) alone.push(await c.chat.completions.create(params(i)));
  const h0 = await health(uncached.url);
  assert.equal(h0.batch.max_members, 1, 'one request at a time is a batch of one');

  // Streamed, so every request holds its place in the batch while the others join.
  const together = await Promise.all(Array.from({ length: 8 }, async (_, i) => {
    let text = '';
    let finish = null;
    for await (const chunk of await c.chat.completions.create({ ...params(i), stream: true })) {
      if (chunk.choices[0].delta.content) text += chunk.choices[0].delta.content;
      if (chunk.choices[0].finish_reason) finish = chunk.choices[0].finish_reason;
    }
    return { text, finish };
  }));
  const h = await health(uncached.url);
  assert.ok(h.batch.max_members > 1, `largest batch ${h.batch.max_members}`);
  assert.ok(h.batch.max_members <= 8, '--parallel bounds the batch');
  assert.equal(h.batch.members, 0, 'every member left the batch before its reply ended');
  for (let i = 0; i < 8; ++i) {
    assert.equal(together[i].text, alone[i].choices[0].message.content, `request ${i}`);
    assert.equal(together[i].finish, alone[i].choices[0].finish_reason, `request ${i}`);
  }
});

test('closing one stream of a batch cancels only that member', async () => {
  const c = clientOf(uncached);
  const params = (i) => ({
    model: 'm', messages: [{ role: 'user', content: `Name the birds of pond ${i}.` }],
    max_tokens: 64, seed: 200 + i, temperature: 1,
  });
  const alone = [];
  for (let i = 0; i < 3; ++i) alone.push(await c.chat.completions.create(params(i)));
  const before = await health(uncached.url);

  const leaving = (async () => {
    const stream = await c.chat.completions.create({
      model: 'm', messages: [{ role: 'user', content: 'Talk forever.' }], max_tokens: 4096, seed: 1, stream: true,
    });
    let n = 0;
    for await (const chunk of stream) if (++n === 5) break;  // aborts the request
  })();
  const staying = Array.from({ length: 3 }, async (_, i) => {
    let text = '';
    for await (const chunk of await c.chat.completions.create({ ...params(i), stream: true }))
      text += chunk.choices[0].delta.content || '';
    return text;
  });
  await leaving;
  const texts = await Promise.all(staying);
  for (let i = 0; i < 3; ++i) assert.equal(texts[i], alone[i].choices[0].message.content, `request ${i}`);

  let h = await health(uncached.url);
  for (let i = 0; i < 100 && (h.active_generations !== 0 || h.cancelled === before.cancelled); ++i) {
    await new Promise((r) => setTimeout(r, 50));
    h = await health(uncached.url);
  }
  assert.equal(h.cancelled, before.cancelled + 1);
  assert.equal(h.completed, before.completed + 3);
  assert.equal(h.active_generations, 0);
  assert.equal(h.batch.members, 0);
});
