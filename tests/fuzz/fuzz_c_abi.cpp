// Fuzz target: random sequences of C ABI calls (ai00.h) on the tiny fixture model, with NULL
// handles, out-of-range arguments, buffers too small, random text, and "stale" parents: the
// model handle is freed while States, grammars and generators made from it are still used
// (they hold their own reference, ai00.h "Model"). Every call must return a status; none may
// crash, leak or abort. Each byte of the input is one call (opcode) plus operands taken from
// the following bytes.
//
// Speed: loading the model costs more than the rest of a typical sequence, so "load" mostly
// borrows one of two models loaded once per process (1 and 2 threads; a Model is immutable and
// shared by design, ai00.h "Threading"). Operand bits ask for a freshly loaded handle instead
// (owned by this sequence; freeing it makes its children's parent stale) or for a random
// n_threads (refused before any file is read, or loaded). "Free" on a borrowed handle only
// drops it. A forward pass of the tiny model costs ~0.6 ms a token in this build, so a raw
// generator's prompt is up to 15 input bytes fed 1 to 8 tokens per forward (prefill chunks,
// the last one asking for logits) rather than one of the texts below (up to 74 tokens).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ai00/ai00.h"
#include "fuzz_common.h"

namespace {

// The long-lived models "load" borrows; never freed (the process ends).
ai00_model* shared_model(int threads) {
  static ai00_model* models[2] = {};
  ai00_model*& m = models[threads - 1];
  if (!m) {
    const std::string path = ai00_fuzz::shared_dir() + "/models/tiny-rwkv-7v0-834K-FP32.bin";
    ai00_model_params p;
    ai00_model_params_default(&p);
    p.n_threads = threads;
    if (ai00_model_load(&m, path.data(), path.size(), &p) != AI00_OK) std::abort();
  }
  return m;
}

struct World {
  ai00_model* model = nullptr;
  bool owned = false;  // model was loaded by this sequence (else borrowed from shared_model)
  ai00_state* states[3] = {};
  ai00_grammar* grammar = nullptr;
  ai00_chat_template* tmpl = nullptr;
  ai00_generator* gen = nullptr;
  ai00_state* gen_state = nullptr;  // the State the generator borrows (freed only after it)

