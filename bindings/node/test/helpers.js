'use strict';
const path = require('node:path');

const SHARED = process.env.AI00_SHARED_DIR || process.env.AI00_DEFAULT_SHARED_DIR
  || path.join(__dirname, '..', '..', '..', '..', 'shared');
module.exports = {
  SHARED,
  MODEL: path.join(SHARED, 'models', 'rand-rwkv7-c128-l3-v512-F16.gguf'),
  TINY: path.join(SHARED, 'models', 'tiny-rwkv-7v0-834K-FP32.bin'),
  VOCAB: path.join(SHARED, 'tokenizer', 'rwkv_vocab_v20230424.txt'),
  TOOLS: [{
    name: 'get_weather', description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  }],
  // The conversation of examples/c/chat_turn.c.
  CHAT: [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: 'Hello! Who are you?' }],
};
