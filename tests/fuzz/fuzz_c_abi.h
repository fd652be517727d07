// The world of the C ABI call-sequence target (fuzz_c_abi.cpp): the handles one input owns, the
// process-wide environment (a small generated model, a temp folder) and the operand helpers the
// call families of fuzz_c_abi.cpp and fuzz_c_abi_text.cpp share.
//
// Caller obligations the harness keeps (ai00.h, docs/abi.md "Ownership"), so every report is the
// library's: a State borrowed by a generator is not used, freed or borrowed again until that
// generator is freed; a prefix cache is freed only when no live generator was given it; a handle
// the harness freed is never passed again (its slot is cleared). What it does on purpose: NULL
// handles, freed parents (a Model freed under its States, grammars, generators, batches and
// tokenizers; a template under its parsers and generators; a bundle under the States loaded
// from it; a generator freed while a batch member), bad struct_size values (structs are padded,
// so a size larger than the struct reads and writes harness memory, never past it), buffers too
// small, out-of-range numbers and random text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ai00/ai00.h"
#include "fuzz_common.h"

namespace ai00_fuzz::cabi {

// Made once per process: a folder under TMPDIR (removed at exit) holding a small model, a small
// vocabulary, and every file the sequences write (state files, bundles, converted models).
struct Env {
  std::string dir;
  std::string model_path;      // small.gguf: C 64, L 2, one head, F 128, LoRA ranks 8, V 256
  std::string vocab_path;      // 259 tokens: the 256 bytes and three longer ones
  ai00_model* shared[2] = {};  // long-lived loads of model_path with 1 and 2 threads
  ai00_limits limits{};        // restored after every input: inputs stay independent
};
const Env& env();

struct Gen {
  ai00_generator* g = nullptr;
  int state = -1;       // index of the borrowed State
  bool cached = false;  // was given the prefix cache, which must outlive it
};

struct World {
  explicit World(Bytes& bytes) : in(bytes) {}
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  ~World();

  Bytes& in;
  ai00_model* model = nullptr;
  bool owned = false;  // model was loaded by this input (else borrowed from Env::shared)
  ai00_state* states[3] = {};
  ai00_grammar* grammars[2] = {};
  ai00_chat_template* tmpl = nullptr;
  ai00_tokenizer* tok = nullptr;
  Gen gens[2];
  ai00_batch* batch = nullptr;
  ai00_prefix_cache* cache = nullptr;
  ai00_state_bundle* bundle = nullptr;
  ai00_output_parser* parser = nullptr;

  // Calls that cost milliseconds under ASan (a fresh load, a conversion, building a grammar or
  // loading a vocabulary) run at most twice per input (e.g. a fresh model and a grammar made
  // from it); later ones are skipped, so no input is slow however the fuzzer combines them
  // (tests/fuzz/README.md "Speed").
  int heavy_left = 2;
  bool heavy() { return heavy_left-- > 0; }

  bool borrowed(int slot) const;
  // states[slot] when no generator borrows it, else NULL (a NULL-handle call instead).
  ai00_state* state(int slot) const { return borrowed(slot) ? nullptr : states[slot]; }
  bool cache_in_use() const;
  void free_gen(int i);
};

// Versioned structs with room behind them: a struct_size above sizeof(T) stays in bounds.
template <typename T>
struct Padded {
  T v{};
  unsigned char pad[64] = {};
};

// Mostly the right struct_size, sometimes 0, too small, an older header's or a newer one's.
template <typename T>
uint32_t struct_size(uint8_t sel) {
  const uint32_t n = sizeof(T);
  const uint32_t odd[] = {0, 4, n - 4, n + 8, 24, 40};
  return sel % 16 < 10 ? n : odd[sel % 6];
}

// A text operand: one of the fixed texts (valid grammars, schemas, conversations, tools,
// configurations) or up to 63 bytes of the input.
std::string text_operand(World& w, uint8_t sel);
// A float for a sampler field: ordinary, edge and non-finite values.
float float_operand(uint8_t sel);
// Sampler settings: the defaults, a preset (any number) or fields from the input, with up to
// four logit biases in `bias` (owned by the caller for the call).
void sampler_operand(World& w, Padded<ai00_sampler_params>& p, ai00_logit_bias (&bias)[4]);

// The call families, each one input byte `a` of operands plus more taken from w.in.
void call_model(World& w, uint8_t a);
void call_state(World& w, uint8_t a);
void call_eval(World& w, uint8_t a);
void call_save(World& w, uint8_t a);
void call_bundle(World& w, uint8_t a);
void call_tokenizer(World& w, uint8_t a);
void call_misc(World& w, uint8_t a);
void call_grammar(World& w, uint8_t a);
void call_template(World& w, uint8_t a);
void call_parser(World& w, uint8_t a);
void call_generator_new(World& w, uint8_t a);
void call_generator(World& w, uint8_t a);
void call_batch(World& w, uint8_t a);
void call_cache(World& w, uint8_t a);

}  // namespace ai00_fuzz::cabi
