'use strict';
// ai00 for Node.js (and Electron): RWKV-7 chat on the CPU over libai00's C ABI
// (include/ai00/ai00.h), through koffi. Handles are classes with close() (and
// Symbol.dispose); a FinalizationRegistry frees what was forgotten. Failing calls throw
// Ai00Error subclasses carrying the library's status and message. A Generator is an async
// iterable of deltas: each token is generated on a worker thread (the event loop stays free) and
// an AbortSignal cancels the turn from the main thread.
const { koffi, fn } = require('./ffi');

const Status = Object.freeze({
  OK: 0, INVALID_ARGUMENT: -1, IO: -2, MODEL_FILE: -3, FORMAT: -4, GRAMMAR: -5, MISMATCH: -6,
  UNSUPPORTED: -7, CANCELLED: -8, BUFFER_TOO_SMALL: -9, OUT_OF_MEMORY: -10, INTERNAL: -99,
});
const Thinking = Object.freeze({ OFF: 0, ON: 1, A_BIT: 2, A_LOT: 3 });
// TOOL_CALL_START / TOOL_CALL_ARGUMENTS only with an output parser's `streamToolCalls`.
const DeltaKind = Object.freeze({
  TEXT: 0, REASONING: 1, TOOL_CALL: 2, FINISH: 3, TOOL_CALL_START: 4, TOOL_CALL_ARGUMENTS: 5,
});
const WeightType = Object.freeze({ F32: 0, F16: 1, BF16: 2, Q8_0: 3, Q4_0: 4, Q4_1: 5, Q5_0: 6, Q5_1: 7 });
const FileFormat = Object.freeze({ GGUF: 0, SAFETENSORS: 1 });
const FinishReason = Object.freeze({
  NONE: -1, STOP: 0, LENGTH: 1, TOOL_CALLS: 2, CANCELLED: 3, GRAMMAR_DONE: 4, ERROR: 5,
});
const GrammarMode = Object.freeze({ AUTOMATIC: 0, NONE: 1, STRUCTURAL: 2, SCHEMA_AWARE: 3 });
// ai00_tool_choice; the `toolChoice` option also takes `{ name }` for NAMED.
const ToolChoice = Object.freeze({ AUTO: 0, NONE: 1, REQUIRED: 2, NAMED: 3 });
// ai00_activations: DOT (default) multiplies quantized / BF16 weights with int8 / bf16
// activations (logits within about 0.05 of EXACT); EXACT keeps fp32 activations (the reference
// computation's logits, slower).
const Activations = Object.freeze({ DOT: 0, EXACT: 1 });
const SamplerMethod = Object.freeze({ NUCLEUS: 0, TYPICAL: 1, MIROSTAT_V2: 2, GREEDY: 3 });
const Preset = Object.freeze({ CHAT: 0, MATH: 1, CREATIVE: 2, AI00_SERVER: 3 });
const ThinkingStart = Object.freeze({ OPTIONAL: 0, FORCED: 1, FORCED_PARTIAL: 2 });
const CheckVerdict = Object.freeze({ ACCEPTED: 0, BYTES: 1, TOKEN: 2, END_TOKEN: 3 });
const FORMATS = Object.freeze(['ai00-v1', 'ai00-v0', 'goose', 'openchatml']);

// ---- errors ----------------------------------------------------------------------------------

class Ai00Error extends Error {
  constructor(status, message) {
    super(message ? `${statusString(status)}: ${message}` : statusString(status));
    this.name = this.constructor.name;
    this.status = status;
    this.libraryMessage = message;
  }
}
class InvalidArgumentError extends Ai00Error {}
class IOError extends Ai00Error {}
class ModelFileError extends Ai00Error {}
class FormatError extends Ai00Error {}
class GrammarError extends Ai00Error {}
class MismatchError extends Ai00Error {}
class UnsupportedError extends Ai00Error {}
class CancelledError extends Ai00Error {}
class BufferTooSmallError extends Ai00Error {}
class OutOfMemoryError extends Ai00Error {}
class InternalError extends Ai00Error {}
const ERRORS = {
  [-1]: InvalidArgumentError, [-2]: IOError, [-3]: ModelFileError, [-4]: FormatError, [-5]: GrammarError,
  [-6]: MismatchError, [-7]: UnsupportedError, [-8]: CancelledError, [-9]: BufferTooSmallError,
  [-10]: OutOfMemoryError, [-99]: InternalError,
};

function statusString(status) { return fn.ai00_status_string(status); }
function lastError() { return fn.ai00_last_error(); }
// `message` overrides the thread's slot (calls run on a worker thread store theirs there).
function check(status, message) {
  if (status !== 0) {
    const Cls = ERRORS[status] || Ai00Error;
    throw new Cls(status, message === undefined ? lastError() : message);
  }
}

function version() {
  const v = [0];
  check(fn.ai00_version_number(v));
  return `${Math.floor(v[0] / 10000)}.${Math.floor(v[0] / 100) % 100}.${v[0] % 100}`;
}
function abiVersion() { const v = [0]; check(fn.ai00_abi_version(v)); return v[0]; }
function finishReasonName(reason) { const n = [null]; check(fn.ai00_finish_reason_name(n, reason)); return n[0]; }

// ---- limits and conversion --------------------------------------------------------------------

const LIMIT_FIELDS = {
  maxNestingDepth: 'max_nesting_depth', maxThreads: 'max_threads', maxGrammarStates: 'max_grammar_states',
  maxNfaStates: 'max_nfa_states', maxInputBytes: 'max_input_bytes', maxFileBytes: 'max_file_bytes',
  maxStringBytes: 'max_string_bytes', maxTokens: 'max_tokens',
};
function limitsFromC(c) {
  const l = {};
  for (const [js, cName] of Object.entries(LIMIT_FIELDS)) l[js] = Number(c[cName]);
  return l;
}
/** The process-wide resource limits: default(), get() (in force) and set(limits) (a zero field
 * or maxNestingDepth above 1000 throws InvalidArgumentError and changes nothing). */
const Limits = {
  default() { const c = {}; check(fn.ai00_limits_default(c)); return limitsFromC(c); },
  get() { const c = { struct_size: koffi.sizeof('ai00_limits') }; check(fn.ai00_limits_get(c)); return limitsFromC(c); },
  set(limits) {
    const c = {};
    check(fn.ai00_limits_default(c));
    for (const [js, cName] of Object.entries(LIMIT_FIELDS)) {
      if (limits[js] !== undefined) c[cName] = typeof c[cName] === 'bigint' ? BigInt(limits[js]) : limits[js];
    }
    check(fn.ai00_limits_set(c));
  },
};

/** Rewrites a weight file as GGUF or safetensors in one weight type. `progress(done, total)` is
 * called synchronously; returning true cancels (CancelledError, nothing written); an exception it
 * throws cancels the conversion and is rethrown. */
