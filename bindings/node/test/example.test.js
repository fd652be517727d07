'use strict';
// The chat REPL example runs non-interactively on piped input.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { MODEL } = require('./helpers');

test('chat REPL with piped input', () => {
  const out = execFileSync(process.execPath, [path.join(__dirname, '..', 'examples', 'chat_repl.js'), MODEL],
    { input: 'Hi there\nWeather in Oslo?\n', encoding: 'utf8', timeout: 120000 });
  assert.equal(out.split('Assistant: ').length - 1, 2);
  assert.match(out.trim(), /2 turns$/);
});
