// Type declarations of the ai00 Node.js binding (lib/index.js).
export declare const Status: Readonly<Record<'OK' | 'INVALID_ARGUMENT' | 'IO' | 'MODEL_FILE' | 'FORMAT' | 'GRAMMAR' | 'MISMATCH' | 'UNSUPPORTED' | 'CANCELLED' | 'BUFFER_TOO_SMALL' | 'OUT_OF_MEMORY' | 'INTERNAL', number>>;
export declare const Thinking: Readonly<Record<'OFF' | 'ON' | 'A_BIT' | 'A_LOT', number>>;
export declare const DeltaKind: Readonly<Record<'TEXT' | 'REASONING' | 'TOOL_CALL' | 'FINISH' | 'TOOL_CALL_START' | 'TOOL_CALL_ARGUMENTS', number>>;
export declare const WeightType: Readonly<Record<'F32' | 'F16' | 'BF16' | 'Q8_0' | 'Q4_0' | 'Q4_1' | 'Q5_0' | 'Q5_1', number>>;
export declare const FileFormat: Readonly<Record<'GGUF' | 'SAFETENSORS', number>>;
export declare const FinishReason: Readonly<Record<'NONE' | 'STOP' | 'LENGTH' | 'TOOL_CALLS' | 'CANCELLED' | 'GRAMMAR_DONE' | 'ERROR', number>>;
export declare const GrammarMode: Readonly<Record<'AUTOMATIC' | 'NONE' | 'STRUCTURAL' | 'SCHEMA_AWARE', number>>;
export declare const ToolChoice: Readonly<Record<'AUTO' | 'NONE' | 'REQUIRED' | 'NAMED', number>>;
export declare const SamplerMethod: Readonly<Record<'NUCLEUS' | 'TYPICAL' | 'MIROSTAT_V2' | 'GREEDY', number>>;
export declare const Preset: Readonly<Record<'CHAT' | 'MATH' | 'CREATIVE' | 'AI00_SERVER', number>>;
export declare const ThinkingStart: Readonly<Record<'OPTIONAL' | 'FORCED' | 'FORCED_PARTIAL', number>>;
export declare const CheckVerdict: Readonly<Record<'ACCEPTED' | 'BYTES' | 'TOKEN' | 'END_TOKEN', number>>;
export declare const FORMATS: readonly string[];

export declare class Ai00Error extends Error { status: number; libraryMessage: string; }
export declare class InvalidArgumentError extends Ai00Error {}
export declare class IOError extends Ai00Error {}
export declare class ModelFileError extends Ai00Error {}
export declare class FormatError extends Ai00Error {}
export declare class GrammarError extends Ai00Error {}
export declare class MismatchError extends Ai00Error {}
export declare class UnsupportedError extends Ai00Error {}
export declare class CancelledError extends Ai00Error {}
export declare class BufferTooSmallError extends Ai00Error {}
export declare class OutOfMemoryError extends Ai00Error {}
export declare class InternalError extends Ai00Error {}

export declare function version(): string;
export declare function abiVersion(): number;
/** What this build can do on this CPU (ai00_capabilities_json). */
export declare function capabilities(): {
  isa: string | null; isa_compiled: string[]; isa_supported: string[]; int8_dot: boolean;
  bf16_dot: boolean; hardware_threads: number; weight_types: string[];
  convert_weight_types: string[]; file_formats: string[]; chat_formats: string[]; grammar: string[];
  [key: string]: unknown;
};
export declare function statusString(status: number): string;
export declare function lastError(): string;
export declare function finishReasonName(reason: number): string;
export interface Limits {
  maxNestingDepth: number; maxThreads: number; maxGrammarStates: number; maxNfaStates: number;
  maxInputBytes: number; maxFileBytes: number; maxStringBytes: number; maxTokens: number;
}
export declare const Limits: { default(): Limits; get(): Limits; set(limits: Partial<Limits>): void };
export declare function convertModel(pathIn: string, pathOut: string, options?: {
  weightType?: number; fileFormat?: number; overwrite?: boolean; vocabPath?: string;
  progress?: ((done: number, total: number) => boolean | void) | null;
}): void;