function convertModel(pathIn, pathOut, { weightType = WeightType.F16, fileFormat = FileFormat.GGUF, overwrite = false,
  vocabPath = null, progress = null } = {}) {
  const p = {};
  check(fn.ai00_convert_params_default(p));
  Object.assign(p, { weight_type: weightType, file_format: fileFormat, overwrite: overwrite ? 1 : 0 });
  p.vocab_path = vocabPath === null || vocabPath === undefined ? null : String(vocabPath);
  const cb = progressCallback(progress);
  p.progress = cb.callback;
  p.user_data = null;
  const a = utf8(pathIn); const b = utf8(pathOut);
  const status = fn.ai00_model_convert(a, a.length, b, b.length, p);
  if (cb.error) throw cb.error;
  check(status);
}

/** An ai00_progress_callback for `progress(done, total)` (null for none), called synchronously
 * during one call (koffi keeps it alive for that call). An exception must not unwind through the
 * library: it cancels and is kept in `.error` for the caller to rethrow. */
function progressCallback(progress) {
  const cb = { error: null, callback: null };
  if (progress) {
    cb.callback = (done, total) => {
      try { return progress(Number(done), Number(total)) ? 1 : 0; } catch (e) { cb.error = e; return 1; }
    };
  }
  return cb;
}

/** What this build can do on this CPU (ai00_capabilities_json), parsed: the ISA a load would
 * choose, the ISAs compiled in and runnable here, native int8/bf16 dot products, hardware
 * threads, weight types, containers, chat formats and grammar inputs. */
function capabilities() {
  return JSON.parse(twoCall((n, b, c) => fn.ai00_capabilities_json(n, b, c), 1).toString('utf8'));
}

// ---- marshalling helpers ----------------------------------------------------------------------

const utf8 = (s) => (Buffer.isBuffer(s) ? s : Buffer.from(String(s), 'utf8'));
const jsonText = (v) => (typeof v === 'string' || Buffer.isBuffer(v) ? utf8(v) : Buffer.from(JSON.stringify(v)));
function bytesAt(ptr, len) {
  const n = Number(len);
  if (!ptr || n === 0) return Buffer.alloc(0);
  return Buffer.from(koffi.decode(ptr, 'uint8_t', n));
}
const nonNull = (b) => (b.length ? b : Buffer.alloc(1));
const stringAt = (ptr, len) => bytesAt(ptr, len).toString('utf8');
// The two-call size idiom into a buffer of `elementSize`-byte elements.
function twoCall(call, elementSize) {
  const n = [0];
  const s = call(n, null, 0);
  if (s !== 0 && s !== Status.BUFFER_TOO_SMALL) check(s);
  const buf = Buffer.alloc(Math.max(Number(n[0]), 1) * elementSize);
  check(call(n, buf, Number(n[0])));
  return buf.subarray(0, Number(n[0]) * elementSize);
}
const u32Array = (buf) => Array.from(new Uint32Array(buf.buffer, buf.byteOffset, buf.length / 4));
const u32Buffer = (ids) => Buffer.from(Uint32Array.from(ids).buffer);
function strings(count, at) {
  const out = [];
  for (let i = 0; i < count; ++i) {
    const p = [null]; const n = [0];
    check(at(p, n, i));
    out.push(stringAt(p[0], n[0]));
  }
  return out;
}

// ---- handles ----------------------------------------------------------------------------------

const registry = new FinalizationRegistry(({ free, ptr }) => free(ptr));

class Handle {
  constructor(ptr, free, kind) {
    this._ptr = ptr;
    this._free = free;
    this._kind = kind;
    registry.register(this, { free, ptr }, this);
  }
  get ptr() {
    if (!this._ptr) throw new InvalidArgumentError(Status.INVALID_ARGUMENT, `this ${this._kind} is closed`);
    return this._ptr;
  }
  get closed() { return !this._ptr; }
  close() {
    const p = this._ptr;
    this._ptr = null;
    if (p) {
      registry.unregister(this);
      this._free(p);
    }
  }
  [Symbol.dispose || Symbol.for('nodejs.dispose')]() { this.close(); }
}

class Model extends Handle {
  /** Loads a model (GGUF, safetensors, rwkv.cpp .bin, .pth). `progress(done, total)` (bytes of
   * tensor data) is called synchronously: `done` never decreases and the last call, on success
   * only, is (total, total). Returning true cancels (CancelledError); an exception it throws
   * cancels the load and is rethrown. `activations` (an Activations) applies to every evaluation
   * on the model; another value is an InvalidArgumentError naming the field. */
  constructor(path, {
    threads = 1, forcedIsa = null, vocabPath = null, progress = null, activations = Activations.DOT,
  } = {}) {
    const p = { struct_size: koffi.sizeof('ai00_model_params') };
    check(fn.ai00_model_params_default(p));
    p.n_threads = threads;
    p.forced_isa = forcedIsa;
    p.vocab_path = vocabPath;
    p.activations = activations;
    const cb = progressCallback(progress);
    p.progress = cb.callback;
    p.progress_user_data = null;
    const out = [null];
    const raw = utf8(path);
    const status = fn.ai00_model_load(out, raw, raw.length, p);
    if (cb.error) {
      if (status === 0) fn.ai00_model_free(out[0]);
      throw cb.error;
    }
    check(status);
    super(out[0], fn.ai00_model_free, 'Model');
  }
  get lastError() { return fn.ai00_model_last_error(this._ptr); }
  get info() {
    const i = { struct_size: koffi.sizeof('ai00_model_info') };
    check(fn.ai00_model_get_info(i, this.ptr));
    return {
      layers: i.n_layer, embedding: i.n_embd, heads: i.n_head, headSize: i.head_size, vocab: i.n_vocab,
      tokens: i.n_tokens, threads: i.n_threads, stateBytes: Number(i.state_bytes),
    };
  }
  get isa() { const n = [null]; check(fn.ai00_model_isa_name(n, this.ptr)); return n[0]; }
  infoJson() {
    const m = this.ptr;
    return JSON.parse(twoCall((n, b, c) => fn.ai00_model_info_json(n, b, c, m), 1).toString('utf8'));
  }
  tokenize(text) {
    const m = this.ptr; const raw = utf8(text);
    return u32Array(twoCall((n, b, c) => fn.ai00_model_tokenize(n, b, c, m, raw, raw.length), 4));
  }
  detokenize(ids) {
    const m = this.ptr; const t = u32Buffer(ids);
    return twoCall((n, b, c) => fn.ai00_model_detokenize(n, b, c, m, t, ids.length), 1).toString('utf8');
  }
  tokenizer() { return Tokenizer._fromModel(this); }
  newState() { return new State(this); }
  /** KBNF compiled against this model's vocabulary (usable by its generators). */
  grammar(kbnf) {
    const out = [null]; const raw = utf8(kbnf);
    check(fn.ai00_grammar_compile(out, this.ptr, raw, raw.length));
    return new Grammar(out[0]);
  }
  /** One JSON document valid under `schema` (validator semantics by default; `options` as
   * Grammar.fromJsonSchema's for strict properties or a canonical/compact layout). */
  jsonSchemaGrammar(schema, options = null) {
    const out = [null]; const raw = jsonText(schema);
    if (options) check(fn.ai00_grammar_from_json_schema_with_options(out, this.ptr, raw, raw.length, schemaOptions(options)));
    else check(fn.ai00_grammar_from_json_schema(out, this.ptr, raw, raw.length));
    return new Grammar(out[0]);
  }
}

