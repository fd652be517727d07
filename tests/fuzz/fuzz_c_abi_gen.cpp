// The generation families of fuzz_c_abi (fuzz_c_abi.h): generators (raw and chat; pushed,
// pulled and stepped), batches of them and the prefix-state cache.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_c_abi.h"

namespace ai00_fuzz::cabi {
namespace {

// A delta or batch-event callback that asks to stop after *user_data more calls.
int32_t count_down(const ai00_delta*, void* user_data) {
  return --*static_cast<int*>(user_data) < 0;
}
int32_t count_down_event(const ai00_batch_event*, void* user_data) {
  return --*static_cast<int*>(user_data) < 0;
}

// Turn settings; the borrowed strings live in static storage.
void generate_operand(World& w, Padded<ai00_generate_params>& p, uint8_t a) {
  ai00_generate_params_default(&p.v);
  const uint8_t b = w.in.u8(), c = w.in.u8(), d = w.in.u8();
  p.v.max_tokens = b % 4;         // 0 is refused
  p.v.prefill_chunk = b / 4 % 9;  // 0 is refused
  p.v.set_seed = b & 0x80;
  p.v.seed = a;
  p.v.grammar_mode = c % 5;
  p.v.grammar = (c & 8) ? w.grammars[c / 16 % 2] : nullptr;
  static const char* const kStops[] = {"\n\n", "a", ""};
  p.v.stop_sequences = kStops;
  p.v.n_stop_sequences = c / 32 % 4;
  p.v.prefix_cache = (c & 0x80) ? w.cache : nullptr;
  p.v.stream_tool_calls = d & 1;
  p.v.tool_choice = d / 2 % 5;
  p.v.tool_choice_name = (d & 0x10) ? "get" : "nope";
  p.v.tool_choice_name_len = AI00_NUL_TERMINATED;
  p.v.parallel_tool_calls = d & 0x20;
  if (d & 0x40) p.v.struct_size = struct_size<ai00_generate_params>(w.in.u8());
}

void drive(World& w, uint8_t a, ai00_generator* g) {
  int countdown = w.in.u8() % 4;
  switch (a / 8 % 4) {
    case 0: {
      int32_t finished = 0;
      ai00_generator_step((a & 0x20) ? nullptr : &finished, g, a / 32 % 3,
                          (a & 0x40) ? count_down : nullptr, &countdown);
      break;
    }
    case 1: {
      Padded<ai00_delta> d;
      d.v.struct_size = struct_size<ai00_delta>(w.in.u8());
      ai00_generator_next(&d.v, g);
      break;
    }
    case 2: {
      int32_t reason = 0;
      ai00_generator_run(&reason, g, (a & 0x20) ? count_down : nullptr, &countdown);
      break;
    }
    default:
      ai00_generator_cancel(g);
  }
}

void inspect(World& w, uint8_t a, ai00_generator* g) {
  size_t n = 0, len = 0;
  const char* s = nullptr;
  int32_t reason = 0;
  const uint32_t* ids = nullptr;
  ai00_generator_pending((a & 8) ? nullptr : &n, g);
  ai00_generator_finish_reason(&reason, g);
  ai00_generator_tokens(&ids, &n, g);
  ai00_generator_message_json(&s, &len, g);
  ai00_generator_warning_count(&n, g);
  ai00_generator_warning(&s, &len, g, w.in.u8() % 3);
  (void)ai00_generator_last_error(g);
}

void batch_step(World& w, uint8_t a) {
  Padded<ai00_batch_step_params> p;
  ai00_batch_step_params_default(&p.v);
  const uint8_t b = w.in.u8();
  p.v.max_tokens = b % 4;
  p.v.time_budget_us = (b & 4) ? w.in.u8() : 0;
  p.v.whole_batch = (b & 16) ? static_cast<int32_t>(w.in.u8() % 3) : 0;  // 2: refused
  if (b & 8) p.v.struct_size = struct_size<ai00_batch_step_params>(w.in.u8());
  Padded<ai00_batch_step_result> r;
  r.v.struct_size = struct_size<ai00_batch_step_result>(w.in.u8());
  int countdown = w.in.u8() % 4;
  ai00_batch_step((a & 0x20) ? nullptr : &r.v, w.batch, (a & 0x40) ? nullptr : &p.v,
                  (a & 0x80) ? count_down_event : nullptr, &countdown);
}

}  // namespace

void call_generator_new(World& w, uint8_t a) {
  const int i = a / 64 % 2, slot = a / 8 % 3;
  if (w.gens[i].g) return;
  Padded<ai00_generate_params> p;
  generate_operand(w, p, a);
  Padded<ai00_sampler_params> sp;
  ai00_logit_bias bias[4] = {};
  const bool sampler = a & 0x20;
  if (sampler) sampler_operand(w, sp, bias);
  ai00_state* st = w.state(slot);  // NULL when another generator borrows it: refused
  ai00_status s;
  if (a & 1) {
    const std::string prompt(w.in.take(w.in.u8() % 16));  // up to 15 bytes, 15 tokens
    s = ai00_generator_new_raw(&w.gens[i].g, w.model, st, prompt.data(), prompt.size(),
                               sampler ? &sp.v : nullptr, &p.v);
  } else {
    const std::string conv = text_operand(w, w.in.u8());
    Padded<ai00_render_options> ro;
    ai00_render_options_default(&ro.v);
    const uint8_t b = w.in.u8();
    ro.v.thinking = b % 4;
    static const char kTools[] =
        "[{\"name\":\"get\",\"parameters\":{\"type\":\"object\",\"properties\":"
        "{\"q\":{\"type\":\"string\"}}}}]";
    if (b & 4) ro.v.tools_json = kTools, ro.v.tools_json_len = sizeof kTools - 1;
    s = ai00_generator_new_chat(&w.gens[i].g, w.model, st, w.tmpl, conv.data(), conv.size(),
                                (b & 8) ? &ro.v : nullptr, sampler ? &sp.v : nullptr,
                                (a & 0x10) ? nullptr : &p.v);
  }
  if (s == AI00_OK) w.gens[i].state = slot, w.gens[i].cached = p.v.prefix_cache != nullptr;
}

void call_generator(World& w, uint8_t a) {
  const int i = a / 64 % 2;
  ai00_generator* g = w.gens[i].g;  // may be NULL
  switch (a % 4) {
    case 0:
    case 1:
      drive(w, a, g);
      break;
    case 2:
      inspect(w, a, g);
      break;
    default:  // a batch member too: freeing takes it out of its batch (batch.h)
      w.free_gen(i);
  }
}

void call_batch(World& w, uint8_t a) {
  ai00_generator* g = w.gens[a / 64 % 2].g;
  switch (a % 7) {
    case 0: {
      if (w.batch) break;
      Padded<ai00_batch_params> p;
      ai00_batch_params_default(&p.v);
      p.v.pass_rows = w.in.u8() % 20;
      if (a & 8) p.v.struct_size = struct_size<ai00_batch_params>(w.in.u8());
      ai00_batch_new(&w.batch, w.model, (a & 0x10) ? nullptr : &p.v);
      break;
    }
    case 1:
      ai00_batch_add(w.batch, g);
      break;
    case 2:
      ai00_batch_remove(w.batch, g);
      break;
    case 3:
      batch_step(w, a);
      break;
    case 4: {
      size_t n = 0;
      int32_t has = 0;
      ai00_batch_size((a & 8) ? nullptr : &n, w.batch);
      ai00_batch_pending(&n, w.batch);
      Padded<ai00_batch_event> e;
      e.v.struct_size = struct_size<ai00_batch_event>(w.in.u8());
      ai00_batch_next_event(&has, &e.v, w.batch);
      (void)ai00_batch_last_error(w.batch);
      break;
    }
    default:  // its members stay valid
      ai00_batch_free(w.batch);
      w.batch = nullptr;
  }
}

void call_cache(World& w, uint8_t a) {
  switch (a % 7) {
    case 0: {
      if (w.cache) break;
      Padded<ai00_prefix_cache_params> p;
      ai00_prefix_cache_params_default(&p.v);
      const uint8_t b = w.in.u8();
      if (b & 1) p.v.max_bytes = uint64_t{w.in.u8()} << (w.in.u8() % 24);  // evictions
      p.v.compress_bf16 = b & 2;
      if (b & 4) p.v.struct_size = struct_size<ai00_prefix_cache_params>(w.in.u8());
      ai00_prefix_cache_new(&w.cache, (b & 8) ? nullptr : &p.v);
      break;
    }
    case 1: {
      Padded<ai00_prefix_cache_stats> s;
      s.v.struct_size = struct_size<ai00_prefix_cache_stats>(w.in.u8());
      ai00_prefix_cache_stats_get(&s.v, w.cache);
      (void)ai00_prefix_cache_last_error(w.cache);
      break;
    }
    case 2:
      ai00_prefix_cache_clear(w.cache);
      break;
    case 3: {
      std::vector<uint32_t> ids(a / 8 % 8);
      for (uint32_t& id : ids) id = w.in.u8() << ((a & 0x80) ? w.in.u8() % 10 : 0);
      size_t n = 0;
      ai00_prefix_cache_warm((a & 0x40) ? nullptr : &n, w.cache, w.model, ids.data(), ids.size());
      break;
    }
    case 4: {
      const std::string t = text_operand(w, w.in.u8());
      size_t n = 0;
      ai00_prefix_cache_warm_text(&n, w.cache, w.model, t.data(), t.size());
      break;
    }
    case 5: {  // a few entries: the bound (max_bytes above) keeps the rest out
      size_t n = 0;
      ai00_prefix_cache_reserve((a & 0x40) ? nullptr : &n, w.cache, (a & 0x80) ? nullptr : w.model,
                                w.in.u8() % 4);
      break;
    }
    default:  // only when no live generator was given it (prefix_cache.h)
      if (!w.cache_in_use()) ai00_prefix_cache_free(w.cache), w.cache = nullptr;
  }
}

}  // namespace ai00_fuzz::cabi
