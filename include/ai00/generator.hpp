// ai00 C++ API — Generator: one generation turn on one State (header-only RAII over ai00.h).
//
// Drive a turn by push (run with a callback), pull (next) or step (a token budget per call, for
// frame loops); the three give the same tokens and deltas. message() accumulates every delta
// this object handed out.
// Ownership: unique (movable). The Generator BORROWS the State: keep the State alive and do not
// use it elsewhere until the Generator is destroyed; afterwards the State holds the prompt and
// the reply, ready to save or to continue. It keeps its own references to the Model, format and
// grammar. Threading: one thread at a time, except cancel(), which any thread may call.
// Errors: constructors throw ai00::Error (AI00_ERR_FORMAT for a bad conversation, ...). A
// failure during the turn ends it with FinishReason::error; error_message() says why. An
// exception thrown by a callback is caught before it reaches the library, ends the turn
// (cancelled) and is rethrown from run()/step().
//
// Usage (one chat turn, streamed):
//
//   ai00::Model model = ai00::Model::load("model.gguf");
//   ai00::ChatTemplate tmpl("ai00-v1");
//   ai00::State state(model);
//   std::vector<ai00::Message> chat = {ai00::Message::text("user", "Hello!")};
//   ai00::GenerateOptions options;
//   options.max_tokens = 200;
//   ai00::Generator gen = ai00::Generator::chat(model, state, tmpl, chat, {}, options);
//   gen.run([](const ai00::Delta& d) {
//     if (d.kind == ai00::DeltaKind::text) std::cout << d.text << std::flush;
//     return true;  // false stops the turn
//   });
//   chat.push_back(gen.message());  // content, reasoning and tool calls of the reply
//
// Frame loop instead of run(): call step(n) once per frame with a small n (deltas go to the
// callback or queue up for next()), and cancel() from any thread to abandon the turn.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/chat_template.hpp"
#include "ai00/error.hpp"
#include "ai00/grammar.hpp"
#include "ai00/model.hpp"
#include "ai00/prefix_cache.hpp"
#include "ai00/state.hpp"

