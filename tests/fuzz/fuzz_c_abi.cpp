// Fuzz target: random sequences of C ABI calls (ai00.h), every exported function reachable, on
// a small model with NULL handles, freed parents, bad struct sizes, buffers too small, random
// numbers and text (the rules the harness keeps are in fuzz_c_abi.h). Every call must return a
// status; none may crash, leak or abort. An input is up to 16 calls: one byte picks the call
// family, the next its operation, later bytes its operands. Limits set by an input are restored
// after it. Files (State files, bundles, converted models) are written only in the process's
// temp folder (Env), removed at exit.
//
// Speed (tests/fuzz/README.md "Speed"): the fixture model (12 layers, 200 KB States) made
// forward passes, fresh loads and State allocations cost more than everything else, so the
// harness writes a model of 2 layers (34 KB States, V 256 byte-level like the fixture) once
// per process through the project's own writer (bench/model_gen.h). "load" borrows one of two
// long-lived loads of it unless operand bits ask for a fresh one (with random parameters,
// other paths, a cancelling progress callback).
#include "fuzz_c_abi.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "model_gen.h"

namespace ai00_fuzz::cabi {
namespace {

void write_vocab(const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  const char* hex = "0123456789abcdef";
  for (int b = 0; b < 256; ++b) f << b + 1 << " b'\\x" << hex[b >> 4] << hex[b & 15] << "' 1\n";
  f << "257 'ab' 2\n258 'the' 3\n259 '\\n\\n' 2\n";
}

ai00_model* load_shared(const std::string& path, int threads) {
  ai00_model_params p;
  ai00_model_params_default(&p);
  p.n_threads = threads;
  ai00_model* m = nullptr;
  if (ai00_model_load(&m, path.data(), path.size(), &p) != AI00_OK) std::abort();
  return m;
}

Env* make_env() {
  auto* e = new Env;
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/ai00_fuzz_c_abi.XXXXXX";
  if (!mkdtemp(templ.data())) std::abort();
  e->dir = templ;
  static std::string dir_to_remove = e->dir;
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(dir_to_remove, ec);
  });
  ai00::internal::ModelConfig c;
  c.n_embd = 64, c.n_layer = 2, c.head_size = 64, c.n_head = 1, c.ffn_size = 128;
  c.vocab = 256, c.d_w = 8, c.d_a = 8, c.d_v = 8, c.d_g = 8;
  e->model_path = e->dir + "/small.gguf";
  ai00::bench::write_random_model(e->model_path, c, 7, ai00::internal::DType::F32);
  e->vocab_path = e->dir + "/vocab.txt";
  write_vocab(e->vocab_path);
  e->shared[0] = load_shared(e->model_path, 1);
  e->shared[1] = load_shared(e->model_path, 2);
  // Small limits keep every input quick (a 4-thread pool at most, bounded automata).
  ai00_limits_default(&e->limits);
  e->limits.max_threads = 4;
  e->limits.max_grammar_states = 4000;
  e->limits.max_nfa_states = 20000;
  e->limits.max_nesting_depth = 64;
  e->limits.max_input_bytes = 1 << 20;
  e->limits.max_string_bytes = 1 << 14;
  e->limits.max_tokens = 4096;
  if (ai00_limits_set(&e->limits) != AI00_OK) std::abort();
  return e;
}

int32_t cancel_after(uint64_t, uint64_t, void* user_data) {
  return --*static_cast<int*>(user_data) < 0;
}

const char* const kPaths[] = {"small.gguf", "conv.gguf", "conv.st",   "none",
                              "",           "vocab.txt", "state.bin", "bundle"};

std::string path_operand(uint8_t sel) {
  const std::string& dir = env().dir;
  return dir + "/" + kPaths[sel % (sizeof kPaths / sizeof kPaths[0])];
}