class State extends Handle {
  constructor(model, ptr = null) {
    if (!ptr) {
      const out = [null];
      check(fn.ai00_state_new(out, model.ptr));
      ptr = out[0];
    }
    super(ptr, fn.ai00_state_free, 'State');
    this.model = model;
    this._borrower = null;
  }
  static load(model, data) {
    const out = [null];
    check(fn.ai00_state_load(out, model.ptr, data, data.length));
    return new State(model, out[0]);
  }
  static loadFile(model, path) {
    const out = [null]; const raw = utf8(path);
    check(fn.ai00_state_load_file(out, model.ptr, raw, raw.length));
    return new State(model, out[0]);
  }
  /** A State from an ai00 .state file (a state-tuned initial state). */
  static loadInitial(model, path) {
    const out = [null]; const raw = utf8(path);
    check(fn.ai00_state_load_initial(out, model.ptr, raw, raw.length));
    return new State(model, out[0]);
  }
  /** Closes the generator borrowing this State first: it must never outlive the State. */
  close() {
    const g = this._borrower && this._borrower.deref();
    if (g) g.close();
    super.close();
  }
  get lastError() { return fn.ai00_state_last_error(this._ptr); }
  clone() { const out = [null]; check(fn.ai00_state_clone(out, this.ptr)); return new State(this.model, out[0]); }
  reset() { check(fn.ai00_state_reset(this.ptr)); }
  setSeed(seed) { check(fn.ai00_state_set_seed(this.ptr, BigInt(seed))); }
  get size() {
    const n = [0];
    const s = fn.ai00_state_save(n, null, 0, this.ptr);
    if (s !== Status.BUFFER_TOO_SMALL) check(s);
    return Number(n[0]);
  }
  save() { const s = this.ptr; return twoCall((n, b, c) => fn.ai00_state_save(n, b, c, s), 1); }
  saveFile(path) { const raw = utf8(path); check(fn.ai00_state_save_file(this.ptr, raw, raw.length)); }
  /** Feeds tokens; returns the logits after the last one (a Float32Array), or null. */
  eval(ids, { logits = true } = {}) {
    const n = [0]; const t = u32Buffer(ids);
    if (!logits) {
      check(fn.ai00_state_eval(n, null, 0, this.model.ptr, this.ptr, t, ids.length));
      return null;
    }
    const v = this.model.info.vocab;
    const out = new Float32Array(v);
    check(fn.ai00_state_eval(n, out, v, this.model.ptr, this.ptr, t, ids.length));
    return out;
  }
  /** Logits after every token: an array of Float32Array rows. */
  evalAll(ids) {
    const v = this.model.info.vocab; const n = [0];
    const out = new Float32Array(v * ids.length);
    check(fn.ai00_state_eval_all(n, out, out.length, this.model.ptr, this.ptr, u32Buffer(ids), ids.length));
    return Array.from({ length: ids.length }, (_, i) => out.subarray(i * v, (i + 1) * v));
  }
  /** Draws a token with this State's RNG and penalties (a manual decode loop). */
  sample(logits, params = null) {
    const tok = [0];
    const { c } = samplerToC(params);
    const arr = logits instanceof Float32Array ? logits : Float32Array.from(logits);
    check(fn.ai00_state_sample(tok, this.ptr, c, arr, arr.length));
    return tok[0];
  }
}

// ---- sampler ----------------------------------------------------------------------------------

const SAMPLER_FIELDS = {
  method: 'method', temperature: 'temperature', topK: 'top_k', topP: 'top_p', minP: 'min_p',
  typicalTau: 'typical_tau', mirostatTau: 'mirostat_tau', mirostatRate: 'mirostat_rate',
  presencePenalty: 'presence_penalty', frequencyPenalty: 'frequency_penalty', penaltyDecay: 'penalty_decay',
  repetitionPenalty: 'repetition_penalty',
};
function samplerFromC(c) {
  const p = {};
  for (const [js, cName] of Object.entries(SAMPLER_FIELDS)) p[js] = c[cName];
  p.banEos = c.ban_eos !== 0;
  p.logitBias = {};
  return p;
}
/** Sampler settings: the library default, or a preset; change fields and pass them on. */
const SamplerParams = {
  default() { const c = {}; check(fn.ai00_sampler_params_default(c)); return samplerFromC(c); },
  preset(preset) { const c = {}; check(fn.ai00_sampler_params_preset(c, preset)); return samplerFromC(c); },
};
function samplerToC(params) {
  const c = {};
  check(fn.ai00_sampler_params_default(c));
  if (!params) return { c };
  for (const [js, cName] of Object.entries(SAMPLER_FIELDS)) if (params[js] !== undefined) c[cName] = params[js];
  if (params.banEos !== undefined) c.ban_eos = params.banEos ? 1 : 0;
  const bias = Object.entries(params.logitBias || {});
  // The bias array is borrowed for the call: keep the buffer referenced by the caller's frame.
  const buf = Buffer.alloc(Math.max(bias.length, 1) * 8);
  bias.forEach(([t, b], i) => { buf.writeUInt32LE(Number(t), i * 8); buf.writeFloatLE(b, i * 8 + 4); });
  c.logit_bias = bias.length ? buf : null;
  c.n_logit_bias = bias.length;
  return { c, keep: buf };
}

// ---- deltas -----------------------------------------------------------------------------------

function deltaFromC(d) {
  const delta = { kind: d.kind, text: stringAt(d.text, d.text_len) };
  if (d.kind === DeltaKind.TOOL_CALL_START || d.kind === DeltaKind.TOOL_CALL_ARGUMENTS) {
    delta.call = d.call;
    if (d.kind === DeltaKind.TOOL_CALL_START) {
      delta.id = stringAt(d.id, d.id_len);
      delta.name = stringAt(d.name, d.name_len);
    }
  }
  if (d.kind === DeltaKind.TOOL_CALL) {
    delta.call = d.call;
    delta.id = stringAt(d.id, d.id_len);
    delta.name = stringAt(d.name, d.name_len);
    delta.valid = d.valid !== 0;
    delta.arguments = delta.valid ? JSON.parse(delta.text) : null;
  }
  if (d.kind === DeltaKind.FINISH) delta.finishReason = d.finish_reason;
  return delta;
}

// ---- chat template and output parser ----------------------------------------------------------

const newDelta = () => ({ struct_size: koffi.sizeof('ai00_delta') });

function renderOptions({ addGenerationPrompt = true, thinking = Thinking.OFF, tools = null, assistantName = null,
  reflect = false, introspect = false, prependToken0 = null } = {}) {
  const o = {};
  check(fn.ai00_render_options_default(o));
  o.add_generation_prompt = addGenerationPrompt ? 1 : 0;
  o.thinking = thinking;
  o.reflect = reflect ? 1 : 0;
  o.introspect = introspect ? 1 : 0;
  if (prependToken0 !== null && prependToken0 !== undefined) o.prepend_token0 = prependToken0 ? 1 : 0;
  if (tools !== null && tools !== undefined) { const t = jsonText(tools); o.tools_json = t; o.tools_json_len = t.length; }
  if (assistantName !== null && assistantName !== undefined) {
    const a = utf8(assistantName); o.assistant_name = a; o.assistant_name_len = a.length;
  }
  return o;
}