namespace ai00 {
inline namespace api {

class Batch;

struct GenerateOptions {
  SamplerParams sampler;
  uint32_t max_tokens = 256;
  uint32_t prefill_chunk = 64;
  std::optional<uint64_t> seed;  // set the State's seed first; unset: its RNG continues
  std::vector<std::string> stop_sequences;
  ai00_grammar_mode grammar_mode = AI00_GRAMMAR_AUTOMATIC;
  std::optional<Grammar> grammar;  // a custom grammar (overrides grammar_mode)
  // A prefix-state cache shared by generators (prefix_cache.hpp); it must outlive them.
  std::optional<PrefixCache> prefix_cache;
  // Tool-call previews: tool_call_start and tool_call_arguments deltas before each whole call.
  bool stream_tool_calls = false;
  // Which calls the tool grammar allows (ai00_tool_choice); `tool_choice_name` names the tool
  // for AI00_TOOL_CHOICE_NAMED (an unknown name is an Error naming it).
  ai00_tool_choice tool_choice = AI00_TOOL_CHOICE_AUTO;
  std::string tool_choice_name;
  bool parallel_tool_calls = true;  // false: at most one call
};

class Generator {
 public:
  // Return true to continue, false to stop the turn (finish reason cancelled).
  using Callback = std::function<bool(const Delta&)>;

  // A chat turn: the template renders `conversation` and parses the reply.
  static Generator chat(const Model& model, State& state, const ChatTemplate& tmpl,
                        const std::vector<Message>& conversation, const RenderOptions& render = {},
                        const GenerateOptions& options = {}) {
    return chat_json(model, state, tmpl, to_json(conversation), render, options);
  }
  static Generator chat_json(const Model& model, State& state, const ChatTemplate& tmpl,
                             std::string_view conversation_json, const RenderOptions& render = {},
                             const GenerateOptions& options = {}) {
    Params p(options);
    ai00_render_options ro = render.to_c();
    ai00_generator* g = nullptr;
    detail::check(ai00_generator_new_chat(&g, model.get(), state.get(), tmpl.get(),
                                          conversation_json.data(), conversation_json.size(), &ro,
                                          &options.sampler, &p.c));
    return Generator(g);
  }
  // A raw-text turn on `prompt`; the reply is text only.
  static Generator raw(const Model& model, State& state, std::string_view prompt,
                       const GenerateOptions& options = {}) {
    Params p(options);
    ai00_generator* g = nullptr;
    detail::check(ai00_generator_new_raw(&g, model.get(), state.get(), prompt.data(), prompt.size(),
                                         &options.sampler, &p.c));
    return Generator(g);
  }

  // Push: runs to the end, calling `callback` per delta (may be empty). Returns the reason.
  FinishReason run(const Callback& callback = {}) {
    Sink sink{this, &callback, nullptr};
    int32_t reason = AI00_FINISH_NONE;
    ai00_status s = ai00_generator_run(&reason, get(), &Sink::call, &sink);
    if (sink.error) std::rethrow_exception(sink.error);
    detail::check(s);
    return static_cast<FinishReason>(reason);
  }

  // Pull: the next delta; std::nullopt once the finish delta has been returned.
  std::optional<Delta> next() {
    if (done_) return std::nullopt;
    ai00_delta d{};
    d.struct_size = sizeof d;
    detail::check(ai00_generator_next(&d, get()));
    Delta out = Delta::from_c(d);
    take(out);
    return out;
  }

  // Step: at most `max_tokens` new tokens (or prefill chunks), for a frame loop; returns the
  // deltas this bounded piece of work produced (the last one is the finish delta once the turn
  // has ended; see finished()).
  std::vector<Delta> step(uint32_t max_tokens) {
    std::vector<Delta> out;
    step(max_tokens, [&](const Delta& d) {
      out.push_back(d);
      return true;
    });
    return out;
  }
  // Same, handing each delta to `callback` (false stops the turn). Returns true once the turn
  // has ended.
  bool step(uint32_t max_tokens, const Callback& callback) {
    Sink sink{this, &callback, nullptr};
    int32_t finished = 0;
    ai00_status s = ai00_generator_step(&finished, get(), max_tokens, &Sink::call, &sink);
    if (sink.error) std::rethrow_exception(sink.error);
    detail::check(s);
    return finished != 0;
  }
  // True once the finish delta has been handed out by run(), next() or step().
  bool finished() const noexcept { return done_; }

  // Any thread: stop before the next token or prefill chunk.
  void cancel() noexcept { ai00_generator_cancel(get()); }

  FinishReason finish_reason() const {
    int32_t r = AI00_FINISH_NONE;
    detail::check(ai00_generator_finish_reason(&r, get()));
    return static_cast<FinishReason>(r);
  }
  // The reply accumulated from the deltas handed out so far.
  const Message& message() const noexcept { return message_; }
  // The reply as the library accumulated it, in seed 004 JSON.
  std::string message_json() const {
    const char* json = nullptr;
    size_t len = 0;
    detail::check(ai00_generator_message_json(&json, &len, get()));
    return std::string(json, len);
  }
  std::vector<uint32_t> tokens() const {
    const uint32_t* t = nullptr;
    size_t n = 0;
    detail::check(ai00_generator_tokens(&t, &n, get()));
    return std::vector<uint32_t>(t, t + n);
  }
  std::string error_message() const { return ai00_generator_last_error(get()); }
  // Warnings of this turn (lenient schema conversion, malformed structures kept as text).
  std::vector<std::string> warnings() const {
    size_t n = 0;
    detail::check(ai00_generator_warning_count(&n, get()));
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
      const char* text = nullptr;
      size_t len = 0;
      detail::check(ai00_generator_warning(&text, &len, get(), i));
      out.emplace_back(text, len);
    }
    return out;
  }

  ai00_generator* get() const noexcept { return handle_.get(); }

 private:
  friend class Batch;  // hands the deltas of batch events to take()
  explicit Generator(ai00_generator* owned) : handle_(owned) { message_.role = "assistant"; }

  // The C params; borrows the option strings (alive for the constructor call).
  struct Params {
    explicit Params(const GenerateOptions& o) {
      c.struct_size = sizeof c;  // this header's size (docs/abi.md "Versioned structs")
      detail::check(ai00_generate_params_default(&c));
      c.max_tokens = o.max_tokens;
      c.prefill_chunk = o.prefill_chunk;
      c.set_seed = o.seed ? 1 : 0;
      c.seed = o.seed.value_or(0);
      c.grammar_mode = o.grammar_mode;
      c.grammar = o.grammar ? o.grammar->get() : nullptr;
      c.prefix_cache = o.prefix_cache ? o.prefix_cache->get() : nullptr;
      c.stream_tool_calls = o.stream_tool_calls ? 1 : 0;
      c.tool_choice = o.tool_choice;
      c.tool_choice_name = o.tool_choice_name.data();
      c.tool_choice_name_len = o.tool_choice_name.size();
      c.parallel_tool_calls = o.parallel_tool_calls ? 1 : 0;
      for (const auto& s : o.stop_sequences) stops.push_back(s.c_str());
      c.stop_sequences = stops.empty() ? nullptr : stops.data();
      c.n_stop_sequences = stops.size();
    }
    ai00_generate_params c;
    std::vector<const char*> stops;
  };

  // Trampoline from the C callback to the C++ one; exceptions stop at this frame.
  struct Sink {
    Generator* self;
    const Callback* callback;
    std::exception_ptr error;
    static int32_t call(const ai00_delta* d, void* user_data) noexcept {
      Sink* s = static_cast<Sink*>(user_data);
      try {
        Delta delta = Delta::from_c(*d);
        s->self->take(delta);
        if (*s->callback && !(*s->callback)(delta)) return 1;
        return 0;
      } catch (...) {
        s->error = std::current_exception();
        return 1;
      }
    }
  };

  void take(const Delta& d) {
    accumulate(message_, d);
    if (d.kind == DeltaKind::finish) done_ = true;
  }

  struct Free {
    void operator()(ai00_generator* g) const noexcept { ai00_generator_free(g); }
  };
  std::unique_ptr<ai00_generator, Free> handle_;
  Message message_;
  bool done_ = false;
};

}  // namespace api
}  // namespace ai00