void load(World& w) {
  if (w.model) return;
  const uint8_t how = w.in.u8();
  if (how % 4 != 0) {  // most sequences borrow: a fresh load costs more than the rest
    w.model = env().shared[how / 4 % 2];
    w.owned = false;
    return;
  }
  if (!w.heavy()) return;
  Padded<ai00_model_params> p;
  p.v.struct_size = struct_size<ai00_model_params>(w.in.u8());
  ai00_model_params_default(&p.v);
  const uint8_t b = w.in.u8();
  if (b & 1) p.v.struct_size = struct_size<ai00_model_params>(w.in.u8());
  p.v.n_threads = (b & 2) ? static_cast<int32_t>(w.in.u32()) : 1 + (b >> 2) % 2;
  const char* isas[] = {nullptr, "scalar", "sse2", "avx2", "avx512", "neon64", "bogus"};
  p.v.forced_isa = isas[(b >> 3) % 7];
  const std::string vocab = (b & 0x40) ? path_operand(w.in.u8()) : std::string();
  p.v.vocab_path = vocab.empty() ? nullptr : vocab.c_str();
  int countdown = w.in.u8() % 8;
  if (b & 0x80) p.v.progress = cancel_after, p.v.progress_user_data = &countdown;
  p.v.activations = static_cast<int32_t>(w.in.u8() % 3);
  const std::string path = (how & 0x10) ? path_operand(w.in.u8()) : env().model_path;
  const size_t len = (how & 0x20) ? AI00_NUL_TERMINATED : path.size();
  ai00_model_load(&w.model, path.c_str(), len, (how & 0x40) ? nullptr : &p.v);
  w.owned = w.model != nullptr;
}

void convert(World& w) {
  if (!w.heavy()) return;
  Padded<ai00_convert_params> p;
  ai00_convert_params_default(&p.v);
  const uint8_t b = w.in.u8();
  p.v.struct_size = struct_size<ai00_convert_params>(w.in.u8());
  p.v.weight_type = b % 10;  // 8 and 9 are not types
  p.v.file_format = (b >> 4) % 3;
  p.v.overwrite = (b >> 6) & 1;
  int countdown = w.in.u8() % 4;
  if (b & 0x80) p.v.progress = cancel_after, p.v.user_data = &countdown;
  const std::string in = (b & 0x40) ? path_operand(w.in.u8()) : env().model_path;
  const std::string out = env().dir + ((b >> 4) % 3 == 1 ? "/conv.st" : "/conv.gguf");
  ai00_model_convert(in.data(), in.size(), out.data(), out.size(), &p.v);
}

}  // namespace

const Env& env() {
  static const Env* e = make_env();
  return *e;
}

bool World::borrowed(int slot) const {
  for (const Gen& g : gens)
    if (g.g && g.state == slot) return true;
  return false;
}

bool World::cache_in_use() const {
  for (const Gen& g : gens)
    if (g.g && g.cached) return true;
  return false;
}

void World::free_gen(int i) {
  ai00_generator_free(gens[i].g);
  gens[i] = Gen{};
}

World::~World() {
  free_gen(0), free_gen(1);  // before the States they borrow and the cache they use
  ai00_batch_free(batch);
  ai00_prefix_cache_free(cache);
  ai00_output_parser_free(parser);
  for (ai00_state* s : states) ai00_state_free(s);
  for (ai00_grammar* g : grammars) ai00_grammar_free(g);
  ai00_chat_template_free(tmpl);
  ai00_tokenizer_free(tok);
  ai00_state_bundle_free(bundle);
  if (owned) ai00_model_free(model);
  ai00_limits_set(&env().limits);
}

float float_operand(uint8_t sel) {
  const float k[] = {0.0f,
                     0.3f,
                     0.5f,
                     1.0f,
                     -1.0f,
                     0.01f,
                     2.0f,
                     100.0f,
                     1000.0f,
                     1e9f,
                     -1e-30f,
                     std::numeric_limits<float>::quiet_NaN(),
                     std::numeric_limits<float>::infinity(),
                     -std::numeric_limits<float>::infinity(),
                     0.99f,
                     10.0f};
  return k[sel % 16];
}