class ChatTemplate extends Handle {
  /** A chat format: "ai00-v1", "ai00-v0", "goose" or "openchatml". One thread at a time. */
  /** `config`: TOML text (docs/chat-formats.md "Configuration"); a FormatError names config:LINE:COLUMN. */
  constructor(name, { config = null } = {}) {
    const out = [null]; const raw = utf8(name);
    if (config === null || config === undefined) check(fn.ai00_chat_template_new(out, raw, raw.length));
    else {
      const toml = utf8(config);
      check(fn.ai00_chat_template_new_with_config(out, raw, raw.length, toml, toml.length));
    }
    super(out[0], fn.ai00_chat_template_free, 'ChatTemplate');
    this.name = name;
  }
  static withConfig(name, config) { return new ChatTemplate(name, { config }); }
  /** The sampling preset `name` of the configuration ("chat", "math", "creative" or one it adds). */
  samplerPreset(name) {
    const c = {}; const raw = utf8(name);
    check(fn.ai00_chat_template_sampler_preset(c, this.ptr, raw, raw.length));
    return samplerFromC(c);
  }
  /** A fill-in-the-middle prompt (OpenChatML). */
  renderFim(prefix, suffix) {
    const a = utf8(prefix); const b = utf8(suffix); const p = [null]; const n = [0];
    // koffi passes an empty Buffer as NULL: give the library a non-NULL pointer with length 0.
    check(fn.ai00_chat_template_render_fim(p, n, this.ptr, nonNull(a), a.length, nonNull(b), b.length));
    return stringAt(p[0], n[0]);
  }
  /** A multi-file sequence joined by the file separator (OpenChatML). */
  renderFiles(files, { leadingSeparator = false } = {}) {
    const bufs = files.map((f) => nonNull(utf8(f)));
    const sizes = files.map((f) => utf8(f).length);
    const lens = Buffer.from(BigUint64Array.from(sizes.map((n) => BigInt(n))).buffer);
    const p = [null]; const n = [0];
    check(fn.ai00_chat_template_render_files(p, n, this.ptr, bufs.length ? bufs : null, bufs.length ? lens : null,
      bufs.length, leadingSeparator ? 1 : 0));
    return stringAt(p[0], n[0]);
  }
  /** A rendered conversation read back into an array of messages (OpenChatML). */
  parseTranscript(text) {
    const raw = utf8(text); const p = [null]; const n = [0];
    check(fn.ai00_chat_template_parse_transcript(p, n, this.ptr, nonNull(raw), raw.length));
    return JSON.parse(stringAt(p[0], n[0]));
  }
  get lastError() { return fn.ai00_chat_template_last_error(this._ptr); }
  /** Renders a conversation (array of messages or its JSON) into { prompt, stopSequences }. */
  render(messages, options = {}) {
    const conv = jsonText(messages);
    const p = [null]; const n = [0];
    check(fn.ai00_chat_template_render(p, n, this.ptr, conv, conv.length, renderOptions(options)));
    const prompt = stringAt(p[0], n[0]);
    const count = [0];
    check(fn.ai00_chat_template_stop_count(count, this.ptr));
    const t = this.ptr;
    return { prompt, stopSequences: strings(Number(count[0]), (pp, nn, i) => fn.ai00_chat_template_stop(pp, nn, t, i)) };
  }
  /** The last render with its constrained-decoding hints. */
  lastRender() {
    const p = [null]; const n = [0];
    check(fn.ai00_chat_template_last_render_json(p, n, this.ptr));
    return JSON.parse(stringAt(p[0], n[0]));
  }
  outputParser(options = {}) { return new OutputParser(this, options); }
}

class OutputParser extends Handle {
  /** Parses a reply produced elsewhere into the deltas a generator would give. */
  /** `streamToolCalls`: also TOOL_CALL_START and TOOL_CALL_ARGUMENTS deltas as each call streams. */
  constructor(template, { thinking = Thinking.OFF, tools = null, idSeed = 0, streamToolCalls = false } = {}) {
    const o = {};
    check(fn.ai00_parse_options_default(o));
    o.thinking = thinking;
    o.stream_tool_calls = streamToolCalls ? 1 : 0;
    o.id_seed = BigInt(idSeed);
    if (tools !== null && tools !== undefined) { const t = jsonText(tools); o.tools_json = t; o.tools_json_len = t.length; }
    const out = [null];
    check(fn.ai00_output_parser_new(out, template.ptr, o));
    super(out[0], fn.ai00_output_parser_free, 'OutputParser');
  }
  get lastError() { return fn.ai00_output_parser_last_error(this._ptr); }
  _drain() {
    const n = [0];
    check(fn.ai00_output_parser_pending(n, this.ptr));
    const out = [];
    for (let i = 0; i < Number(n[0]); ++i) {
      const d = newDelta();
      check(fn.ai00_output_parser_next(d, this.ptr));
      out.push(deltaFromC(d));
    }
    return out;
  }
  push(text) { const raw = utf8(text); check(fn.ai00_output_parser_push([0], this.ptr, raw, raw.length)); return this._drain(); }
  finish(reason = FinishReason.STOP) { check(fn.ai00_output_parser_finish(this.ptr, reason)); return this._drain(); }
  get finishReason() { const r = [0]; check(fn.ai00_output_parser_finish_reason(r, this.ptr)); return r[0]; }
  get message() {
    const p = [null]; const n = [0];
    check(fn.ai00_output_parser_message_json(p, n, this.ptr));
    return JSON.parse(stringAt(p[0], n[0]));
  }
  get warnings() {
    const n = [0];
    check(fn.ai00_output_parser_warning_count(n, this.ptr));
    const h = this.ptr;
    return strings(Number(n[0]), (p, l, i) => fn.ai00_output_parser_warning(p, l, h, i));
  }
}

// ---- tokenizer --------------------------------------------------------------------------------

class Tokenizer extends Handle {
  /** Loads an RWKV World vocabulary file. Immutable: share it freely. */
  constructor(path, ptr = null) {
    if (!ptr) {
      const out = [null]; const raw = utf8(path);
      check(fn.ai00_tokenizer_load(out, raw, raw.length));
      ptr = out[0];
    }
    super(ptr, fn.ai00_tokenizer_free, 'Tokenizer');
  }
  static _fromModel(model) {
    const out = [null];
    check(fn.ai00_tokenizer_from_model(out, model.ptr));
    return new Tokenizer(null, out[0]);
  }
  get lastError() { return fn.ai00_tokenizer_last_error(this._ptr); }
  get vocabSize() { const n = [0]; check(fn.ai00_tokenizer_vocab_size(n, this.ptr)); return n[0]; }
  encode(text) {
    const t = this.ptr; const raw = utf8(text);
    return u32Array(twoCall((n, b, c) => fn.ai00_tokenizer_encode(n, b, c, t, raw, raw.length), 4));
  }
  /** The exact bytes the ids stand for (a Buffer; possibly invalid UTF-8). */
  decode(ids) {
    const t = this.ptr; const b = u32Buffer(ids);
    return Buffer.from(twoCall((n, buf, c) => fn.ai00_tokenizer_decode(n, buf, c, t, b, ids.length), 1));
  }
}

