// The generation loop of one turn (generator.h).
#include "core/pipeline/generator.h"

#include <algorithm>
#include <exception>
#include <new>
#include <utility>

#include "base/error.h"
#include "base/limits.h"
#include "base/rng.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"

namespace ai00::internal {

namespace {

std::shared_ptr<const Tokenizer> require_tokenizer(const std::shared_ptr<const Model>& model) {
  if (!model) throw InvalidArgument("Generator: model is null");
  auto tok = model->tokenizer_shared();
  if (!tok) throw InvalidArgument("Generator: the model has no tokenizer (pass a vocabulary)");
  return tok;
}

// Seed of the tool call ids: the State's sampler seed and its RNG position at the start of the
// turn, read without drawing (docs/chat-formats.md "Deltas and finish reasons": ids never change
// which tokens are drawn, and two turns of one State get different ids).
uint64_t derive_id_seed(const SamplerState& s) {
  uint64_t h = splitmix64(s.seed());
  for (uint64_t w : s.rng().words()) h = splitmix64(h ^ w);
  return h;
}

}  // namespace

Generator::Generator(std::shared_ptr<const Model> model, State& state, const ChatRequest& request,
                     const GenerateOptions& options)
    : model_(std::move(model)),
      state_(state),
      tokenizer_(require_tokenizer(model_)),
      decoder_(tokenizer_) {
  if (!request.format) throw InvalidArgument("Generator: chat request has no format");
  init_common(options);
  auto rendered = request.format->render(request.conversation, request.render);
  if (!rendered.ok()) throw_error(rendered.error());
  const format::RenderResult& r = rendered.value();
  prompt_text_ = r.prompt;
  // Goose option: the State starts from token 0 (end of text) as a separator.
  if (r.prepend_token0) prompt_tokens_.push_back(0);
  tokenizer_->encode_append(prompt_text_, prompt_tokens_);
  check_prompt();
  if (options.prefix_cache)
    reuse_.configure(
        options.prefix_cache,
        chat_store_points(*request.format, request.conversation, request.render, prompt_text_,
                          r.prepend_token0, *tokenizer_, prompt_tokens_));

  if (options.penalize_history) {
    for (const format::Message& msg : request.conversation) {
      if (msg.role != format::Role::assistant) continue;
      std::vector<uint32_t> ids = tokenizer_->encode(msg.text());
      sampler_state().accept(ids.data(), ids.size(), options_.sampler);
    }
  }

  format::ParseOptions po;
  po.thinking_open = r.constraints.thinking_open_in_prompt;
  po.tools = request.render.tools;
  po.id_seed = id_seed_;
  po.assistant_name = request.render.assistant_name;
  po.extra_stops = options.stop_sequences;
  po.stream_tool_calls = options.stream_tool_calls;
  parser_ = request.format->make_parser(po);

  GrammarContext ctx;
  ctx.chat = true;
  ctx.thinking = request.render.thinking != format::Thinking::off;
  ctx.hints = r.constraints;
  ctx.tool_choice = options.tool_choice;
  init_grammar(ctx);
}

Generator::Generator(std::shared_ptr<const Model> model, State& state, const RawRequest& request,
                     const GenerateOptions& options)
    : model_(std::move(model)),
      state_(state),
      tokenizer_(require_tokenizer(model_)),
      decoder_(tokenizer_) {
  init_common(options);
  prompt_text_ = request.prompt;
  if (!request.prompt_tokens.empty()) {
    prompt_tokens_ = request.prompt_tokens;
    for (size_t i = 0; i < prompt_tokens_.size(); ++i)
      if (prompt_tokens_[i] >= vocab_)
        throw InvalidArgument("Generator: prompt token " + std::to_string(prompt_tokens_[i]) +
                              " at position " + std::to_string(i) + " is outside the vocabulary (" +
                              std::to_string(vocab_) + ")");
  } else {
    tokenizer_->encode_append(prompt_text_, prompt_tokens_);
  }
  check_prompt();
  reuse_.configure(options.prefix_cache, {});
  stops_.emplace(options.stop_sequences);
  GrammarContext ctx;
  ctx.chat = false;
  ctx.tool_choice = options.tool_choice;  // anything but the default is refused
  init_grammar(ctx);
}

// A turn abandoned after a token's text went out still leaves that token in the State.
Generator::~Generator() {
  try {
    flush_pending();
  } catch (...) {  // std::bad_alloc: the State then lacks the last emitted token
  }
}

void Generator::init_common(const GenerateOptions& options) {
  state_.check_model(*model_);
  validate(options.sampler);
  if (options.max_tokens == 0) throw InvalidArgument("Generator: max_tokens must be >= 1");
  if (uint64_t max = limits().max_tokens; options.max_tokens > max)
    throw_limit(ErrorKind::invalid_argument, "Generator",
                "max_tokens " + std::to_string(options.max_tokens), "max_tokens", max);
  if (options.prefill_chunk == 0) throw InvalidArgument("Generator: prefill_chunk must be >= 1");
  options_ = options;
  vocab_ = static_cast<size_t>(model_->config().vocab);
  if (options_.seed) sampler_state().set_seed(*options_.seed);
  id_seed_ = derive_id_seed(sampler_state());
  // Ids past the tokenizer's vocabulary have no text: never draw them (the grammar's masks
  // already exclude them, this covers unconstrained turns).
  size_t tok_vocab = tokenizer_->vocab_size();
  if (tok_vocab < vocab_) {
    base_mask_.assign((vocab_ + 63) / 64, 0);
    for (size_t i = 0; i < tok_vocab; ++i) base_mask_[i / 64] |= uint64_t{1} << (i % 64);
  }
}

void Generator::check_prompt() {
  if (uint64_t max = limits().max_tokens; prompt_tokens_.size() > max)  // before any prefill
    throw_limit(ErrorKind::invalid_argument, "Generator",
                "a prompt of " + std::to_string(prompt_tokens_.size()) + " tokens", "max_tokens",
                max);
  if (!prompt_tokens_.empty()) return;
  if (options_.initial_logits.size() != vocab_)
    throw InvalidArgument("Generator: the prompt is empty and initial_logits has " +
                          std::to_string(options_.initial_logits.size()) + " values, not the " +
                          std::to_string(vocab_) + " of the model's vocabulary");
  logits_ = std::move(options_.initial_logits);
  options_.initial_logits.clear();
}

void Generator::init_grammar(const GrammarContext& ctx) {
  const grammar::ToolChoice& choice = ctx.tool_choice;
  if (options_.compiled_grammar &&
      (choice.mode != grammar::ToolChoiceMode::automatic || !choice.parallel_calls))
    throw InvalidArgument(std::string("Generator: tool_choice `") +
                          grammar::tool_choice_name(choice.mode) +
                          "` (or parallel_tool_calls = false) needs the tool grammar, but a "
                          "compiled grammar is given");
  if (options_.compiled_grammar && ctx.chat && !options_.compiled_grammar_kbnf.empty()) {
    GrammarRequest source{GrammarMode::kbnf, options_.compiled_grammar_kbnf};
    auto wrapped = grammar_kbnf_for(source, ctx);
    if (!wrapped.ok()) throw_error(wrapped.error());
    if (wrapped.value().kbnf != options_.compiled_grammar_kbnf) {
      // Thinking is on: compile the wrapped source below instead of the grammar as given.
      options_.grammar = std::move(source);
      options_.compiled_grammar.reset();
    }
    options_.compiled_grammar_kbnf.clear();
  }
  if (options_.compiled_grammar) {
    const grammar::VocabIndex* v = options_.compiled_grammar->vocab();
    if (!v || v->size() != tokenizer_->vocab_size() || v->mask_bits() < vocab_)
      throw MismatchError(
          "Generator: the compiled grammar was not built for this model's "
          "vocabulary (" +
          std::to_string(tokenizer_->vocab_size()) + " tokens)");
    matcher_.emplace(*options_.compiled_grammar);
    mask_.assign(v->mask_words(), 0);
    options_.compiled_grammar.reset();
    return;
  }
  auto text = grammar_kbnf_for(options_.grammar, ctx);
  if (!text.ok()) throw_error(text.error());
  warnings_ = text.value().warnings;
  grammar_kbnf_ = std::move(text.value().kbnf);
  if (grammar_kbnf_.empty()) return;
  std::shared_ptr<GrammarCache> cache = options_.grammar_cache;
  if (!cache) {
    cache = std::make_shared<GrammarCache>(*model_, 1);
  } else if (cache->model_fingerprint() != model_->fingerprint()) {
    throw MismatchError("Generator: the grammar cache belongs to another model");
  }
  matcher_.emplace(cache->compile(grammar_kbnf_));
  mask_.assign(cache->vocab()->mask_words(), 0);
  options_.grammar_cache.reset();  // the Matcher keeps its grammar; do not pin the cache
}

SamplerState& Generator::sampler_state() { return state_.sampler(); }

// The next prompt chunk (at most `cap` tokens when cap > 0); only the last chunk asks for
// logits (no head matmul before it), besides the prefix cache's store points. At the first
// chunk a cached prefix of the prompt replaces its prefill (prefix_reuse.h); a prompt that is
// cached whole samples at once.
Generator::Work Generator::prepare_prefill(size_t cap) {
  if (prefilled_ == 0) {
    prefilled_ = reuse_.begin(*model_, state_, prompt_tokens_, logits_);
    if (prefilled_ == prompt_tokens_.size()) return prepare_token();
  }
  Work w;
  w.prefill = true;
  w.n = reuse_.chunk(prefilled_,
                     std::min(options_.prefill_chunk, prompt_tokens_.size() - prefilled_));
  if (cap > 0) w.n = std::min(w.n, cap);
  w.tokens = prompt_tokens_.data() + prefilled_;
  if (prefilled_ + w.n == prompt_tokens_.size()) {
    logits_.resize(vocab_);
    w.logits = logits_.data();
  } else {
    w.logits = reuse_.logits_for(prefilled_ + w.n, vocab_);
  }
  return w;
}

// After a prompt chunk went through the State: the single place where prefill progress and its
// end are recorded (and the State stored when the chunk ends at a store point of the cache).
void Generator::complete_prefill(const Work& w) {
  prefilled_ += w.n;
  reuse_.after_chunk(*model_, state_, prompt_tokens_, prefilled_, w.logits);
}

// Samples the next token: grammar mask, sampler, grammar accept; token 0 ends the turn without
// a forward. Otherwise the token's text goes out at once and the finish it decides is noted
// (emit_token), and the token must be fed to the State (the Work says so) before the turn can
// finish or sample again, so the State holds every token of the turn (generator.h "Emission
// order") and logits_ are ready for the next sample (or for a saved continuation).
Generator::Work Generator::prepare_token() {
  Work w;
  SamplerInput in;
  in.logits = logits_.data();
  in.n_vocab = vocab_;
  if (matcher_) {
    matcher_->fill_mask(mask_.data());
    in.mask = mask_.data();
    in.mask_words = mask_.size();
  } else if (!base_mask_.empty()) {
    in.mask = base_mask_.data();
    in.mask_words = base_mask_.size();
  }
  const uint32_t t = sampler_.sample(options_.sampler, sampler_state(), in).token;
  generated_.push_back(t);
  w.sampled = 1;
  if (matcher_ && !matcher_->accept_token(t)) {
    finish(format::FinishReason::error,
           "grammar rejected token " + std::to_string(t) + " that its own mask allowed");
    return w;
  }
  // Token 0 (end of text) ends the turn; it has no text and is not fed to the State.
  if (t == 0) {
    finish(format::FinishReason::stop);
    return w;
  }
  w.tokens = &generated_.back();
  w.n = 1;
  w.logits = logits_.data();
  emit_token(t);
  return w;
}

// The text of a sampled token (decoder, stops or output parser) and the finish checks, before
// its forward: a finish they decide waits in finish_after_ for complete_token().
void Generator::emit_token(uint32_t t) {
  try {
    std::string text;
    decoder_.push(t, text);
    emit_text(text);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    finish_after_ = format::FinishReason::error;
    finish_error_ = e.what();
    return;
  }
  if (finish_after_) return;  // a stop string or the parser's end wins over the checks below
  if (matcher_ && !matcher_->can_continue()) {
    finish_after_ = format::FinishReason::grammar_done;
  } else if (generated_.size() >= options_.max_tokens) {
    finish_after_ = format::FinishReason::length;
  }
}

// After the sampled token went through the State: the turn may end now.
void Generator::complete_token() {
  if (!finish_after_) return;
  const format::FinishReason reason = *finish_after_;
  finish(reason, std::move(finish_error_));
}

Generator::Work Generator::prepare(size_t max_prefill) {
  if (finished_) return {};
  if (pending_) {  // a token next() emitted and did not feed yet: its forward comes first
    Work w = *pending_;
    pending_.reset();
    w.sampled = 0;
    return w;
  }
  try {
    if (cancel_requested()) {
      finish(format::FinishReason::cancelled);
      return {};
    }
    if (prefilled_ < prompt_tokens_.size()) return prepare_prefill(max_prefill);
    return prepare_token();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    if (!finished_) fail(e);
  }
  return {};
}

void Generator::complete(const Work& w) {
  if (w.n == 0 || finished_) return;
  try {
    if (w.prefill) {
      complete_prefill(w);
    } else {
      complete_token();
    }
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    if (!finished_) fail(e);
  }
}

void Generator::fail_work(const std::exception& e) {
  if (!finished_) fail(e);
}

void Generator::push_delta(format::MessageDelta d) { deltas_.push(std::move(d)); }

// Hands out a token's text; a stop it completes is noted for complete_token().
void Generator::emit_text(const std::string& text) {
  if (text.empty()) return;
  if (parser_) {
    for (auto& d : parser_->feed(text)) push_delta(std::move(d));
    if (parser_->done()) finish_after_ = format::FinishReason::stop;
    return;
  }
  std::string safe = stops_->feed(text);
  if (!safe.empty()) push_delta(format::MessageDelta::text(std::move(safe)));
  if (stops_->stopped()) finish_after_ = format::FinishReason::stop;
}

void Generator::finish(format::FinishReason reason, std::string error) {
  if (finished_) return;
  flush_pending();        // a token whose text is out enters the State before the turn ends
  if (finished_) return;  // its forward failed: finished with error
  finished_ = true;
  finish_after_.reset();
  error_ = std::move(error);
  // Release held bytes in stage order (docs/chat-formats.md "Output parsers"): UTF-8
  // tail, stop, marker.
  std::string tail;
  decoder_.flush(tail);
  if (parser_) {
    if (!tail.empty() && !parser_->done()) {
      for (auto& d : parser_->feed(tail)) push_delta(std::move(d));
    }
    for (auto& d : parser_->finish(reason)) push_delta(std::move(d));
    const format::ParseResult& res = parser_->result();
    finish_reason_ = res.finish_reason;
    warnings_.insert(warnings_.end(), res.warnings.begin(), res.warnings.end());
    final_message_ = res.message;
    return;
  }
  std::string rest = stops_->feed(tail);
  rest += stops_->flush();
  if (!rest.empty()) push_delta(format::MessageDelta::text(std::move(rest)));
  format::MessageDelta end;
  end.finish_reason = reason;
  push_delta(std::move(end));
  finish_reason_ = reason;
}

void Generator::fail(const std::exception& e) {
  // A failure inside a step ends the turn; the State keeps what was consumed so far.
  finish(format::FinishReason::error, e.what());
}

// `w`'s forward on this Generator's State alone, then complete; false if the forward failed.
bool Generator::run_alone(const Work& w) {
  if (w.n == 0) return true;
  try {
    forward(*model_, state_, w.tokens, w.n, w.logits);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    fail_work(e);
    return false;
  }
  complete(w);
  return true;
}

// The forward of the token whose text the last work_once() emitted, if any.
void Generator::flush_pending() {
  if (!pending_) return;
  const Work w = *pending_;
  pending_.reset();
  run_alone(w);
}

// One unit of work: the pending forward, prepare, then its forward on this Generator's State
// alone and complete — except for a sampled token whose text is out and that ends nothing: its
// forward is left pending, so next() hands the text out before the decode step (generator.h
// "Emission order"). Both orders give the same tokens, deltas and State.
size_t Generator::work_once() {
  flush_pending();
  const Work w = prepare(0);
  if (w.n > 0 && !w.prefill && !finish_after_ && !finished_) {
    pending_ = w;
    return w.sampled;
  }
  if (!run_alone(w)) return 0;
  return w.prefill ? w.n : w.sampled;
}

std::optional<format::MessageDelta> Generator::next() {
  while (deltas_.empty() && !finished_) work_once();
  if (deltas_.empty()) return std::nullopt;
  return deltas_.pop();
}

format::FinishReason Generator::run(const DeltaCallback& callback) {
  while (auto d = next()) {
    if (!callback) continue;
    int rc = 0;
    try {
      rc = callback(*d);
    } catch (const std::exception& e) {
      finish(format::FinishReason::error, std::string("callback threw: ") + e.what());
    } catch (...) {
      finish(format::FinishReason::error, "callback threw");
    }
    // No further token is generated; deltas already produced and the finish delta still go out.
    if (rc != 0) finish(format::FinishReason::cancelled);
  }
  return finish_reason_;
}

StepResult Generator::step(size_t max_tokens) {
  StepResult r;
  const size_t budget = std::max<size_t>(1, max_tokens);
  size_t used = 0;
  while (!finished_ && used < budget) {
    const bool prefill = prefilled_ < prompt_tokens_.size();
    size_t n = work_once();
    if (prefill) {
      r.prompt_tokens_processed += n;
    } else {
      r.tokens_generated += n;
    }
    used += std::max<size_t>(n, 1);
  }
  // A frame loop may save or clone the State between steps: none returns with a pending forward
  // (the deltas are handed out at the end of the call anyway).
  flush_pending();
  r.deltas = deltas_.take_all();
  r.finished = finished_;
  return r;
}

const format::Message& Generator::message() const {
  return final_message_ ? *final_message_ : deltas_.message();
}

}  // namespace ai00::internal