void sampler_operand(World& w, Padded<ai00_sampler_params>& p, ai00_logit_bias (&bias)[4]) {
  const uint8_t b = w.in.u8();
  if (b % 4 == 0) {
    ai00_sampler_params_preset(&p.v, static_cast<int8_t>(w.in.u8()));
  } else {
    ai00_sampler_params_default(&p.v);
  }
  if (b & 4) {
    p.v.method = static_cast<int8_t>(w.in.u8()) % 6;
    float* fields[] = {&p.v.temperature,
                       &p.v.top_p,
                       &p.v.min_p,
                       &p.v.typical_tau,
                       &p.v.mirostat_tau,
                       &p.v.mirostat_rate,
                       &p.v.presence_penalty,
                       &p.v.frequency_penalty,
                       &p.v.penalty_decay,
                       &p.v.repetition_penalty};
    const uint8_t n = w.in.u8() % 4;
    for (uint8_t i = 0; i < n; ++i) *fields[w.in.u8() % 10] = float_operand(w.in.u8());
    p.v.top_k = w.in.u8() % 300;
    p.v.ban_eos = b & 8;
  }
  if (b & 0x10) p.v.struct_size = struct_size<ai00_sampler_params>(w.in.u8());
  const uint8_t nb = (b >> 5) % 5;
  for (uint8_t i = 0; i < nb; ++i) {
    bias[i].token = w.in.u8() << (w.in.u8() % 10);
    bias[i].bias = float_operand(w.in.u8());
  }
  p.v.logit_bias = (nb == 4 && (b & 2)) ? nullptr : bias;  // NULL with a count: refused
  p.v.n_logit_bias = nb;
}

std::string text_operand(World& w, uint8_t sel) {
  static const char* const kTexts[] = {
      "start ::= 'yes' | 'no';",
      "start ::= #'[a-z]{1,8}' ' ' start | 'end';",
      "start ::= ((((('a')))));",
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"a\"]}",
      "[{\"role\":\"user\",\"content\":\"hi\"}]",
      "[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":\"q\"},"
      "{\"role\":\"assistant\",\"content\":\"a\",\"reasoning\":\"r\"}]",
      "[{\"name\":\"get\",\"parameters\":{\"type\":\"object\",\"properties\":"
      "{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]}}]",
      "[prompts]\nuser = \"U\"\n[presets.fast]\ntemperature = 0.5\n",
      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]",
      "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>x</think>y<|im_end|>\n",
      "{\"type\":\"array\",\"items\":{\"enum\":[1,\"a\",null]},\"maxItems\":3,\"x-bad\":1}",
      "",
  };
  constexpr size_t n = sizeof kTexts / sizeof kTexts[0];
  if (sel % 16 < n) return kTexts[sel % 16];
  return std::string(w.in.take(sel % 64));
}

void call_model(World& w, uint8_t a) {
  switch (a % 8) {
    case 0:
      load(w);
      break;
    case 1:  // an owned model freed: a stale parent of whatever was made from it
      if (w.owned) ai00_model_free(w.model);
      w.model = nullptr, w.owned = false;
      break;
    case 2: {
      Padded<ai00_model_info> info;
      info.v.struct_size = struct_size<ai00_model_info>(w.in.u8());
      ai00_model_get_info(&info.v, w.model);
      break;
    }
    case 3: {
      const char* name = nullptr;
      ai00_model_isa_name((a & 8) ? &name : nullptr, w.model);
      (void)ai00_model_last_error(w.model);
      break;
    }
    case 4: {
      std::vector<char> buf(w.in.u8() * 4);
      size_t len = 0;
      ai00_model_info_json(&len, (a & 8) ? buf.data() : nullptr, buf.size(), w.model);
      break;
    }
    case 5: {
      size_t n = 0;
      const std::string t = text_operand(w, w.in.u8());
      std::vector<uint32_t> ids(a / 8 % 16);
      ai00_model_tokenize(&n, ids.data(), ids.size(), w.model, t.data(), t.size());
      if (a & 0x80) ids.push_back(w.in.u8() << (w.in.u8() % 12));
      std::vector<char> out(w.in.u8() % 32);
      ai00_model_detokenize(&n, out.data(), out.size(), w.model, ids.data(), ids.size());
      break;
    }
    case 6:
      convert(w);
      break;
    default:
      load(w);
  }
}