// ---- grammar ----------------------------------------------------------------------------------

// JSON Schema options; an absent field keeps the library default (validator semantics: extra
// keys allowed, any JSON whitespace). `compact` with flexibleWhitespace false: no spaces.
function schemaOptions({ lenient, strictProperties, flexibleWhitespace, maxWhitespace, compact } = {}) {
  const o = {};
  check(fn.ai00_schema_options_default(o));
  if (lenient !== undefined) o.lenient = lenient ? 1 : 0;
  if (strictProperties !== undefined) o.strict_properties = strictProperties ? 1 : 0;
  if (flexibleWhitespace !== undefined) o.flexible_whitespace = flexibleWhitespace ? 1 : 0;
  if (maxWhitespace !== undefined) o.max_whitespace = maxWhitespace;
  if (compact !== undefined) o.compact = compact ? 1 : 0;
  return o;
}
/** The library's default JSON Schema options. */
function defaultSchemaOptions() {
  const o = schemaOptions();
  return {
    lenient: o.lenient !== 0, strictProperties: o.strict_properties !== 0, flexibleWhitespace: o.flexible_whitespace !== 0,
    maxWhitespace: o.max_whitespace, compact: o.compact !== 0,
  };
}

class Grammar extends Handle {
  constructor(ptr) { super(ptr, fn.ai00_grammar_free, 'Grammar'); }
  /** KBNF at byte level (no tokenizer) or over a tokenizer's vocabulary, for checks. */
  static fromKbnf(kbnf, { tokenizer = null, startRule = null } = {}) {
    const p = {};
    check(fn.ai00_grammar_params_default(p));
    if (startRule !== null) { const s = utf8(startRule); p.start_rule = s; p.start_rule_len = s.length; }
    const out = [null]; const raw = utf8(kbnf);
    check(fn.ai00_grammar_new(out, tokenizer ? tokenizer.ptr : null, raw, raw.length, p));
    return new Grammar(out[0]);
  }
  static fromJsonSchema(schema, { tokenizer = null, ...options } = {}) {
    const out = [null]; const raw = jsonText(schema);
    check(fn.ai00_grammar_new_from_json_schema(out, tokenizer ? tokenizer.ptr : null, raw, raw.length, schemaOptions(options)));
    return new Grammar(out[0]);
  }
  /** The tool-call grammar of the template's format for `tools`. */
  static forTools(template, tools, { tokenizer = null, level = GrammarMode.STRUCTURAL, thinkingStart = ThinkingStart.OPTIONAL,
    allowEosEnd = false, schema = null } = {}) {
    const p = {};
    check(fn.ai00_tool_grammar_params_default(p));
    Object.assign(p, { level, thinking_start: thinkingStart, allow_eos_end: allowEosEnd ? 1 : 0 });
    p.schema = schema ? schemaOptions(schema) : null;
    const out = [null]; const raw = jsonText(tools);
    check(fn.ai00_grammar_new_for_tools(out, tokenizer ? tokenizer.ptr : null, template.ptr, raw, raw.length, p));
    return new Grammar(out[0]);
  }
  get lastError() { return fn.ai00_grammar_last_error(this._ptr); }
  get kbnf() { const p = [null]; const n = [0]; check(fn.ai00_grammar_kbnf(p, n, this.ptr)); return stringAt(p[0], n[0]); }
  get warnings() {
    const n = [0];
    check(fn.ai00_grammar_warning_count(n, this.ptr));
    const g = this.ptr;
    return strings(Number(n[0]), (p, l, i) => fn.ai00_grammar_warning(p, l, g, i));
  }
  accepts(text) { const ok = [0]; const raw = utf8(text); check(fn.ai00_grammar_accepts(ok, this.ptr, raw, raw.length)); return ok[0] !== 0; }
  check(text) {
    const r = { struct_size: koffi.sizeof('ai00_grammar_check_result') };
    const raw = utf8(text);
    check(fn.ai00_grammar_check(r, this.ptr, raw, raw.length));
    return {
      verdict: r.verdict, accepted: r.verdict === CheckVerdict.ACCEPTED, byteOffset: Number(r.byte_offset),
      tokenIndex: Number(r.token_index), tokenId: r.token_id,
    };
  }
}

// ---- generator --------------------------------------------------------------------------------

function generateParams({ maxTokens, prefillChunk, seed, grammar = null, grammarMode = GrammarMode.AUTOMATIC, stop = [],
  prefixCache = null, streamToolCalls = false, toolChoice = ToolChoice.AUTO, parallelToolCalls = true } = {}) {
  const p = { struct_size: koffi.sizeof('ai00_generate_params') };
  check(fn.ai00_generate_params_default(p));
  if (maxTokens !== undefined) p.max_tokens = maxTokens;
  if (prefillChunk !== undefined) p.prefill_chunk = prefillChunk;
  if (seed !== undefined && seed !== null) { p.set_seed = 1; p.seed = BigInt(seed); }
  p.grammar_mode = grammarMode;
  p.grammar = grammar ? grammar.ptr : null;
  p.stop_sequences = stop.length ? stop.map(String) : null; // koffi copies them for the call
  p.n_stop_sequences = stop.length;
  p.prefix_cache = prefixCache ? prefixCache.ptr : null;
  p.stream_tool_calls = streamToolCalls ? 1 : 0;
  p.parallel_tool_calls = parallelToolCalls ? 1 : 0;
  let name = null; // the library copies the name during the creation call; kept until then
  if (toolChoice !== null && typeof toolChoice === 'object') {
    if (typeof toolChoice.name !== 'string') {
      throw new InvalidArgumentError(Status.INVALID_ARGUMENT, 'toolChoice: { name } needs the tool\'s name (a string)');
    }
    name = utf8(toolChoice.name);
    p.tool_choice = ToolChoice.NAMED;
    p.tool_choice_name = nonNull(name);
    p.tool_choice_name_len = name.length;
  } else {
    p.tool_choice = toolChoice;
  }
  return { p, name };
}

/** ai00_generator_free, then the generator's hold on its prefix cache (the cache object is in
 * the finalizer's held value, so it is never collected before the generator). */
function generatorFree(cache) {
  if (!cache) return fn.ai00_generator_free;
  return (ptr) => { fn.ai00_generator_free(ptr); cache._release(); };
}

class Generator extends Handle {
  constructor(ptr, keep, cache = null) {
    super(ptr, generatorFree(cache), 'Generator');
    this._keep = keep; // the model, State, template and grammar stay alive with us
    this._finished = false;
    this._busy = false;
  }
  _borrow(state) { state._borrower = new WeakRef(this); return this; }

