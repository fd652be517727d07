/* Issue 12 part B through the C ABI (C99): the prefix-state cache (warm, stats, a generator
 * hitting it with the same tokens as without it, bad input), option scoring (tokens and texts,
 * the State unchanged, bad input), State bundles (save, open, find, load, bad input) and
 * ai00_model_info.state_bytes agreeing with ai00_model_info_json. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c/c_check.h"
#include "ai00/ai00.h"
#define CHECK_ERR(call, status, text)                 \
  do {                                                \
    CHECK((call) == (status));                        \
    CHECK(strstr(ai00_last_error(), (text)) != NULL); \
  } while (0)

static char g_shared[2048];
static const char* shared(const char* rel) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", g_shared, rel);
  return buf;
}

static ai00_model* load(const char* rel) {
  ai00_model* m = NULL;
  CHECK_OK(ai00_model_load(&m, shared(rel), AI00_NUL_TERMINATED, NULL));
  return m;
}

static void test_state_bytes(ai00_model* m) {
  ai00_model_info info;
  char json[4096];
  size_t len = 0;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK_OK(ai00_model_get_info(&info, m));
  CHECK(info.state_bytes == (uint64_t)info.n_layer * info.n_embd * (info.head_size + 2) * 4);
  CHECK(info.state_bytes == 101376);
  CHECK_OK(ai00_model_info_json(&len, json, sizeof json - 1, m));
  json[len] = '\0';
  CHECK(strstr(json, "\"state_bytes\": 101376") != NULL);
}

/* Runs a raw turn; returns the number of sampled tokens copied into `out`. */
static size_t raw_turn(ai00_model* m, ai00_prefix_cache* cache, const char* prompt, uint32_t* out,
                       size_t cap) {
  ai00_state* s = NULL;
  ai00_generator* g = NULL;
  ai00_generate_params p;
  ai00_sampler_params sp;
  const uint32_t* toks = NULL;
  size_t n = 0;
  CHECK_OK(ai00_state_new(&s, m));
  CHECK_OK(ai00_generate_params_default(&p));
  CHECK(p.prefix_cache == NULL);
  p.max_tokens = 8;
  p.set_seed = 1;
  p.seed = 5;
  p.prefix_cache = cache;
  CHECK_OK(ai00_sampler_params_default(&sp));
  sp.ban_eos = 1;
  CHECK_OK(ai00_generator_new_raw(&g, m, s, prompt, AI00_NUL_TERMINATED, &sp, &p));
  CHECK_OK(ai00_generator_run(NULL, g, NULL, NULL));
  CHECK_OK(ai00_generator_tokens(&toks, &n, g));
  if (n > cap) n = cap;
  memcpy(out, toks, n * sizeof *out);
  ai00_generator_free(g);
  ai00_state_free(s);
  return n;
}