void call_tokenizer(World& w, uint8_t a) {
  switch (a % 6) {
    case 0: {  // a vocabulary file, a model file, a missing path, an empty path
      if (w.tok || !w.heavy()) break;
      const std::string path = (a & 8) ? env().vocab_path : path_operand(w.in.u8());
      ai00_tokenizer_load(&w.tok, path.data(), (a & 0x10) ? AI00_NUL_TERMINATED : path.size());
      break;
    }
    case 1:  // outlives the model it came from (tokenizer.h)
      if (!w.tok) ai00_tokenizer_from_model(&w.tok, w.model);
      break;
    case 2: {
      uint32_t n = 0;
      ai00_tokenizer_vocab_size((a & 8) ? &n : nullptr, w.tok);
      (void)ai00_tokenizer_last_error(w.tok);
      break;
    }
    case 3: {
      size_t n = 0;
      const std::string t = text_operand(w, w.in.u8());
      std::vector<uint32_t> ids(a / 8 % 16);
      ai00_tokenizer_encode(&n, (a & 0x80) ? nullptr : ids.data(), ids.size(), w.tok, t.data(),
                            t.size());
      break;
    }
    case 4: {
      std::vector<uint32_t> ids(a / 8 % 8);
      for (uint32_t& id : ids) id = w.in.u8() << (w.in.u8() % 10);
      std::vector<char> out(w.in.u8() % 32);
      size_t n = 0;
      ai00_tokenizer_decode(&n, out.data(), out.size(), w.tok, ids.data(), ids.size());
      break;
    }
    default:
      ai00_tokenizer_free(w.tok);
      w.tok = nullptr;
  }
}

void set_limits(World& w) {
  Padded<ai00_limits> l;
  l.v.struct_size = struct_size<ai00_limits>(w.in.u8());
  ai00_limits_get(&l.v);
  const uint8_t b = w.in.u8();
  // Values a user could set, kept small: a large max_threads would only make this process slow.
  if (b & 1) l.v.max_nesting_depth = w.in.u8() << (w.in.u8() % 5);  // up to 1000 and past it
  if (b & 2) l.v.max_threads = w.in.u8() % 5;
  if (b & 4) l.v.max_grammar_states = w.in.u8() << (w.in.u8() % 8);
  if (b & 8) l.v.max_nfa_states = w.in.u8() << (w.in.u8() % 8);
  if (b & 0x10) l.v.max_input_bytes = w.in.u8() << (w.in.u8() % 8);
  if (b & 0x20) l.v.max_string_bytes = w.in.u8() << (w.in.u8() % 8);
  if (b & 0x40) l.v.max_tokens = w.in.u8() % 64;
  if (b & 0x80) l.v.max_file_bytes = w.in.u32();
  ai00_limits_set(&l.v);
}

