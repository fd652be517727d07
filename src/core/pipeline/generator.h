// Generator: runs one turn of generation on a State (docs/model.md "Model and State objects",
// docs/generation.md "Generator", docs/chat-formats.md, docs/abi.md).
//
// Pipeline of one turn:
//   chat:  conversation + tools --ChatFormat::render--> prompt, stops, ConstraintHints
//   raw:   prompt text (or token ids), caller's stops, optional grammar
//   --> encode --> prefill in chunks of `prefill_chunk` tokens (cancellable between chunks)
//   --> per token: grammar mask (Matcher::fill_mask) --> Sampler (its SamplerState lives in the
//       State, so a saved State continues identically) --> token --> StreamDecoder (whole UTF-8
//       code points only)
//       --> chat: the format's OutputParser (stop strings, markers, tool calls)
//           raw:  StopScanner (stop strings across token boundaries, never emitted)
//       --> MessageDeltas --> forward of the token (before the next sample or the turn's end:
//       the State holds every token the turn produced; "Emission order" below)
//   --> the final Message and FinishReason.
//
// Emission order: a sampled token's text (its deltas) is produced BEFORE the token's forward,
// so the first text of a turn whose prompt is cached (docs/prefix-cache.md) waits for no decode
// step. What stays as it was:
//   * finish checks: stop strings, the parser's end, grammar_done and length are decided from
//     the token's text and the grammar, as before; when they end the turn, the finish happens
//     after the token's forward, so a finished turn's State holds every token of the turn
//     (token 0 excepted, which is never fed) and logits() are those after its last token;
//   * prepare()/complete() (the Batch's phases): prepare samples and emits, the caller runs the
//     forward, complete applies a finish decided by prepare. The Batch collects deltas after
//     the step, so members see the same deltas and tokens as a lone run;
//   * next() (and run(), which hands each delta to its callback as next() returns it) leaves
//     the forward of the last emitted token PENDING when it ends nothing: it runs at the start
//     of the next unit of work, in finish() (run()'s callback stopping the turn), in prepare()
//     (a Generator handed to a Batch after next(): prepare returns that forward first), at the
//     end of step() and in the destructor. So cancel() after a token's text was handed out, or
//     destroying the Generator mid-turn, still leaves that token in the State (consistent: the
//     State holds every token whose text was emitted, and the text of every token it holds
//     except bytes held back as a partial code point or a possible stop string). Between two
//     next() calls of an unfinished turn tokens() already lists the token and logits() are
//     still those it was sampled from; step() never returns with a pending forward, so a frame
//     loop may save or clone the State between steps (tests/core/pipeline/test_generator.cpp).
// A forward that fails ends the turn with error after its token's text went out; the State then
// lacks that token (it keeps what was consumed, as before).
//
// Finish reasons: stop (a stop string, or token 0), length (max_tokens), tool_calls (at least one
// complete call; wins over stop and grammar_done), cancelled (cancel() or a callback returning
// non-zero), grammar_done (the grammar can take no further byte), error (error_message() says
// why: a failure inside a step, e.g. a sampler step with no drawable token).
//
// Three equivalent ways to drive a turn, giving identical deltas and tokens:
//   push: run(callback)        — callback per delta; a non-zero return stops (cancelled)
//   pull: next()               — one delta at a time; the last one carries finish_reason
//   step: step(budget)         — bounded work per call for game frame loops
// They may be mixed on one Generator. The prefill is split into the same chunks whichever is
// used, so results never depend on the driving style (nor on the Model's thread count).
//
// Sampling state: the seed, RNG and penalty table are the State's own (State::sampler()), saved
// by State::serialize() as a length-prefixed section after the floats. Its size grows with the
// penalty table, so State::serialized_size() varies: always deserialize the whole saved buffer,
// never a slice sized by a fresh State's serialized_size().
//
// Ownership: the Generator keeps the Model alive (shared_ptr) and BORROWS the State, which must
// outlive it and must not be used by anything else until the Generator is destroyed or finished.
// The Generator owns all scratch (logits, mask, sampler buffers), so any number of Generators on
// different States may run at the same time on one shared Model from different threads.
//
// Threading: one thread at a time calls run / next / step / accessors; cancel() may be called
// from any thread at any time and stops the turn before the next token is sampled or the next
// prefill chunk is run (so at most one further token is produced after it).
//
// Errors: constructors throw — InvalidArgument (bad options: sampler params, max_tokens 0,
// prefill_chunk 0, empty prompt without initial logits, a State or Model without a tokenizer),
// FormatError / UnsupportedError (render failed: it names the JSON pointer), GrammarError (a
// custom KBNF or JSON Schema that does not compile: line:column or pointer), MismatchError (a
// State of another model). After construction nothing throws from run / next / step except
// std::bad_alloc; failures become finish_reason error with error_message().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/stop_scanner.h"
#include "core/pipeline/grammar_spec.h"
#include "core/pipeline/prefix_reuse.h"
#include "core/sampling/sampler.h"
#include "core/tokenizer/tokenizer.h"
#include "format/delta.h"
#include "format/format.h"
#include "format/message.h"
#include "grammar/matcher.h"

