// The State families of fuzz_c_abi (fuzz_c_abi.h): lifetime, evaluation, sampling, scoring,
// save and restore (in memory and in the temp folder) and state bundles.
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_c_abi.h"

namespace ai00_fuzz::cabi {
namespace {

// Up to `max` token ids from the input: mostly bytes (in the vocabulary), some shifted past it.
std::vector<uint32_t> tokens_operand(World& w, size_t max) {
  const uint8_t b = w.in.u8();
  std::vector<uint32_t> ids(b % (max + 1));
  for (uint32_t& id : ids) id = w.in.u8();
  if ((b & 0x80) && !ids.empty()) ids[b / 16 % ids.size()] <<= 1 + b % 12;
  return ids;
}

void sample(World& w, uint8_t a) {
  Padded<ai00_sampler_params> p;
  ai00_logit_bias bias[4] = {};
  sampler_operand(w, p, bias);
  std::vector<float> logits(256);
  for (size_t i = 0; i < 4; ++i) logits[w.in.u8()] = float_operand(w.in.u8());
  const size_t n = (a & 0x40) ? w.in.u8() : logits.size();  // another count is refused
  uint32_t tok = 0;
  ai00_state_sample(&tok, w.state(a / 8 % 3), (a & 0x20) ? nullptr : &p.v, logits.data(),
                    n < logits.size() ? n : logits.size());
}

void score(World& w, uint8_t a) {
  const uint8_t b = w.in.u8();
  std::vector<std::vector<uint32_t>> cands(b % 4);
  std::vector<const uint32_t*> ptrs;
  std::vector<size_t> lens;
  for (auto& c : cands) {
    c = tokens_operand(w, 3);
    ptrs.push_back(c.data()), lens.push_back(c.size());
  }
  Padded<ai00_score_params> p;
  ai00_score_params_default(&p.v);
  if (b & 4) p.v.struct_size = struct_size<ai00_score_params>(w.in.u8());
  const std::vector<uint32_t> context = tokens_operand(w, 3);
  std::vector<float> logits(256, 0.5f);
  if (b & 8) p.v.context = context.data(), p.v.n_context = context.size();
  if (b & 0x10) p.v.logits = logits.data(), p.v.n_logits = (b & 0x20) ? 255 : 256;
  std::vector<ai00_option_score> out(b / 64 + 1);
  const ai00_state* st = w.state(a / 8 % 3);
  if (a & 0x80) {
    const char* texts[] = {" yes", "no", ""};
    ai00_state_score_texts(out.data(), out.size(), w.model, st, texts, nullptr,
                           cands.size() < 3 ? cands.size() : 3, &p.v);
  } else {
    ai00_state_score_options(out.data(), out.size(), w.model, st, ptrs.data(), lens.data(),
                             cands.size(), (a & 0x40) ? nullptr : &p.v);
  }
}

}  // namespace

void call_state(World& w, uint8_t a) {
  const int slot = a / 8 % 3;
  ai00_state*& st = w.states[slot];
  switch (a % 6) {
    case 0:  // a NULL model (freed, or none) is refused
      if (!st) ai00_state_new(&st, w.model);
      break;
    case 1: {
      ai00_state* c = nullptr;
      if (ai00_state_clone(&c, w.state(slot)) != AI00_OK) break;
      const int to = (slot + 1) % 3;
      if (w.borrowed(to)) {
        ai00_state_free(c);
      } else {
        ai00_state_free(w.states[to]);
        w.states[to] = c;
      }
      break;
    }
    case 2:
      ai00_state_reset(w.state(slot));
      break;
    case 3:
      if (!w.borrowed(slot)) ai00_state_free(st), st = nullptr;
      break;
    case 4:
      ai00_state_set_seed(w.state(slot), (a & 0x80) ? w.in.u32() : ~uint64_t{0});
      break;
    default:
      (void)ai00_state_last_error(w.state(slot));
  }
}

void call_eval(World& w, uint8_t a) {
  switch (a % 4) {
    case 0:
    case 1: {
      const std::vector<uint32_t> ids = tokens_operand(w, a % 4 == 0 ? 4 : 2);
      const size_t per = a % 4 == 0 ? 1 : (ids.empty() ? 1 : ids.size());
      std::vector<float> logits(256 * per);
      const size_t cap = (a & 0x40) ? w.in.u8() : logits.size();  // too small: refused
      size_t n = 0;
      float* out = (a & 0x20) ? nullptr : logits.data();
      auto eval = a % 4 == 0 ? ai00_state_eval : ai00_state_eval_all;
      eval((a & 0x80) ? nullptr : &n, out, cap < logits.size() ? cap : logits.size(), w.model,
           w.state(a / 8 % 3), ids.data(), ids.size());
      break;
    }
    case 2:
      sample(w, a);
      break;
    default:
      score(w, a);
  }
}

void call_save(World& w, uint8_t a) {
  const ai00_state* st = w.state(a / 8 % 3);
  const std::string file = env().dir + ((a & 0x80) ? "/state.bin" : "/none/state.bin");
  switch (a % 4) {
    case 0: {  // save, maybe corrupt one byte, load
      std::vector<uint8_t> buf(w.in.u8() * 160);
      size_t need = 0;
      if (ai00_state_save(&need, (a & 0x20) ? nullptr : buf.data(), buf.size(), st) != AI00_OK) {
        break;
      }
      buf.resize(need - (a & 0x40 ? w.in.u8() % 16 : 0));
      if (!buf.empty() && (a & 0x80))
        buf[w.in.u32() % buf.size()] ^= static_cast<uint8_t>(1 | w.in.u8());
      ai00_state* loaded = nullptr;
      ai00_state_load(&loaded, w.model, buf.data(), buf.size());
      ai00_state_free(loaded);
      break;
    }
    case 1:
      ai00_state_save_file(st, file.data(), file.size());
      break;
    default: {  // a saved State file, a missing one, a model file read as a `.state`
      ai00_state* loaded = nullptr;
      const std::string path = (a & 0x40) ? env().model_path : file;
      if (a % 4 == 2) {
        ai00_state_load_file(&loaded, w.model, path.data(), path.size());
      } else {
        ai00_state_load_initial(&loaded, w.model, path.data(), path.size());
      }
      ai00_state_free(loaded);
    }
  }
}

void call_bundle(World& w, uint8_t a) {
  switch (a % 6) {
    case 0:
    case 1: {  // the States (some NULL or borrowed-hence-NULL), names maybe empty or equal
      const ai00_state* sts[3] = {w.state(0), w.state(1), w.state(2)};
      const char* names[3] = {"a", (a & 0x10) ? "a" : "b", (a & 0x20) ? "" : "c"};
      const size_t count = a / 64 % 4;
      if (a % 6 == 1) {
        const std::string path = env().dir + "/bundle";
        ai00_state_bundle_save_file(sts, names, nullptr, count, path.data(), path.size());
        break;
      }
      std::vector<uint8_t> buf(w.in.u8() * 512);  // two States fit in the largest
      size_t need = 0;
      if (ai00_state_bundle_save(&need, buf.data(), buf.size(), sts, names, nullptr, count) !=
              AI00_OK ||
          w.bundle) {
        break;
      }
      buf.resize(need);
      if (!buf.empty() && (a & 8))
        buf[w.in.u32() % buf.size()] ^= static_cast<uint8_t>(1 | w.in.u8());
      ai00_state_bundle_open(&w.bundle, buf.data(), buf.size());
      break;
    }
    case 2:
      if (!w.bundle) {
        const std::string path = env().dir + ((a & 8) ? "/bundle" : "/state.bin");
        ai00_state_bundle_open_file(&w.bundle, path.data(), path.size());
      }
      break;
    case 3: {
      size_t n = 0;
      const char* name = nullptr;
      ai00_state_bundle_count((a & 8) ? nullptr : &n, w.bundle);
      ai00_state_bundle_name(&name, &n, w.bundle, w.in.u8() % 4);
      const std::string t = text_operand(w, w.in.u8());
      ai00_state_bundle_find(&n, w.bundle, t.data(), t.size());
      (void)ai00_state_bundle_last_error(w.bundle);
      break;
    }
    case 4: {  // into a free slot; stays valid after the bundle is freed
      ai00_state*& st = w.states[a / 8 % 3];
      if (!st) ai00_state_bundle_load(&st, w.bundle, w.model, w.in.u8() % 4);
      break;
    }
    default:
      ai00_state_bundle_free(w.bundle);
      w.bundle = nullptr;
  }
}

}  // namespace ai00_fuzz::cabi