  /** A chat turn: `template` renders `messages`; options: render (thinking, tools, ...),
   * sampler, maxTokens, seed, grammar, grammarMode, stop, prefillChunk, prefixCache,
   * streamToolCalls (TOOL_CALL_START and TOOL_CALL_ARGUMENTS deltas before each TOOL_CALL),
   * toolChoice (a ToolChoice, or `{ name }` to force calls to that tool; a name not among the
   * tools throws InvalidArgumentError naming it), parallelToolCalls (false: one call at most). */
  static chat(model, state, template, messages, options = {}) {
    const conv = jsonText(messages);
    const { c: sampler } = samplerToC(options.sampler);
    const { p } = generateParams(options);
    const out = [null];
    const cache = options.prefixCache || null;
    if (cache) cache._retain();
    try {
      check(fn.ai00_generator_new_chat(out, model.ptr, state.ptr, template.ptr, conv, conv.length,
        renderOptions(options), sampler, p));
    } catch (e) { if (cache) cache._release(); throw e; }
    return new Generator(out[0], [model, state, template, options.grammar], cache)._borrow(state);
  }

  /** A raw-text turn: the prompt is fed as is; the reply is TEXT deltas. */
  static raw(model, state, prompt, options = {}) {
    const raw = utf8(prompt);
    const { c: sampler } = samplerToC(options.sampler);
    const { p } = generateParams(options);
    const out = [null];
    const cache = options.prefixCache || null;
    if (cache) cache._retain();
    try {
      check(fn.ai00_generator_new_raw(out, model.ptr, state.ptr, raw, raw.length, sampler, p));
    } catch (e) { if (cache) cache._release(); throw e; }
    return new Generator(out[0], [model, state, options.grammar], cache)._borrow(state);
  }

  _enter() {
    if (this._batch) throw new InvalidArgumentError(Status.INVALID_ARGUMENT, 'the generator is a member of a batch: step the batch');
    if (this._busy) throw new InvalidArgumentError(Status.INVALID_ARGUMENT, 'the generator is busy (one call at a time)');
    this._busy = true;
    return this.ptr;
  }

  /** The next delta, generated on a worker thread (the event loop keeps running). */
  next() {
    const g = this._enter();
    const d = newDelta();
    return new Promise((resolve, reject) => {
      fn.ai00_generator_next.async(d, g, (err, status) => {
        this._busy = false;
        if (err) return reject(err);
        // The worker thread kept its message: read the generator's own slot.
        if (status !== 0) return reject(new (ERRORS[status] || Ai00Error)(status, fn.ai00_generator_last_error(g)));
        const delta = deltaFromC(d);
        if (delta.kind === DeltaKind.FINISH) this._finished = true;
        return resolve(delta);
      });
    });
  }

  /** Deltas to the end of the turn (the last is FINISH); `signal` (an AbortSignal) cancels it. */
  async *stream({ signal } = {}) {
    const onAbort = () => this.cancel();
    if (signal) {
      if (signal.aborted) this.cancel();
      signal.addEventListener('abort', onAbort);
    }
    try {
      while (!this._finished) yield await this.next();
    } finally {
      if (signal) signal.removeEventListener('abort', onAbort);
    }
  }
  [Symbol.asyncIterator]() { return this.stream(); }

  /** Runs the turn to its end on this thread; `onDelta` returning true stops it. */
  run(onDelta = null) {
    let error = null;
    const cb = onDelta ? (d) => {
      // A callback's pointer argument arrives undecoded: read the struct it points to.
      try { return onDelta(deltaFromC(koffi.decode(d, 'ai00_delta'))) ? 1 : 0; } catch (e) { error = e; return 1; }
    } : null;
    const reason = [0];
    this._enter();
    try {
      check(fn.ai00_generator_run(reason, this.ptr, cb, null));
    } finally { this._busy = false; }
    this._finished = true;
    if (error) throw error;
    return reason[0];
  }

  /** Bounded work for a frame loop: at most `maxTokens` tokens (or a prefill chunk). */
  step(maxTokens = 1) {
    const done = [0]; const n = [0];
    this._enter();
    const out = [];
    try {
      check(fn.ai00_generator_step(done, this.ptr, maxTokens, null, null));
      check(fn.ai00_generator_pending(n, this.ptr));
      for (let i = 0; i < Number(n[0]); ++i) {
        const d = newDelta();
        check(fn.ai00_generator_next(d, this.ptr));
        out.push(deltaFromC(d));
      }
    } finally { this._busy = false; }
    if (done[0] || out.some((d) => d.kind === DeltaKind.FINISH)) this._finished = true;
    return out;
  }
  get finished() { return this._finished; }

  /** Stops the turn before the next token; safe while next() runs on a worker thread. */
  cancel() { if (this._ptr) check(fn.ai00_generator_cancel(this._ptr)); }
  close() {
    if (this._busy) throw new InvalidArgumentError(Status.INVALID_ARGUMENT, 'close() while the generator is busy; await it first');
    if (this._batch && this._batch._busy) {
      throw new InvalidArgumentError(Status.INVALID_ARGUMENT, 'close() while its batch is stepping; await the step first');
    }
    // ai00_generator_free takes a member out of its batch; forget it on our side too.
    if (this._batch && this._ptr) this._batch._members.delete(koffi.address(this._ptr));
    this._batch = null;
    super.close();
  }
  get lastError() { return fn.ai00_generator_last_error(this._ptr); }
  get finishReason() { const r = [0]; check(fn.ai00_generator_finish_reason(r, this.ptr)); return r[0]; }
  get message() {
    const p = [null]; const n = [0];
    check(fn.ai00_generator_message_json(p, n, this.ptr));
    return JSON.parse(stringAt(p[0], n[0]));
  }
  get warnings() {
    const n = [0];
    check(fn.ai00_generator_warning_count(n, this.ptr));
    const g = this.ptr;
    return strings(Number(n[0]), (p, l, i) => fn.ai00_generator_warning(p, l, g, i));
  }
  get tokens() {
    const p = [null]; const n = [0];
    check(fn.ai00_generator_tokens(p, n, this.ptr));
    return Number(n[0]) ? Array.from(koffi.decode(p[0], 'uint32_t', Number(n[0]))) : [];
  }
  /** Runs to the end (asynchronously) and returns the content text. */
  async text(options = {}) {
    let s = '';
    for await (const d of this.stream(options)) if (d.kind === DeltaKind.TEXT) s += d.text;
    return s;
  }
}

// ---- prefix cache -----------------------------------------------------------------------------

/** States after token prefixes (system prompt, persona), reused by generators whose State is
 * pristine (new or reset): pass it as the `prefixCache` option of Generator.chat/raw. The library
 * frees a cache only after every generator using it, so close() while some are open (or not yet
 * collected) waits for the last one. Thread-safe in the library (docs/prefix-cache.md). */