namespace ai00::internal {

class Model;
class State;

// Settings shared by chat and raw turns. Plain, copyable.
struct GenerateOptions {
  SamplerParams sampler;  // validated by the constructor (InvalidArgument)
  // When set, the State's sampler seed is set (its RNG restarts from it, the penalty table is
  // kept) before the turn. When unset, the State's RNG continues where it was: a restored or
  // cloned State continues exactly as the original would.
  std::optional<uint64_t> seed;
  size_t max_tokens = 256;    // new tokens at most (finish length); >= 1
  size_t prefill_chunk = 64;  // prompt tokens per forward call; >= 1; cancel is checked between
  // Extra stop strings (besides the chat format's own), matched on the decoded text across
  // token boundaries and never emitted. Empty strings are ignored.
  std::vector<std::string> stop_sequences;
  GrammarRequest grammar;  // none / structural / schema_aware / KBNF / JSON Schema / automatic
  // A grammar already compiled against this Model's vocabulary (GrammarCache::compile, or the C
  // ABI's ai00_grammar). When set `grammar` is ignored and it is used as is, except in a chat
  // turn with thinking on when `compiled_grammar_kbnf` holds its source: then the source is
  // wrapped in the thinking block like a `kbnf` request (seed 003 "Custom Grammars",
  // docs/generation.md "Grammar choice") and the wrapped text is compiled through the cache.
  // A grammar compiled for another vocabulary is a MismatchError.
  std::optional<grammar::CompiledGrammar> compiled_grammar;
  std::string compiled_grammar_kbnf;  // the KBNF source of compiled_grammar ("" = unknown)
  // Optional cache of compiled grammars for this Model's vocabulary (share one per Model, e.g.
  // in the C ABI's model handle). nullptr: the Generator builds a private one when it needs a
  // grammar (costs the VocabIndex build).
  std::shared_ptr<GrammarCache> grammar_cache;
  // Logits of the State's last consumed token ([vocab] floats, e.g. Generator::logits() saved
  // with a State, or a prefix-cache entry). Used only when the prompt is empty: then the turn
  // samples from them at once, continuing a saved generation exactly.
  std::vector<float> initial_logits;
  // Chat only: before the turn, charge the penalty table with the tokens of the conversation's
  // earlier assistant turns (their content text), in order, as if they had been sampled (ai00's
  // model_text; docs/generation.md "Sampling"). For a fresh State rebuilt from a transcript; a
  // State that generated those turns itself already holds them, so leave it off there.
  bool penalize_history = false;
  // Prefix-state cache shared by Generators and threads (docs/prefix-cache.md). With a pristine
  // State the turn starts from the longest cached prefix of its prompt and stores the State at
  // the end of the prompt and at the chat message boundaries (prefix_reuse.h); the State's
  // sampler state stays its own. nullptr: no cache.
  std::shared_ptr<PrefixCache> prefix_cache;
  // Chat only: which tool calls the turn's tool grammar allows (auto, none, required, a named
  // tool; parallel calls or one; grammar::ToolChoice, docs/generation.md "Grammar choice").
  // Anything but the default needs the tool grammar: with a kbnf / json_schema / none grammar,
  // a compiled grammar or a raw turn the constructor throws InvalidArgument saying which.
  grammar::ToolChoice tool_choice;
  // Chat only: the output parser also sends tool-call previews (ParseOptions::
  // stream_tool_calls, docs/chat-formats.md "Deltas and finish reasons"): a start delta with
  // id and name, argument pieces as they parse, then the whole call as without streaming.
  bool stream_tool_calls = false;
};

// A chat turn: the format renders the conversation (RenderOptions carries tools, thinking and the
// assistant name) and parses the reply.
struct ChatRequest {
  std::shared_ptr<const format::ChatFormat> format;  // make_format("ai00-v1"), ...
  std::vector<format::Message> conversation;
  format::RenderOptions render;
};

// A raw-text turn (`ai00 generate`): no chat format; the output is text deltas only. The prompt is
// `prompt_tokens` when non-empty, else the encoding of `prompt` (both may be empty when
// GenerateOptions::initial_logits is given). GrammarMode::automatic means none here.
struct RawRequest {
  std::string prompt;
  std::vector<uint32_t> prompt_tokens;
};

// What one step() call did.
struct StepResult {
  std::vector<format::MessageDelta> deltas;  // in order; the last has finish_reason if finished
  size_t tokens_generated = 0;               // new tokens sampled by this call
  size_t prompt_tokens_processed = 0;        // prompt tokens prefilled by this call
  bool finished = false;
};

class Generator {
 public:
  // Return non-zero to stop the turn (finish_reason cancelled). Must not throw: an exception
  // from the callback ends the turn with finish_reason error.
  using DeltaCallback = std::function<int(const format::MessageDelta&)>;