static void test_prefix_cache(ai00_model* m, ai00_model* other) {
  ai00_prefix_cache_params p;
  ai00_prefix_cache* cache = NULL;
  ai00_prefix_cache_stats st;
  const uint32_t toks[5] = {10, 20, 30, 40, 50};
  const uint32_t bad[2] = {1, 70000};
  uint32_t a[8], b[8], c[8];
  size_t na, nb, nc, evaluated = 99;
  const char* prompt = "Mira the blacksmith hammers at the anvil and says";

  CHECK_OK(ai00_prefix_cache_params_default(&p));
  CHECK(p.struct_size == sizeof p && p.max_bytes == (uint64_t)256 << 20 && p.compress_bf16 == 0);
  p.struct_size = 3;
  CHECK_ERR(ai00_prefix_cache_new(&cache, &p), AI00_ERR_INVALID_ARGUMENT, "struct_size");
  CHECK(cache == NULL);
  CHECK_OK(ai00_prefix_cache_new(&cache, NULL));

  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  CHECK_OK(ai00_prefix_cache_warm(&evaluated, cache, m, toks, 5));
  CHECK(evaluated == 5);
  CHECK_OK(ai00_prefix_cache_warm(&evaluated, cache, m, toks, 5));
  CHECK(evaluated == 0);
  CHECK_OK(ai00_prefix_cache_warm_text(&evaluated, cache, m, "persona", AI00_NUL_TERMINATED));
  CHECK(evaluated > 0);
  CHECK_OK(ai00_prefix_cache_stats_get(&st, cache));
  CHECK(st.entries == 2 && st.inserts == 2 && st.bytes > 2 * 101376 && st.hits == 0);

  /* A generator: the second identical turn hits and gives the same tokens as no cache. */
  na = raw_turn(m, cache, prompt, a, 8);
  nb = raw_turn(m, cache, prompt, b, 8);
  nc = raw_turn(m, NULL, prompt, c, 8);
  CHECK(na == 8 && nb == 8 && nc == 8);
  CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(a, c, sizeof a) == 0);
  CHECK_OK(ai00_prefix_cache_stats_get(&st, cache));
  CHECK(st.hits == 1 && st.misses == 1 && st.hit_tokens > 5);

  /* Bad input, with the message kept in the handle's slot too. */
  CHECK_ERR(ai00_prefix_cache_warm(NULL, cache, m, toks, 0), AI00_ERR_INVALID_ARGUMENT,
            "n_tokens is 0");
  CHECK_ERR(ai00_prefix_cache_warm(NULL, cache, m, bad, 2), AI00_ERR_INVALID_ARGUMENT,
            "token 70000 at position 1");
  CHECK(strstr(ai00_prefix_cache_last_error(cache), "70000") != NULL);
  CHECK_ERR(ai00_prefix_cache_warm(NULL, NULL, m, toks, 5), AI00_ERR_INVALID_ARGUMENT, "cache");
  CHECK_ERR(ai00_prefix_cache_stats_get(NULL, cache), AI00_ERR_INVALID_ARGUMENT, "out_stats");
  /* Another model's entries are invisible: warming it runs every token. */
  CHECK_OK(ai00_prefix_cache_warm(&evaluated, cache, other, toks, 5));
  CHECK(evaluated == 5);

  CHECK_OK(ai00_prefix_cache_clear(cache));
  CHECK_OK(ai00_prefix_cache_stats_get(&st, cache));
  CHECK(st.entries == 0 && st.bytes == 0 && st.spare_bytes == 0);

  /* Memory set aside: counted in spare_bytes until an insert takes it; a 0.4 caller's shorter
   * stats struct (no spare_bytes) is still accepted and the field past it left alone. */
  CHECK_OK(ai00_prefix_cache_reserve(&evaluated, cache, m, 2));
  CHECK(evaluated == 2);
  CHECK_OK(ai00_prefix_cache_stats_get(&st, cache));
  CHECK(st.spare_bytes > 2 * 101376 && st.entries == 0);
  CHECK_OK(ai00_prefix_cache_warm(NULL, cache, m, toks, 5));
  {
    const uint64_t before = st.spare_bytes;
    CHECK_OK(ai00_prefix_cache_stats_get(&st, cache));
    CHECK(st.entries == 1 && st.spare_bytes == before / 2);
    st.struct_size = offsetof(ai00_prefix_cache_stats, spare_bytes);
    st.spare_bytes = 12345;
    CHECK_OK(ai00_prefix_cache_stats_get(&st, cache));
    CHECK(st.spare_bytes == 12345 && st.entries == 1);
  }
  CHECK_OK(ai00_prefix_cache_reserve(NULL, cache, m, 0));
  CHECK_ERR(ai00_prefix_cache_reserve(&evaluated, cache, NULL, 1), AI00_ERR_INVALID_ARGUMENT,
            "model");
  CHECK_ERR(ai00_prefix_cache_reserve(&evaluated, NULL, m, 1), AI00_ERR_INVALID_ARGUMENT, "cache");
  CHECK_OK(ai00_prefix_cache_free(cache));
  CHECK_OK(ai00_prefix_cache_free(NULL));
  CHECK(strcmp(ai00_prefix_cache_last_error(NULL), "") == 0);
}