class PrefixCache extends Handle {
  constructor({ maxBytes, compressBf16 = false } = {}) {
    const p = { struct_size: koffi.sizeof('ai00_prefix_cache_params') };
    check(fn.ai00_prefix_cache_params_default(p));
    if (maxBytes !== undefined) p.max_bytes = BigInt(maxBytes);
    p.compress_bf16 = compressBf16 ? 1 : 0;
    const out = [null];
    check(fn.ai00_prefix_cache_new(out, p));
    super(out[0], fn.ai00_prefix_cache_free, 'PrefixCache');
    this._users = 0; // open generators using the cache
    this._closing = false;
  }
  get closed() { return this._closing || super.closed; }
  /** Frees the cache, or once the last generator using it is closed (or collected). */
  close() {
    if (this._users > 0) { this._closing = true; return; }
    super.close();
  }
  _retain() {
    if (this.closed) throw new InvalidArgumentError(Status.INVALID_ARGUMENT, 'this PrefixCache is closed');
    this._users += 1;
  }
  _release() {
    this._users -= 1;
    if (this._users === 0 && this._closing) { this._closing = false; super.close(); }
  }
  get lastError() { return fn.ai00_prefix_cache_last_error(this._ptr); }
  /** Counters: hits, misses, hitTokens, inserts, evictions, entries, bytes, maxBytes, and
   * spareBytes (memory set aside for later entries by reserve(), counted against maxBytes). */
  get stats() {
    const s = { struct_size: koffi.sizeof('ai00_prefix_cache_stats') };
    check(fn.ai00_prefix_cache_stats_get(s, this.ptr));
    return {
      hits: Number(s.hits), misses: Number(s.misses), hitTokens: Number(s.hit_tokens), inserts: Number(s.inserts),
      evictions: Number(s.evictions), entries: Number(s.entries), bytes: Number(s.bytes), maxBytes: Number(s.max_bytes),
      spareBytes: Number(s.spare_bytes),
    };
  }
  /** Drops every entry and the memory set aside (the counters other than entries, bytes and
   * spareBytes are kept). */
  clear() { check(fn.ai00_prefix_cache_clear(this.ptr)); }
  /** Sets memory aside now for `entries` more entries of `model` (allocated and written, so its
   * pages are in), for a loop that must not wait on fresh pages when a generator stores a State
   * later; later inserts of that model take this memory first. It counts against maxBytes
   * (stats.spareBytes). Returns how many entries were set aside: fewer when the bound is reached,
   * 0 for 0 entries (a negative or fractional count is an InvalidArgumentError). */
  reserve(model, entries) {
    if (!Number.isSafeInteger(entries) || entries < 0) {
      throw new InvalidArgumentError(Status.INVALID_ARGUMENT, `reserve: entries must be a count (got ${entries})`);
    }
    const n = [0];
    check(fn.ai00_prefix_cache_reserve(n, this.ptr, model.ptr, entries));
    return Number(n[0]);
  }
  /** Stores the State after `tokens` (an array of ids, or a text the model encodes) fed to the
   * zero state; returns how many tokens ran (0 when all were cached). */
  warm(model, tokens) {
    const n = [0];
    if (typeof tokens === 'string' || Buffer.isBuffer(tokens)) {
      const raw = utf8(tokens);
      check(fn.ai00_prefix_cache_warm_text(n, this.ptr, model.ptr, nonNull(raw), raw.length));
    } else {
      check(fn.ai00_prefix_cache_warm(n, this.ptr, model.ptr, nonNull(u32Buffer(tokens)), tokens.length));
    }
    return Number(n[0]);
  }
}

// ---- option scoring ---------------------------------------------------------------------------

function scoreParams({ context = null, logits = null } = {}) {
  const p = { struct_size: koffi.sizeof('ai00_score_params') };
  check(fn.ai00_score_params_default(p));
  if (context) { p.context = nonNull(u32Buffer(context)); p.n_context = context.length; }
  if (logits) {
    const l = logits instanceof Float32Array ? logits : Float32Array.from(logits);
    p.logits = Buffer.from(l.buffer, l.byteOffset, l.byteLength); p.n_logits = l.length;
  }
  return p;
}
function scoresFromBuffer(buf, k) {
  const out = [];
  for (let i = 0; i < k; ++i) {
    out.push({ totalLogprob: buf.readDoubleLE(i * 24), meanLogprob: buf.readDoubleLE(i * 24 + 8),
      nTokens: Number(buf.readBigUInt64LE(i * 24 + 16)) });
  }
  return out;
}
const sizeBuffer = (sizes) => Buffer.from(BigUint64Array.from(sizes.map((n) => BigInt(n))).buffer);

/** How likely `state` continues with each candidate (arrays of token ids): natural-log
 * probabilities { totalLogprob, meanLogprob, nTokens }. Give exactly one of `context` (ids fed to
 * a copy first) or `logits` (the State's last logits). The State is unchanged. */
function scoreOptions(model, state, candidates, options = {}) {
  const p = scoreParams(options);
  const k = candidates.length;
  const out = Buffer.alloc(Math.max(k, 1) * koffi.sizeof('ai00_option_score'));
  const rows = candidates.map((c) => nonNull(u32Buffer(c)));
  check(fn.ai00_state_score_options(out, k, model.ptr, state.ptr, k ? rows : null,
    k ? sizeBuffer(candidates.map((c) => c.length)) : null, k, p));
  return scoresFromBuffer(out, k);
}
/** scoreOptions with texts, each encoded alone (a new word usually starts with a space). */
function scoreTexts(model, state, texts, options = {}) {
  const p = scoreParams(options);
  const k = texts.length;
  const out = Buffer.alloc(Math.max(k, 1) * koffi.sizeof('ai00_option_score'));
  const raws = texts.map((t) => utf8(t));
  check(fn.ai00_state_score_texts(out, k, model.ptr, state.ptr, k ? raws.map(nonNull) : null,
    k ? sizeBuffer(raws.map((r) => r.length)) : null, k, p));
  return scoresFromBuffer(out, k);
}

// ---- state bundles ----------------------------------------------------------------------------

function bundleArgs(states) {
  const entries = states instanceof Map ? [...states.entries()] : Object.entries(states);
  const names = entries.map(([n]) => utf8(n));
  return { states: entries.map(([, s]) => s.ptr), names: names.map(nonNull), lens: sizeBuffer(names.map((n) => n.length)),
    count: entries.length };
}

/** Many named States in one buffer or file: StateBundle.save({ name: state, ... }) -> Buffer,
 * saveFile(states, path), StateBundle.open(buffer) / openFile(path) (a truncated or corrupt
 * bundle throws ModelFileError), then names, find(name), load(model, indexOrName), loadAll(model). */
class StateBundle extends Handle {
  constructor(ptr) { super(ptr, fn.ai00_state_bundle_free, 'StateBundle'); }
  static save(states) {
    const a = bundleArgs(states);
    return twoCall((n, b, c) => fn.ai00_state_bundle_save(n, b, c, a.states, a.names, a.lens, a.count), 1);
  }
  static saveFile(states, path) {
    const a = bundleArgs(states); const raw = utf8(path);
    check(fn.ai00_state_bundle_save_file(a.states, a.names, a.lens, a.count, raw, raw.length));
  }
  static open(data) {
    const out = [null];
    check(fn.ai00_state_bundle_open(out, nonNull(data), data.length));
    return new StateBundle(out[0]);
  }
  static openFile(path) {
    const out = [null]; const raw = utf8(path);
    check(fn.ai00_state_bundle_open_file(out, raw, raw.length));
    return new StateBundle(out[0]);
  }
  get lastError() { return fn.ai00_state_bundle_last_error(this._ptr); }
  get length() { const n = [0]; check(fn.ai00_state_bundle_count(n, this.ptr)); return Number(n[0]); }
  get names() { const b = this.ptr; return strings(this.length, (p, l, i) => fn.ai00_state_bundle_name(p, l, b, i)); }
  find(name) {
    const raw = utf8(name); const i = [0];
    check(fn.ai00_state_bundle_find(i, this.ptr, nonNull(raw), raw.length));
    return Number(i[0]);
  }
  load(model, entry) {
    const index = typeof entry === 'number' ? entry : this.find(entry);
    const out = [null];
    check(fn.ai00_state_bundle_load(out, this.ptr, model.ptr, index));
    return new State(model, out[0]);
  }
  loadAll(model) {
    const m = new Map();
    this.names.forEach((n, i) => m.set(n, this.load(model, i)));
    return m;
  }
}