  // Renders the conversation, encodes the prompt, chooses and compiles the grammar. No forward
  // runs here (the prefill belongs to the first run / next / step call). Errors: header comment.
  Generator(std::shared_ptr<const Model> model, State& state, const ChatRequest& request,
            const GenerateOptions& options);
  Generator(std::shared_ptr<const Model> model, State& state, const RawRequest& request,
            const GenerateOptions& options);
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;
  ~Generator();

  // Push style: runs the turn to its end, calling `callback` for every delta (the last carries
  // finish_reason). A non-zero return stops generation (no further token); the deltas already
  // produced by the current token and the finish delta (cancelled) are still delivered, so the
  // callback sees exactly what message() holds. Returns the finish reason.
  format::FinishReason run(const DeltaCallback& callback);
  // Pull style: the next delta, generating as many tokens as it takes; the delta carrying
  // finish_reason is the last; afterwards std::nullopt.
  std::optional<format::MessageDelta> next();
  // Step style for frame loops: samples at most `max_tokens` new tokens (>= 1; 0 is treated as
  // 1). While the prompt is not consumed it runs prefill chunks instead: each whole chunk counts
  // its tokens against the budget and at least one chunk runs per call. Returns the deltas
  // produced (including ones queued but not yet pulled by next()).
  StepResult step(size_t max_tokens);

  // One unit of work split around its forward, for running many Generators in one batched
  // forward (core/pipeline/batch.h). work = prepare(); if work.n > 0, the caller feeds
  // work.tokens to state() (writing the last token's logits to work.logits when not null) and
  // then calls complete(work); a failed forward is reported with fail_work(). n == 0 means no
  // forward is needed (finished, cancelled, token 0 sampled, or a failure: finished() says).
  // prepare() of a sampled token also emits its text (deltas); complete() applies a finish it
  // decided. step/next/run are exactly prepare + forward(state alone) + complete, next() only
  // moving the forward of an emitted token to its next call ("Emission order"); after next(),
  // the first prepare() returns that pending forward (sampled 0).
  struct Work {
    const uint32_t* tokens = nullptr;  // owned by the Generator; valid until complete()
    size_t n = 0;
    float* logits = nullptr;  // [vocab], or nullptr for a prompt chunk that is not the last
    bool prefill = false;     // a prompt chunk (else one sampled token)
    size_t sampled = 0;       // tokens sampled by prepare (0 or 1)
  };
  // max_prefill > 0 caps the prompt chunk below GenerateOptions::prefill_chunk (chunk sizes
  // never change results). Does not throw except std::bad_alloc.
  Work prepare(size_t max_prefill);
  void complete(const Work& work);
  void fail_work(const std::exception& e);  // the forward of `work` failed: finish(error)
  State& state() { return state_; }
  const Model& model() const { return *model_; }
  // Deltas produced and not yet handed out (by next() or step()), in order.
  std::vector<format::MessageDelta> take_deltas() { return deltas_.take_all(); }