  ~World() {
    ai00_generator_free(gen);
    for (ai00_state* s : states) ai00_state_free(s);
    ai00_grammar_free(grammar);
    ai00_chat_template_free(tmpl);
    if (owned) ai00_model_free(model);
  }
};

const char* const kTexts[] = {
    "start ::= 'yes' | 'no';",
    "start ::= #'[a-z]{1,8}' ' ' start | 'end';",
    "start ::= ((((('a')))));",
    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"a\"]}",
    "[{\"role\":\"user\",\"content\":\"hi\"}]",
    "[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]",
    "",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::Bytes in(data, size);
  World w;
  const std::string path = ai00_fuzz::shared_dir() + "/models/tiny-rwkv-7v0-834K-FP32.bin";
  std::vector<float> logits(300);
  std::string text;
  for (int call = 0; call < 64 && in.size() > 0; ++call) {
    const uint8_t op = in.u8();
    const uint8_t a = in.u8();
    ai00_state*& st = w.states[a % 3];
    const char* t = kTexts[(a >> 2) % (sizeof kTexts / sizeof kTexts[0])];
    switch (op % 22) {
      case 0: {
        if (w.model) break;
        const uint8_t how = a & 0xE0;  // 0x40 fresh, 0xC0 fresh with any n_threads, else borrow
        if (how != 0x40 && how != 0xC0) {
          w.model = shared_model(1 + a % 2);
          w.owned = false;
          break;
        }
        ai00_model_params p;
        ai00_model_params_default(&p);
        p.n_threads = how == 0xC0 ? static_cast<int32_t>(in.u32()) : 1 + a % 2;
        ai00_model_load(&w.model, path.data(), path.size(), &p);
        w.owned = w.model != nullptr;
        break;
      }
      case 1:  // an owned model freed: a stale parent, children keep working
        if (w.owned) ai00_model_free(w.model);
        w.model = nullptr;
        w.owned = false;
        break;
      case 2:
        if (!st) ai00_state_new(&st, w.model);
        break;
      case 3:
        if (st != w.gen_state) ai00_state_free(st), st = nullptr;
        break;
      case 4: {
        ai00_state* c = nullptr;
        if (ai00_state_clone(&c, st) == AI00_OK) {
          if (w.states[(a + 1) % 3] && w.states[(a + 1) % 3] != w.gen_state) {
            ai00_state_free(w.states[(a + 1) % 3]);
            w.states[(a + 1) % 3] = c;
          } else {
            ai00_state_free(c);
          }
        }
        break;
      }
      case 5: {
        uint32_t tokens[4] = {in.u8(), in.u8(), uint32_t(in.u8()) << (a % 12), 1};
        size_t n = 0;
        ai00_state_eval(&n, (a & 1) ? logits.data() : nullptr, a % 300, w.model, st, tokens, a % 5);
        break;
      }
      case 6: {
        uint32_t tok = 0;
        ai00_state_sample(&tok, st, nullptr, logits.data(), a);  // n_logits != 256 is refused
        break;
      }
      case 7: {
        std::vector<uint8_t> buf(a * 64);
        size_t need = 0;
        if (ai00_state_save(&need, buf.data(), buf.size(), st) == AI00_OK && w.model) {
          if (!buf.empty()) buf[in.u8() % buf.size()] ^= in.u8();
          ai00_state* loaded = nullptr;
          ai00_state_load(&loaded, w.model, buf.data(), buf.size());
          ai00_state_free(loaded);
        }
        break;
      }
      case 8:
        ai00_state_set_seed(st, in.u32());
        break;
      case 9:
        ai00_state_reset(st);
        break;
      case 10:
        if (!w.grammar) ai00_grammar_compile(&w.grammar, w.model, t, std::strlen(t));
        break;
      case 11:
        if (!w.grammar) ai00_grammar_from_json_schema(&w.grammar, w.model, t, std::strlen(t));
        break;
      case 12: {
        int32_t ok = 0;
        text.assign(in.take(a % 16));
        ai00_grammar_accepts(&ok, w.grammar, text.data(), text.size());
        break;
      }
      case 13:
        if (!w.gen) ai00_grammar_free(w.grammar), w.grammar = nullptr;
        break;
      case 14:
        if (!w.tmpl) {
          const char* names[] = {"goose", "ai00-v1", "ai00-v0", "openchatml", "nope"};
          const char* n = names[a % 5];
          ai00_chat_template_new(&w.tmpl, n, std::strlen(n));
        }
        break;
      case 15: {
        const char* prompt = nullptr;
        size_t len = 0;
        ai00_chat_template_render(&prompt, &len, w.tmpl, t, std::strlen(t), nullptr);
        break;
      }
      case 16: {
        if (w.gen || !st) break;
        ai00_generate_params p;
        ai00_generate_params_default(&p);
        p.max_tokens = a % 4;  // 0 is refused
        p.grammar = (a & 0x40) ? w.grammar : nullptr;
        p.set_seed = 1;
        p.seed = a;
        const uint8_t b = in.u8();  // prompt: up to 15 input bytes, fed 1 to 8 per forward
        p.prefill_chunk = 1 + (b >> 4) % 8;
        text.assign(in.take(b % 16));
        if (ai00_generator_new_raw(&w.gen, w.model, st, text.data(), text.size(), nullptr, &p) ==
            AI00_OK)
          w.gen_state = st;
        break;
      }
      case 17: {
        if (w.gen || !st) break;
        ai00_generate_params p;
        ai00_generate_params_default(&p);
        p.max_tokens = 1 + a % 3;
        if (ai00_generator_new_chat(&w.gen, w.model, st, w.tmpl, t, std::strlen(t), nullptr,
                                    nullptr, &p) == AI00_OK)
          w.gen_state = st;
        break;
      }
      case 18: {
        int32_t finished = 0;
        ai00_generator_step(&finished, w.gen, a % 3, nullptr, nullptr);
        ai00_delta d;
        std::memset(&d, 0, sizeof d);
        d.struct_size = sizeof d;
        ai00_generator_next(&d, w.gen);
        break;
      }
      case 19:
        ai00_generator_cancel(w.gen);
        break;
      case 20:
        ai00_generator_free(w.gen);
        w.gen = nullptr;
        w.gen_state = nullptr;
        break;
      case 21: {
        size_t n = 0;
        text.assign(in.take(a % 32));
        std::vector<uint32_t> ids(a % 8);
        ai00_model_tokenize(&n, ids.data(), ids.size(), w.model, text.data(), text.size());
        std::vector<char> out(a % 16);
        ai00_model_detokenize(&n, out.data(), out.size(), w.model, ids.data(), ids.size());
        (void)ai00_last_error();
        break;
      }
    }
  }
  return 0;
}