static void test_score(ai00_model* m, ai00_model* other) {
  ai00_state* s = NULL;
  ai00_state* foreign = NULL;
  ai00_score_params p;
  ai00_option_score out[3];
  float logits[512];
  size_t n = 0, before_size = 0, after_size = 0;
  static unsigned char before[200000], after[200000];
  const uint32_t hist[3] = {7, 8, 9};
  const uint32_t c0[3] = {1, 2, 3}, c1[1] = {4}, c2[2] = {300, 5};
  const uint32_t* cands[3] = {c0, c1, c2};
  const size_t lens[3] = {3, 1, 2};
  const size_t empty_lens[3] = {3, 0, 2};
  const char* texts[2] = {" yes", " no thanks"};
  CHECK_OK(ai00_state_new(&s, m));
  CHECK_OK(ai00_state_eval(&n, logits, 512, m, s, hist, 3));
  CHECK_OK(ai00_state_save(&before_size, before, sizeof before, s));
  CHECK_OK(ai00_score_params_default(&p));
  CHECK(p.struct_size == sizeof p && p.context == NULL && p.logits == NULL);
  p.logits = logits;
  p.n_logits = 512;
  CHECK_OK(ai00_state_score_options(out, 3, m, s, cands, lens, 3, &p));
  CHECK(out[0].n_tokens == 3 && out[1].n_tokens == 1 && out[2].n_tokens == 2);
  CHECK(out[0].total_logprob < 0 && fabs(out[0].mean_logprob * 3 - out[0].total_logprob) < 1e-9);
  CHECK_OK(ai00_state_score_texts(out, 3, m, s, texts, NULL, 2, &p));
  CHECK(out[0].total_logprob < 0 && out[1].n_tokens >= 2);
  CHECK_OK(ai00_state_save(&after_size, after, sizeof after, s));
  CHECK(before_size == after_size && memcmp(before, after, before_size) == 0);

  CHECK_ERR(ai00_state_score_options(out, 3, m, s, cands, lens, 0, &p), AI00_ERR_INVALID_ARGUMENT,
            "no candidates");
  CHECK_ERR(ai00_state_score_options(out, 3, m, s, cands, empty_lens, 3, &p),
            AI00_ERR_INVALID_ARGUMENT, "candidate 1 is empty");
  CHECK_ERR(ai00_state_score_options(out, 2, m, s, cands, lens, 3, &p), AI00_ERR_BUFFER_TOO_SMALL,
            "3 candidates");
  CHECK(strstr(ai00_state_last_error(s), "3 candidates") != NULL);
  p.n_logits = 100;
  CHECK_ERR(ai00_state_score_options(out, 3, m, s, cands, lens, 3, &p), AI00_ERR_INVALID_ARGUMENT,
            "100 logits given");
  CHECK_ERR(ai00_state_score_options(out, 3, m, s, cands, lens, 3, NULL), AI00_ERR_INVALID_ARGUMENT,
            "neither");
  p.n_logits = 512;
  p.context = hist;
  p.n_context = 3;
  CHECK_ERR(ai00_state_score_options(out, 3, m, s, cands, lens, 3, &p), AI00_ERR_INVALID_ARGUMENT,
            "not both");
  p.logits = NULL;
  p.n_logits = 0;
  CHECK_OK(ai00_state_score_options(out, 3, m, s, cands, lens, 3, &p));
  CHECK_OK(ai00_state_new(&foreign, other));
  CHECK(ai00_state_score_options(out, 3, m, foreign, cands, lens, 3, &p) == AI00_ERR_MISMATCH);
  ai00_state_free(foreign);
  ai00_state_free(s);
}