  // Thread-safe, from any thread: the turn stops (cancelled) before the next token or chunk.
  void cancel() noexcept { cancel_.store(true, std::memory_order_relaxed); }
  bool cancel_requested() const noexcept { return cancel_.load(std::memory_order_relaxed); }

  bool finished() const { return finished_; }
  // Valid once finished().
  format::FinishReason finish_reason() const { return finish_reason_; }
  // The accumulated message so far (final once finished()): content, reasoning, tool calls.
  const format::Message& message() const;
  const std::string& error_message() const { return error_; }
  // Warnings of grammar building and of the output parser (malformed structures kept as text).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The rendered prompt (chat) or the raw prompt text, and its tokens.
  const std::string& prompt() const { return prompt_text_; }
  const std::vector<uint32_t>& prompt_tokens() const { return prompt_tokens_; }
  size_t prompt_tokens_processed() const { return prefilled_; }
  // Token ids sampled this turn, in order (a final token 0 included).
  const std::vector<uint32_t>& tokens() const { return generated_; }
  // Logits of the last token the State consumed ([vocab]); empty before the prefill. Save them
  // with the State to continue later through GenerateOptions::initial_logits (once finished:
  // mid-turn a forward may be pending, see "Emission order").
  const std::vector<float>& logits() const { return logits_; }
  // Whether a grammar constrains this turn, and its KBNF text ("" when unconstrained or when
  // GenerateOptions::compiled_grammar was given).
  bool has_grammar() const { return matcher_.has_value(); }
  const std::string& grammar_kbnf() const { return grammar_kbnf_; }
  // The tool-call id seed given to the output parser (derived from the State's sampler seed and
  // RNG position at the start of the turn; never consumes random numbers).
  uint64_t tool_call_id_seed() const { return id_seed_; }

 private:
  void init_common(const GenerateOptions& options);
  void check_prompt();
  void init_grammar(const GrammarContext& ctx);
  SamplerState& sampler_state();         // the one stored in the State
  Work prepare_prefill(size_t cap);      // the next prompt chunk
  void complete_prefill(const Work& w);  // prefilled_ += n: the prefill-progress point
  Work prepare_token();                  // sample, emit; a Work with the token unless it ended
  void emit_token(uint32_t t);           // decode, stops, parser, finish checks -> finish_after_
  void complete_token();                 // applies finish_after_ once the token is in the State
  bool run_alone(const Work& w);         // w's forward on state_ alone + complete
  void flush_pending();                  // the forward of an emitted token, if one is pending
  size_t work_once();  // a prefill chunk or a token; failures become finish(error)
  void emit_text(const std::string& text);
  void push_delta(format::MessageDelta d);
  void finish(format::FinishReason reason, std::string error = {});
  void fail(const std::exception& e);

  std::shared_ptr<const Model> model_;
  State& state_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  GenerateOptions options_;
  size_t vocab_ = 0;

  std::string prompt_text_;
  std::vector<uint32_t> prompt_tokens_;
  size_t prefilled_ = 0;
  std::vector<uint32_t> generated_;
  std::vector<float> logits_;         // [vocab] for the next sample
  std::vector<uint64_t> mask_;        // grammar mask words
  std::vector<uint64_t> base_mask_;   // ids with text, when the tokenizer is smaller than vocab
  Sampler sampler_;                   // scratch only
  StreamDecoder decoder_;             // whole code points
  std::optional<StopScanner> stops_;  // raw mode
  std::unique_ptr<format::OutputParser> parser_;  // chat mode
  std::optional<grammar::Matcher> matcher_;
  PrefixReuse reuse_;  // the prefix cache's part of the prefill
  std::string grammar_kbnf_;
  uint64_t id_seed_ = 0;

  std::optional<Work> pending_;  // an emitted token whose forward has not run (Emission order)
  std::optional<format::FinishReason> finish_after_;  // decided by emit_token, applied after
  std::string finish_error_;                          // its message (error)

  format::DeltaQueue deltas_;  // queued: produced, not yet handed out by next()/step()
  std::optional<format::Message> final_message_;  // chat mode: the parser's final message
  std::vector<std::string> warnings_;
  std::string error_;
  bool finished_ = false;
  format::FinishReason finish_reason_ = format::FinishReason::stop;
  std::atomic<bool> cancel_{false};
};

}  // namespace ai00::internal