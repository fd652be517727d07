// Generator handle of the C ABI: one turn on one State, driven by push (callback), pull (next)
// or step (token budget) (docs/chat-formats.md "Deltas and finish reasons",
// "Output parsers", docs/abi.md "Callbacks and pull"). Each C++ MessageDelta is
// flattened into tagged ai00_delta records whose strings live in the handle until the next call on
// it.
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "abi_delta.h"
#include "abi_generator.h"
#include "abi_grammar.h"
#include "abi_prefix_cache.h"
#include "abi_state.h"
#include "abi_template.h"
#include "core/pipeline/generator.h"
#include "core/pipeline/grammar_spec.h"
#include "format/json.h"
#include "format/message.h"

namespace {

using ai00::internal::abi::fill;
using ai00::internal::abi::fill_caller;
using ai00::internal::abi::finish_code;
using ai00::internal::abi::Flat;
using ai00::internal::abi::flatten;
using ai00::internal::abi::kDeltaV1Size;
using ai00::internal::abi::require;
using ai00::internal::format::FinishReason;

}  // namespace

namespace {

ai00::internal::abi::ErrorSlot* slot_of(const ai00_generator* g) { return g ? &g->error : nullptr; }

// The published sizes of ai00_generate_params: 0.1 ends before prefix_cache (appended in 0.2),
// 0.2 before stream_tool_calls (the tool fields, appended in 0.3).
constexpr size_t kGenerateParamsV1Size = offsetof(ai00_generate_params, prefix_cache);
constexpr size_t kGenerateParamsV2Size = offsetof(ai00_generate_params, stream_tool_calls);

// The fields appended in 0.3: tool-call previews and the tool choice.
void read_tool_fields(const ai00_generate_params& p, ai00::internal::GenerateOptions& o,
                      const char* fn) {
  namespace g = ai00::internal::grammar;
  o.stream_tool_calls = p.stream_tool_calls != 0;
  o.tool_choice.parallel_calls = p.parallel_tool_calls != 0;
  switch (p.tool_choice) {
    case AI00_TOOL_CHOICE_AUTO:
      o.tool_choice.mode = g::ToolChoiceMode::automatic;
      break;
    case AI00_TOOL_CHOICE_NONE:
      o.tool_choice.mode = g::ToolChoiceMode::none;
      break;
    case AI00_TOOL_CHOICE_REQUIRED:
      o.tool_choice.mode = g::ToolChoiceMode::required;
      break;
    case AI00_TOOL_CHOICE_NAMED:
      o.tool_choice.mode = g::ToolChoiceMode::named;
      require(p.tool_choice_name, fn, "ai00_generate_params.tool_choice_name");
      o.tool_choice.name = std::string(ai00::internal::abi::text_arg(
          p.tool_choice_name, p.tool_choice_name_len, fn, "ai00_generate_params.tool_choice_name"));
      break;
    default:
      throw ai00::internal::InvalidArgument(
          std::string(fn) + ": ai00_generate_params.tool_choice = " +
          std::to_string(p.tool_choice) + " is not an ai00_tool_choice");
  }
}

ai00::internal::GenerateOptions options(const ai00_model& model, const ai00_sampler_params* sampler,
                                        const ai00_generate_params* p, const char* fn) {
  ai00::internal::GenerateOptions o;
  o.sampler = ai00::internal::abi::sampler_params(sampler, fn);
  o.grammar_cache = ai00::internal::abi::grammar_cache(model);
  if (p == nullptr) return o;
  ai00::internal::abi::check_struct_size(p->struct_size, kGenerateParamsV1Size,
                                         sizeof(ai00_generate_params), fn, "ai00_generate_params");
  if (p->struct_size >= kGenerateParamsV2Size && p->prefix_cache != nullptr)
    o.prefix_cache = p->prefix_cache->cache;
  if (p->struct_size >= offsetof(ai00_generate_params, parallel_tool_calls) + sizeof(int32_t))
    read_tool_fields(*p, o, fn);
  o.max_tokens = p->max_tokens;
  o.prefill_chunk = p->prefill_chunk;
  if (p->set_seed != 0) o.seed = p->seed;
  if (p->n_stop_sequences > 0)
    require(p->stop_sequences, fn, "ai00_generate_params.stop_sequences");
  for (size_t i = 0; i < p->n_stop_sequences; ++i) {
    require(p->stop_sequences[i], fn, "ai00_generate_params.stop_sequences[i]");
    o.stop_sequences.emplace_back(p->stop_sequences[i]);
  }
  if (p->grammar != nullptr) {
    if (p->grammar->standalone) {
      throw ai00::internal::Error(ai00::internal::ErrorKind::mismatch,
                                  std::string(fn) +
                                      ": ai00_generate_params.grammar was not "
                                      "compiled for a model (use ai00_grammar_compile)");
    }
    o.compiled_grammar = p->grammar->compiled;   // used as is: no recompilation per turn,
    o.compiled_grammar_kbnf = p->grammar->kbnf;  // unless a chat turn thinks: then wrapped
    return o;
  }
  switch (p->grammar_mode) {
    case AI00_GRAMMAR_AUTOMATIC:
      o.grammar.mode = ai00::internal::GrammarMode::automatic;
      break;
    case AI00_GRAMMAR_NONE:
      o.grammar.mode = ai00::internal::GrammarMode::none;
      break;
    case AI00_GRAMMAR_STRUCTURAL:
      o.grammar.mode = ai00::internal::GrammarMode::structural;
      break;
    case AI00_GRAMMAR_SCHEMA_AWARE:
      o.grammar.mode = ai00::internal::GrammarMode::schema_aware;
      break;
    default:
      throw ai00::internal::InvalidArgument(
          std::string(fn) + ": ai00_generate_params.grammar_mode = " +
          std::to_string(p->grammar_mode) + " is not an ai00_grammar_mode");
  }
  return o;
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_generate_params_default(ai00_generate_params* out_params) {
  try {
    require(out_params, "ai00_generate_params_default", "out_params");
    ai00::internal::GenerateOptions d;
    ai00_generate_params p{};
    p.max_tokens = static_cast<uint32_t>(d.max_tokens);
    p.prefill_chunk = static_cast<uint32_t>(d.prefill_chunk);
    p.grammar_mode = AI00_GRAMMAR_AUTOMATIC;
    p.tool_choice = AI00_TOOL_CHOICE_AUTO;
    p.tool_choice_name_len = AI00_NUL_TERMINATED;
    p.parallel_tool_calls = 1;
    // A caller of an older header (0.1: up to stop_sequences; 0.2: up to prefix_cache) gets
    // only its own bytes (docs/abi.md "Versioned structs").
    ai00::internal::abi::write_default(out_params, p,
                                       {kGenerateParamsV1Size, kGenerateParamsV2Size});
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_generator_new_chat(ai00_generator** out_generator,
                                             const ai00_model* model, ai00_state* state,
                                             const ai00_chat_template* tmpl,
                                             const char* conversation_json, size_t conversation_len,
                                             const ai00_render_options* render,
                                             const ai00_sampler_params* sampler,
                                             const ai00_generate_params* params) {
  try {
    const char* fn = "ai00_generator_new_chat";
    require(out_generator, fn, "out_generator");
    require(model, fn, "model");
    require(state, fn, "state");
    require(tmpl, fn, "tmpl");
    require(conversation_json, fn, "conversation_json");
    ai00::internal::ChatRequest req;
    req.format = tmpl->format;
    std::string_view json =
        ai00::internal::abi::text_arg(conversation_json, conversation_len, fn, "conversation_json");
    req.conversation = ai00::internal::abi::unwrap(ai00::internal::format::parse_conversation(json),
                                                   "conversation");
    req.render = ai00::internal::abi::render_options(render, fn);
    auto g = std::make_unique<ai00_generator>();
    g->gen = std::make_unique<ai00::internal::Generator>(model->model, state->core, req,
                                                         options(*model, sampler, params, fn));
    *out_generator = g.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(state ? &state->error : nullptr);
  }
}

AI00_API ai00_status ai00_generator_new_raw(ai00_generator** out_generator, const ai00_model* model,
                                            ai00_state* state, const char* prompt,
                                            size_t prompt_len, const ai00_sampler_params* sampler,
                                            const ai00_generate_params* params) {
  try {
    const char* fn = "ai00_generator_new_raw";
    require(out_generator, fn, "out_generator");
    require(model, fn, "model");
    require(state, fn, "state");
    require(prompt, fn, "prompt");
    ai00::internal::RawRequest req;
    req.prompt = std::string(ai00::internal::abi::text_arg(prompt, prompt_len, fn, "prompt"));
    if (req.prompt.empty())
      throw ai00::internal::InvalidArgument(std::string(fn) + ": the prompt is empty");
    auto g = std::make_unique<ai00_generator>();
    g->gen = std::make_unique<ai00::internal::Generator>(model->model, state->core, req,
                                                         options(*model, sampler, params, fn));
    *out_generator = g.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(state ? &state->error : nullptr);
  }
}

AI00_API ai00_status ai00_generator_free(ai00_generator* gen) {
  try {
    if (gen != nullptr && gen->batch != nullptr) ai00::internal::abi::leave_batch(*gen);
    delete gen;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_generator_last_error(const ai00_generator* gen) {
  try {
    return gen ? gen->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_generator_run(int32_t* out_finish_reason, ai00_generator* gen,
                                        ai00_delta_callback callback, void* user_data) {
  try {
    require(gen, "ai00_generator_run", "gen");
    ai00::internal::abi::require_unbatched(*gen, "ai00_generator_run");
    bool stopped = gen->deliver(callback, user_data);
    if (!stopped) {
      gen->gen->run([&](const ai00::internal::format::MessageDelta& d) -> int {
        flatten(d, gen->pending);
        return gen->deliver(callback, user_data) ? 1 : 0;
      });
    }
    // After a stop request the generator may still emit its FINISH delta: drain it.
    while (auto d = gen->gen->next()) flatten(*d, gen->pending);
    gen->deliver(callback, user_data);
    if (gen->gen->finish_reason() == FinishReason::error) gen->error.set(gen->gen->error_message());
    if (out_finish_reason != nullptr) *out_finish_reason = finish_code(gen->gen->finish_reason());
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

AI00_API ai00_status ai00_generator_next(ai00_delta* out_delta, ai00_generator* gen) {
  try {
    require(out_delta, "ai00_generator_next", "out_delta");
    require(gen, "ai00_generator_next", "gen");
    ai00::internal::abi::require_unbatched(*gen, "ai00_generator_next");
    // Checked before a delta is taken, so a bad size loses nothing.
    ai00::internal::abi::check_struct_size(out_delta->struct_size, kDeltaV1Size, sizeof(ai00_delta),
                                           "ai00_generator_next", "ai00_delta");
    while (gen->pending.empty() && !gen->finish_seen) {
      auto d = gen->gen->next();
      if (!d) break;
      flatten(*d, gen->pending);
    }
    if (!gen->pending.empty()) {
      gen->current = std::move(gen->pending.front());
      gen->pending.pop_front();
    } else {  // finished and FINISH already handed out (or never flattened): repeat it
      gen->current =
          Flat{AI00_DELTA_FINISH, 0, finish_code(gen->gen->finish_reason()), {}, {}, {}, true};
    }
    if (gen->current.kind == AI00_DELTA_FINISH) {
      gen->finish_seen = true;
      if (gen->gen->finish_reason() == FinishReason::error)
        gen->error.set(gen->gen->error_message());
    }
    fill_caller(gen->current, out_delta, "ai00_generator_next");
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

AI00_API ai00_status ai00_generator_step(int32_t* out_finished, ai00_generator* gen,
                                         uint32_t max_tokens, ai00_delta_callback callback,
                                         void* user_data) {
  try {
    require(gen, "ai00_generator_step", "gen");
    ai00::internal::abi::require_unbatched(*gen, "ai00_generator_step");
    if (!gen->gen->finished()) {
      ai00::internal::StepResult r = gen->gen->step(max_tokens);
      for (const auto& d : r.deltas) flatten(d, gen->pending);
    }
    if (callback != nullptr) gen->deliver(callback, user_data);
    if (gen->gen->finished() && gen->gen->finish_reason() == FinishReason::error)
      gen->error.set(gen->gen->error_message());
    if (out_finished != nullptr) *out_finished = gen->gen->finished() ? 1 : 0;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

AI00_API ai00_status ai00_generator_pending(size_t* out_count, const ai00_generator* gen) {
  try {
    require(out_count, "ai00_generator_pending", "out_count");
    require(gen, "ai00_generator_pending", "gen");
    *out_count = gen->pending.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

AI00_API ai00_status ai00_generator_cancel(ai00_generator* gen) {
  // Only the calling thread's slot is touched on error: this may run on another thread while
  // `gen` is busy, and cancel() itself is one atomic store.
  try {
    require(gen, "ai00_generator_cancel", "gen");
    gen->gen->cancel();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_generator_finish_reason(int32_t* out_finish_reason,
                                                  const ai00_generator* gen) {
  try {
    require(out_finish_reason, "ai00_generator_finish_reason", "out_finish_reason");
    require(gen, "ai00_generator_finish_reason", "gen");
    *out_finish_reason =
        gen->gen->finished() ? finish_code(gen->gen->finish_reason()) : AI00_FINISH_NONE;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

AI00_API ai00_status ai00_generator_message_json(const char** out_json, size_t* out_len,
                                                 ai00_generator* gen) {
  try {
    require(out_json, "ai00_generator_message_json", "out_json");
    require(out_len, "ai00_generator_message_json", "out_len");
    require(gen, "ai00_generator_message_json", "gen");
    gen->message_json =
        ai00::internal::json::write(ai00::internal::format::to_json(gen->gen->message()));
    *out_json = gen->message_json.c_str();
    *out_len = gen->message_json.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

AI00_API ai00_status ai00_generator_tokens(const uint32_t** out_tokens, size_t* out_count,
                                           const ai00_generator* gen) {
  try {
    require(out_tokens, "ai00_generator_tokens", "out_tokens");
    require(out_count, "ai00_generator_tokens", "out_count");
    require(gen, "ai00_generator_tokens", "gen");
    *out_tokens = gen->gen->tokens().data();
    *out_count = gen->gen->tokens().size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

AI00_API ai00_status ai00_generator_warning_count(size_t* out_count, const ai00_generator* gen) {
  try {
    require(out_count, "ai00_generator_warning_count", "out_count");
    require(gen, "ai00_generator_warning_count", "gen");
    *out_count = gen->gen->warnings().size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

AI00_API ai00_status ai00_generator_warning(const char** out_text, size_t* out_len,
                                            const ai00_generator* gen, size_t index) {
  try {
    const char* fn = "ai00_generator_warning";
    require(out_text, fn, "out_text");
    require(out_len, fn, "out_len");
    require(gen, fn, "gen");
    const auto& w = gen->gen->warnings();
    if (index >= w.size()) {
      throw ai00::internal::InvalidArgument(std::string(fn) + ": index " + std::to_string(index) +
                                            " is past the " + std::to_string(w.size()) +
                                            " warnings");
    }
    *out_text = w[index].c_str();
    *out_len = w[index].size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(gen));
  }
}

}  // extern "C"