// ---- batch ------------------------------------------------------------------------------------

const BatchEventKind = Object.freeze({ DELTA: 0, FINISHED: 1, ERROR: 2 });

/** Many generators of ONE model advanced together, one pass over the weights per step
 * (docs/batching.md); each member gives exactly the tokens it gives alone. The batch keeps its
 * members referenced; a member cannot be stepped alone. step() runs synchronously on the calling
 * thread (bounded by its budgets: a frame loop's call); stepAsync() runs the same step on a
 * worker thread, and events() is an async iterator of the events until every member finished.
 * An event is { generator, kind, finishReason, delta?, error? }. */
class Batch extends Handle {
  constructor(model, { passRows } = {}) {
    const p = { struct_size: koffi.sizeof('ai00_batch_params') };
    check(fn.ai00_batch_params_default(p));
    if (passRows !== undefined) p.pass_rows = passRows;
    const out = [null];
    check(fn.ai00_batch_new(out, model.ptr, p));
    super(out[0], fn.ai00_batch_free, 'Batch');
    this.model = model;
    this._members = new Map();
    this._busy = false;
  }
  get lastError() { return fn.ai00_batch_last_error(this._ptr); }
  _idle() { if (this._busy) throw new InvalidArgumentError(Status.INVALID_ARGUMENT, 'the batch is busy (await its step first)'); }
  close() {
    this._idle();
    for (const g of this._members.values()) g._batch = null;
    this._members.clear();
    super.close();
  }
  /** Adds a member: MismatchError for a generator of another model, InvalidArgumentError for
   * one already in a batch. */
  add(generator) {
    this._idle();
    if (generator._busy) throw new InvalidArgumentError(Status.INVALID_ARGUMENT, 'the generator is busy');
    check(fn.ai00_batch_add(this.ptr, generator.ptr));
    this._members.set(koffi.address(generator.ptr), generator);
    generator._batch = this;
  }
  /** Takes a member out; it may then be stepped alone and continues exactly. */
  remove(generator) {
    this._idle();
    check(fn.ai00_batch_remove(this.ptr, generator.ptr));
    this._members.delete(koffi.address(generator.ptr));
    generator._batch = null;
  }
  get size() { const n = [0]; check(fn.ai00_batch_size(n, this.ptr)); return Number(n[0]); }
  get members() { return [...this._members.values()]; }

  _params(maxTokens, timeBudgetUs, wholeBatch) {
    const p = { struct_size: koffi.sizeof('ai00_batch_step_params') };
    check(fn.ai00_batch_step_params_default(p));
    p.max_tokens = maxTokens;
    p.time_budget_us = BigInt(timeBudgetUs);
    p.whole_batch = wholeBatch ? 1 : 0;
    return p;
  }
  _drain(r) {
    const n = [0];
    check(fn.ai00_batch_pending(n, this.ptr));
    const events = [];
    for (let i = 0; i < Number(n[0]); ++i) {
      const has = [0]; const e = { struct_size: koffi.sizeof('ai00_batch_event') };
      check(fn.ai00_batch_next_event(has, e, this.ptr));
      if (!has[0]) break;
      const g = this._members.get(koffi.address(e.generator));
      const ev = { generator: g, kind: e.kind, finishReason: e.finish_reason };
      if (e.kind === BatchEventKind.DELTA) {
        ev.delta = deltaFromC(e.delta);
        if (ev.delta.kind === DeltaKind.FINISH && g) g._finished = true;
      } else {
        if (g) g._finished = true;
        ev.error = stringAt(e.error, e.error_len);
      }
      events.push(ev);
    }
    return {
      steps: r.steps, tokensSampled: Number(r.tokens_sampled), promptTokens: Number(r.prompt_tokens),
      timeLimited: r.time_limited !== 0, unfinished: r.unfinished, events,
    };
  }
  /** One bounded advance on this thread: at most `maxTokens` tokens per decoding member and,
   * with `timeBudgetUs`, only steps predicted to fit; when one token per member does not fit,
   * the first step advances the members that fit, least recently advanced first (all of them
   * with `wholeBatch`). Returns { steps, tokensSampled, promptTokens, timeLimited, unfinished,
   * events } (per member: deltas, then FINISHED/ERROR). */
  step({ maxTokens = 1, timeBudgetUs = 0, wholeBatch = false } = {}) {
    this._idle();
    const r = { struct_size: koffi.sizeof('ai00_batch_step_result') };
    check(fn.ai00_batch_step(r, this.ptr, this._params(maxTokens, timeBudgetUs, wholeBatch), null, null));
    return this._drain(r);
  }
  /** step() on a worker thread (the event loop stays free; do not touch the batch meanwhile). */
  stepAsync({ maxTokens = 1, timeBudgetUs = 0, wholeBatch = false } = {}) {
    this._idle();
    const b = this.ptr;
    const r = { struct_size: koffi.sizeof('ai00_batch_step_result') };
    this._busy = true;
    return new Promise((resolve, reject) => {
      fn.ai00_batch_step.async(r, b, this._params(maxTokens, timeBudgetUs, wholeBatch), null, null, (err, status) => {
        this._busy = false;
        if (err) return reject(err);
        if (status !== 0) return reject(new (ERRORS[status] || Ai00Error)(status, fn.ai00_batch_last_error(b)));
        try { return resolve(this._drain(r)); } catch (e) { return reject(e); }
      });
    });
  }
  /** Async iterator of the events, stepping on a worker thread until every member finished. */
  async *events({ maxTokens = 1, timeBudgetUs = 0 } = {}) {
    for (;;) {
      const r = await this.stepAsync({ maxTokens, timeBudgetUs });
      yield* r.events;
      if (r.steps === 0 || r.unfinished === 0) return;
    }
  }
}

module.exports = {
  PrefixCache, StateBundle, Batch, BatchEventKind, scoreOptions, scoreTexts,
  Status, Thinking, DeltaKind, FinishReason, GrammarMode, ToolChoice, SamplerMethod, Preset, ThinkingStart, CheckVerdict, FORMATS,
  Activations, WeightType, FileFormat, Limits, convertModel, defaultSchemaOptions,
  Ai00Error, InvalidArgumentError, IOError, ModelFileError, FormatError, GrammarError, MismatchError, UnsupportedError,
  CancelledError, BufferTooSmallError, OutOfMemoryError, InternalError,
  version, abiVersion, capabilities, statusString, lastError, finishReasonName,
  Model, State, SamplerParams, ChatTemplate, OutputParser, Tokenizer, Grammar, Generator,
};
