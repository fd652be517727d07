#!/usr/bin/env node
'use strict';
// A streaming chat REPL with one tool (get_weather) on the ai00 Node.js binding.
//
//   node chat_repl.js [MODEL]      then type lines; an empty line or end of input ends
//
// Each line is a user turn: the reply streams while it is generated on a worker thread (Ctrl+C
// aborts it through an AbortSignal); when the model calls get_weather the tool runs here, its
// result joins the conversation and the model continues.
const path = require('node:path');
const readline = require('node:readline');
const ai00 = require('..');

const TOOLS = [{
  name: 'get_weather', description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}];
const getWeather = ({ city }) => ({ city, sky: 'clear', celsius: 21 });

async function main() {
  const shared = process.env.AI00_SHARED_DIR || process.env.AI00_DEFAULT_SHARED_DIR
    || path.join(__dirname, '..', '..', '..', '..', 'shared');
  const modelPath = process.argv[2] || path.join(shared, 'models', 'rand-rwkv7-c128-l3-v512-F16.gguf');
  const model = new ai00.Model(modelPath);
  const template = new ai00.ChatTemplate('ai00-v1');
  const conversation = [{ role: 'system', content: 'You are a helpful assistant.' }];
  let controller = null;
  process.on('SIGINT', () => (controller ? controller.abort() : process.exit(130)));
  const rl = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const raw of rl) {
    const line = raw.trim();
    if (!line) break;
    conversation.push({ role: 'user', content: line });
    process.stdout.write(`User: ${line}\nAssistant: `);
    for (let round = 0; round < 3; ++round) { // a reply, then at most two tool round trips
      // A fresh State per turn re-reads the conversation; a long chat would keep one.
      const state = model.newState();
      const gen = ai00.Generator.chat(model, state, template, conversation,
        { tools: TOOLS, maxTokens: 48, seed: conversation.length });
      controller = new AbortController();
      const calls = [];
      for await (const d of gen.stream({ signal: controller.signal })) {
        if (d.kind === ai00.DeltaKind.TEXT) process.stdout.write(d.text);
        else if (d.kind === ai00.DeltaKind.REASONING) process.stdout.write(`[${d.text}]`);
        else if (d.kind === ai00.DeltaKind.TOOL_CALL && d.valid) calls.push(d);
        else if (d.kind === ai00.DeltaKind.FINISH) process.stdout.write(`\n[${ai00.finishReasonName(d.finishReason)}]\n`);
      }
      controller = null;
      conversation.push(gen.message);
      gen.close();
      state.close();
      if (calls.length === 0) break;
      for (const call of calls) {
        const result = getWeather(call.arguments);
        process.stdout.write(`[tool ${call.name}(${call.text}) -> ${JSON.stringify(result)}]\n`);
        conversation.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: JSON.stringify(result) });
      }
    }
  }
  rl.close();
  template.close();
  model.close();
  console.log(`${conversation.filter((m) => m.role === 'user').length} turns`);
}

main().catch((e) => { console.error(e); process.exit(1); });