type Json = unknown;
export interface Delta {
  kind: number; text: string;
  call?: number; id?: string; name?: string; valid?: boolean; arguments?: Json; finishReason?: number;
}
export interface SamplerParams {
  method?: number; temperature?: number; topK?: number; topP?: number; minP?: number; typicalTau?: number;
  mirostatTau?: number; mirostatRate?: number; presencePenalty?: number; frequencyPenalty?: number;
  penaltyDecay?: number; repetitionPenalty?: number; banEos?: boolean; logitBias?: Record<number, number>;
}
export declare const SamplerParams: { default(): SamplerParams; preset(preset: number): SamplerParams };
export interface RenderOptions {
  addGenerationPrompt?: boolean; thinking?: number; tools?: Json; assistantName?: string;
  reflect?: boolean; introspect?: boolean; prependToken0?: boolean | null;
}
export interface SchemaOptions { lenient?: boolean; strictProperties?: boolean; flexibleWhitespace?: boolean; maxWhitespace?: number; compact?: boolean }
export declare function defaultSchemaOptions(): Required<SchemaOptions>;
export interface GenerateOptions extends RenderOptions {
  sampler?: SamplerParams; maxTokens?: number; prefillChunk?: number; seed?: number | bigint;
  grammar?: Grammar; grammarMode?: number; stop?: string[]; prefixCache?: PrefixCache;
  /** Chat turns: TOOL_CALL_START and TOOL_CALL_ARGUMENTS deltas before each whole TOOL_CALL. */
  streamToolCalls?: boolean;
  /** Chat turns with tools: a ToolChoice value, or `{ name }` to force calls to that tool. */
  toolChoice?: number | { name: string };
  /** Chat turns with tools: false allows at most one call per reply (default true). */
  parallelToolCalls?: boolean;
}

declare class Handle { readonly closed: boolean; readonly lastError: string; close(): void; }
export interface ModelInfo { layers: number; embedding: number; heads: number; headSize: number; vocab: number; tokens: number; threads: number; stateBytes: number }
export declare class Model extends Handle {
  constructor(path: string, options?: { threads?: number; forcedIsa?: string; vocabPath?: string;
    progress?: (done: number, total: number) => boolean | void });
  readonly info: ModelInfo; readonly isa: string;
  infoJson(): Record<string, Json>;
  tokenize(text: string | Buffer): number[]; detokenize(ids: number[]): string;
  tokenizer(): Tokenizer; newState(): State; grammar(kbnf: string): Grammar; jsonSchemaGrammar(schema: Json, options?: SchemaOptions | null): Grammar;
}
export declare class State extends Handle {
  constructor(model: Model);
  static load(model: Model, data: Buffer): State; static loadFile(model: Model, path: string): State;
  static loadInitial(model: Model, path: string): State;
  readonly model: Model; readonly size: number;
  clone(): State; reset(): void; setSeed(seed: number | bigint): void; save(): Buffer; saveFile(path: string): void;
  eval(ids: number[], options?: { logits?: boolean }): Float32Array | null; evalAll(ids: number[]): Float32Array[];
  sample(logits: Float32Array | number[], params?: SamplerParams | null): number;
}
export declare class ChatTemplate extends Handle {
  constructor(name: string, options?: { config?: string | Buffer | null });
  static withConfig(name: string, config: string | Buffer): ChatTemplate;
  readonly name: string;
  samplerPreset(name: string): SamplerParams;
  renderFim(prefix: string | Buffer, suffix: string | Buffer): string;
  renderFiles(files: (string | Buffer)[], options?: { leadingSeparator?: boolean }): string;
  parseTranscript(text: string | Buffer): Record<string, Json>[];
  render(messages: Json, options?: RenderOptions): { prompt: string; stopSequences: string[] };
  lastRender(): Record<string, Json>;
  outputParser(options?: { thinking?: number; tools?: Json; idSeed?: number | bigint; streamToolCalls?: boolean }): OutputParser;
}
export declare class OutputParser extends Handle {
  push(text: string | Buffer): Delta[]; finish(reason?: number): Delta[];
  readonly finishReason: number; readonly message: Record<string, Json>; readonly warnings: string[];
}
export declare class Tokenizer extends Handle {
  constructor(path: string);
  readonly vocabSize: number; encode(text: string | Buffer): number[]; decode(ids: number[]): Buffer;
}
export interface CheckResult { verdict: number; accepted: boolean; byteOffset: number; tokenIndex: number; tokenId: number }
export declare class Grammar extends Handle {
  static fromKbnf(kbnf: string, options?: { tokenizer?: Tokenizer; startRule?: string }): Grammar;
  static fromJsonSchema(schema: Json, options?: SchemaOptions & { tokenizer?: Tokenizer }): Grammar;
  static forTools(template: ChatTemplate, tools: Json, options?: { tokenizer?: Tokenizer; level?: number; thinkingStart?: number; allowEosEnd?: boolean; schema?: SchemaOptions }): Grammar;
  readonly kbnf: string; readonly warnings: string[];
  accepts(text: string | Buffer): boolean; check(text: string | Buffer): CheckResult;
}
export declare class Generator extends Handle implements AsyncIterable<Delta> {
  static chat(model: Model, state: State, template: ChatTemplate, messages: Json, options?: GenerateOptions): Generator;
  static raw(model: Model, state: State, prompt: string | Buffer, options?: GenerateOptions): Generator;
  next(): Promise<Delta>;
  stream(options?: { signal?: AbortSignal }): AsyncGenerator<Delta>;
  [Symbol.asyncIterator](): AsyncGenerator<Delta>;
  run(onDelta?: ((d: Delta) => boolean | void) | null): number;
  step(maxTokens?: number): Delta[];
  cancel(): void;
  text(options?: { signal?: AbortSignal }): Promise<string>;
  readonly finished: boolean; readonly finishReason: number; readonly message: Record<string, Json>;
  readonly warnings: string[]; readonly tokens: number[];
}

