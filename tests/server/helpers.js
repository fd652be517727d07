// Starts `ai00 serve` on a free loopback port (--port 0; the server prints the bound address on
// stdout) with the tiny fixture model, and gives the tests an openai client pointed at it.
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');

const API_KEY = 'test-key-123';

function sharedDir() {
  const dir = process.env.AI00_SHARED_DIR || process.env.AI00_DEFAULT_SHARED_DIR ||
    path.join(__dirname, '..', '..', '..', 'shared');
  if (!fs.existsSync(path.join(dir, 'models'))) throw new Error(`fixtures not found in ${dir}`);
  return dir;
}

function cliPath() {
  const cli = process.env.AI00_CLI;
  if (!cli || !fs.existsSync(cli)) throw new Error(`AI00_CLI must name the ai00 binary (got ${cli})`);
  return cli;
}

// Resolves with {url, process, stderr()} once the server listens; rejects if it exits first.
function startServer(extraArgs = []) {
  const model = path.join(sharedDir(), 'models', 'tiny-rwkv-7v0-834K-FP32.bin');
  const args = ['serve', '--model', model, '--port', '0', '--api-key', API_KEY,
    '--parallel', '4', '--queue', '64', '--max-body', '65536', ...extraArgs];
  const child = spawn(cliPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[0-9.]+:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], process: child, stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${err}`));
    });
  });
}

// SIGTERM, then the exit code; a server still running 10 s later is killed and gives 'killed'.
function stopServer(server) {
  return new Promise((resolve) => {
    if (server.process.exitCode !== null) return resolve(server.process.exitCode);
    const timer = setTimeout(() => {
      server.process.kill('SIGKILL');
      resolve('killed');
    }, 10000);
    server.process.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    server.process.kill('SIGTERM');
  });
}

async function health(url) {
  const r = await fetch(`${url}/health`);
  return r.json();
}

// Posts raw bytes (for malformed requests the client library would refuse to send).
async function postRaw(url, route, body, key = API_KEY) {
  const r = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body,
  });
  return { status: r.status, json: await r.json() };
}

module.exports = { API_KEY, startServer, stopServer, health, postRaw };