// Every *_default function with a struct_size that may be an older header's, or a NULL output.
void defaults(World& w, uint8_t a) {
  const uint8_t sel = w.in.u8();
  const bool null = (a & 0x80) != 0;
#define AI00_FUZZ_DEFAULT(T, fn)           \
  {                                        \
    Padded<T> p;                           \
    p.v.struct_size = struct_size<T>(sel); \
    fn(null ? nullptr : &p.v);             \
  }
  switch (a / 8 % 15) {
    case 0:
      AI00_FUZZ_DEFAULT(ai00_model_params, ai00_model_params_default) break;
    case 1:
      AI00_FUZZ_DEFAULT(ai00_convert_params, ai00_convert_params_default) break;
    case 2:
      AI00_FUZZ_DEFAULT(ai00_sampler_params, ai00_sampler_params_default) break;
    case 3:
      AI00_FUZZ_DEFAULT(ai00_generate_params, ai00_generate_params_default) break;
    case 4:
      AI00_FUZZ_DEFAULT(ai00_render_options, ai00_render_options_default) break;
    case 5:
      AI00_FUZZ_DEFAULT(ai00_grammar_params, ai00_grammar_params_default) break;
    case 6:
      AI00_FUZZ_DEFAULT(ai00_schema_options, ai00_schema_options_default) break;
    case 7:
      AI00_FUZZ_DEFAULT(ai00_tool_grammar_params, ai00_tool_grammar_params_default) break;
    case 8:
      AI00_FUZZ_DEFAULT(ai00_parse_options, ai00_parse_options_default) break;
    case 9:
      AI00_FUZZ_DEFAULT(ai00_batch_params, ai00_batch_params_default) break;
    case 10:
      AI00_FUZZ_DEFAULT(ai00_batch_step_params, ai00_batch_step_params_default) break;
    case 11:
      AI00_FUZZ_DEFAULT(ai00_prefix_cache_params, ai00_prefix_cache_params_default) break;
    case 12:
      AI00_FUZZ_DEFAULT(ai00_score_params, ai00_score_params_default) break;
    case 13:
      AI00_FUZZ_DEFAULT(ai00_limits, ai00_limits_default) break;
    default: {
      Padded<ai00_sampler_params> p;
      p.v.struct_size = struct_size<ai00_sampler_params>(sel);
      ai00_sampler_params_preset(null ? nullptr : &p.v, static_cast<int8_t>(w.in.u8()));
    }
  }
#undef AI00_FUZZ_DEFAULT
}

void call_misc(World& w, uint8_t a) {
  switch (a % 8) {
    case 0: {
      uint32_t v = 0;
      ai00_version_number((a & 8) ? nullptr : &v);
      ai00_abi_version((a & 0x10) ? nullptr : &v);
      break;
    }
    case 1: {
      std::vector<char> buf(w.in.u8() * 8);
      size_t len = 0;
      ai00_capabilities_json((a & 8) ? nullptr : &len, (a & 0x10) ? nullptr : buf.data(),
                             buf.size());
      break;
    }
    case 2:
      (void)ai00_status_string(static_cast<ai00_status>(static_cast<int8_t>(w.in.u8())));
      (void)ai00_last_error();
      break;
    case 3: {
      Padded<ai00_limits> l;
      l.v.struct_size = struct_size<ai00_limits>(w.in.u8());
      ai00_limits_get((a & 8) ? nullptr : &l.v);
      break;
    }
    case 4:
      set_limits(w);
      break;
    case 5: {
      const char* name = nullptr;
      ai00_finish_reason_name((a & 8) ? nullptr : &name, static_cast<int8_t>(w.in.u8()) % 8);
      break;
    }
    default:
      defaults(w, a);
  }
}

}  // namespace ai00_fuzz::cabi

// ASan records a stack trace per allocation (StackDepot and unwinding were 9% of the time):
// reports keep the stack of the bad access; rerun a reproducer with
// ASAN_OPTIONS=malloc_context_size=30 for the allocation and free stacks.
extern "C" const char* __asan_default_options() { return "malloc_context_size=0"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ai00_fuzz::cabi;
  (void)env();
  ai00_fuzz::Bytes in(data, size);
  World w(in);
  constexpr int kCalls = 16;  // features per run drive libFuzzer's bookkeeping (README "Speed")
  using Family = void (*)(World&, uint8_t);
  static const Family kFamilies[] = {
      call_model, call_state,   call_eval,      call_save,   call_bundle,        call_tokenizer,
      call_misc,  call_grammar, call_template,  call_parser, call_generator_new, call_generator,
      call_batch, call_cache,   call_generator, call_state};
  for (int call = 0; call < kCalls && in.size() > 0; ++call) {
    const uint8_t op = in.u8();
    kFamilies[op % 16](w, in.u8());
  }
  return 0;
}