export interface PrefixCacheStats { hits: number; misses: number; hitTokens: number; inserts: number; evictions: number; entries: number; bytes: number; maxBytes: number; spareBytes: number }
export declare class PrefixCache extends Handle {
  constructor(options?: { maxBytes?: number | bigint; compressBf16?: boolean });
  readonly stats: PrefixCacheStats; clear(): void; warm(model: Model, tokens: number[] | string | Buffer): number;
  /** Sets memory aside for `entries` more entries of `model`; returns how many were set aside. */
  reserve(model: Model, entries: number): number;
}
export interface Score { totalLogprob: number; meanLogprob: number; nTokens: number }
export interface ScoreOptions { context?: number[]; logits?: Float32Array | number[] }
export declare function scoreOptions(model: Model, state: State, candidates: number[][], options?: ScoreOptions): Score[];
export declare function scoreTexts(model: Model, state: State, texts: (string | Buffer)[], options?: ScoreOptions): Score[];
export declare class StateBundle extends Handle {
  static save(states: Record<string, State> | Map<string, State>): Buffer;
  static saveFile(states: Record<string, State> | Map<string, State>, path: string): void;
  static open(data: Buffer): StateBundle; static openFile(path: string): StateBundle;
  readonly length: number; readonly names: string[]; find(name: string): number;
  load(model: Model, entry: number | string): State; loadAll(model: Model): Map<string, State>;
}
export declare const BatchEventKind: { readonly DELTA: 0; readonly FINISHED: 1; readonly ERROR: 2 };
export interface BatchEvent { generator: Generator; kind: number; finishReason: number; delta?: Delta; error?: string }
export interface BatchStepResult { steps: number; tokensSampled: number; promptTokens: number; timeLimited: boolean; unfinished: number; events: BatchEvent[] }
export interface BatchStepOptions { maxTokens?: number; timeBudgetUs?: number; wholeBatch?: boolean }
export declare class Batch extends Handle {
  constructor(model: Model, options?: { passRows?: number });
  readonly model: Model; readonly size: number; readonly members: Generator[];
  add(generator: Generator): void; remove(generator: Generator): void;
  step(options?: BatchStepOptions): BatchStepResult;
  stepAsync(options?: BatchStepOptions): Promise<BatchStepResult>;
  events(options?: BatchStepOptions): AsyncGenerator<BatchEvent>;
}