static void test_bundle(ai00_model* m, ai00_model* other) {
  ai00_state* st[2] = {NULL, NULL};
  ai00_state* loaded = NULL;
  ai00_state_bundle* b = NULL;
  const char* names[2] = {"smith", "baker"};
  const char* dup[2] = {"smith", "smith"};
  const uint32_t t[2] = {3, 4};
  size_t need = 0, got = 0, count = 0, idx = 0, len = 0, s1 = 0, s2 = 0;
  unsigned char* buf;
  static unsigned char x[200000], y[200000];
  const char* name = NULL;
  char path[4200];
  CHECK_OK(ai00_state_new(&st[0], m));
  CHECK_OK(ai00_state_new(&st[1], m));
  CHECK_OK(ai00_state_eval(NULL, NULL, 0, m, st[1], t, 2));
  CHECK_OK(ai00_state_set_seed(st[1], 77));
  CHECK(ai00_state_bundle_save(&need, NULL, 0, (const ai00_state* const*)st, names, NULL, 2) ==
        AI00_ERR_BUFFER_TOO_SMALL);
  buf = (unsigned char*)malloc(need);
  CHECK_OK(ai00_state_bundle_save(&got, buf, need, (const ai00_state* const*)st, names, NULL, 2));
  CHECK(got == need);
  CHECK_ERR(ai00_state_bundle_save(&got, buf, need, (const ai00_state* const*)st, dup, NULL, 2),
            AI00_ERR_INVALID_ARGUMENT, "used twice");

  CHECK_OK(ai00_state_bundle_open(&b, buf, need));
  CHECK_OK(ai00_state_bundle_count(&count, b));
  CHECK(count == 2);
  CHECK_OK(ai00_state_bundle_name(&name, &len, b, 1));
  CHECK(len == 5 && strcmp(name, "baker") == 0);
  CHECK_OK(ai00_state_bundle_find(&idx, b, "baker", AI00_NUL_TERMINATED));
  CHECK(idx == 1);
  CHECK_ERR(ai00_state_bundle_find(&idx, b, "mayor", AI00_NUL_TERMINATED),
            AI00_ERR_INVALID_ARGUMENT, "'mayor'");
  CHECK_OK(ai00_state_bundle_load(&loaded, b, m, idx));
  CHECK_OK(ai00_state_save(&s1, x, sizeof x, loaded));
  CHECK_OK(ai00_state_save(&s2, y, sizeof y, st[1]));
  CHECK(s1 == s2 && memcmp(x, y, s1) == 0);
  ai00_state_free(loaded);
  loaded = NULL;
  CHECK_ERR(ai00_state_bundle_load(&loaded, b, other, 0), AI00_ERR_MISMATCH, "entry 0 ('smith')");
  CHECK(strstr(ai00_state_bundle_last_error(b), "another model") != NULL);
  CHECK(loaded == NULL);
  CHECK_OK(ai00_state_bundle_free(b));
  b = NULL;

  /* Truncated and corrupt buffers. */
  CHECK_ERR(ai00_state_bundle_open(&b, buf, need - 3), AI00_ERR_MODEL_FILE, "entry 1 ('baker')");
  buf[need - 50] ^= 1;
  CHECK_ERR(ai00_state_bundle_open(&b, buf, need), AI00_ERR_MODEL_FILE, "checksum mismatch");
  CHECK(b == NULL);
  free(buf);

  /* A file. */
  snprintf(path, sizeof path, "test_abi_village.bundle");
  CHECK_OK(ai00_state_bundle_save_file((const ai00_state* const*)st, names, NULL, 2, path,
                                       AI00_NUL_TERMINATED));
  CHECK_OK(ai00_state_bundle_open_file(&b, path, AI00_NUL_TERMINATED));
  CHECK_OK(ai00_state_bundle_count(&count, b));
  CHECK(count == 2);
  ai00_state_bundle_free(b);
  remove(path);
  CHECK_ERR(ai00_state_bundle_open_file(&b, "no/such/dir/x.bundle", AI00_NUL_TERMINATED),
            AI00_ERR_IO, "no/such/dir/x.bundle");
  ai00_state_free(st[0]);
  ai00_state_free(st[1]);
}

int main(void) {
  const char* env = getenv("AI00_SHARED_DIR");
  ai00_model* m;
  ai00_model* other;
  snprintf(g_shared, sizeof g_shared, "%s", env && *env ? env : AI00_DEFAULT_SHARED_DIR);
  m = load("models/rand-rwkv7-c128-l3-v512-F16.gguf");
  other = load("models/tiny-rwkv-7v0-834K-FP32.bin");
  if (m == NULL || other == NULL) return 1;
  test_state_bytes(m);
  test_prefix_cache(m, other);
  test_score(m, other);
  test_bundle(m, other);
  ai00_model_free(other);
  ai00_model_free(m);
  if (g_failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  printf("test_abi_village: all checks passed\n");
  return 0;
}
