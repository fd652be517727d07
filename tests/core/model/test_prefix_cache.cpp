// PrefixCache: a hit equals a full prefill bit for bit, longest-prefix selection, LRU eviction
// under a byte limit, reserved and reused memory, statistics, States and caches of other models,
// bf16 accuracy, threads.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/prefix_cache.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "fixtures.h"

using namespace ai00::internal;
using ai00::test::shared_path;

namespace {

std::shared_ptr<const Model> tiny() {
  return Model::load(shared_path("models/tiny-rwkv-7v0-834K-FP32.bin"));
}
std::shared_ptr<const Model> rand_model() {
  return Model::load(shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"));
}

std::vector<uint32_t> tokens_of(size_t n, uint32_t salt, uint32_t vocab) {
  std::vector<uint32_t> t(n);
  for (size_t i = 0; i < n; ++i)
    t[i] = static_cast<uint32_t>((i * 7919 + salt * 104729 + 1) % vocab);
  return t;
}

std::vector<float> prefill(const Model& m, State& s, const std::vector<uint32_t>& t, size_t from,
                           size_t to) {
  std::vector<float> logits(static_cast<size_t>(m.config().vocab));
  forward(m, s, t.data() + from, to - from, logits.data());
  return logits;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

// `count` prompts of n tokens (salts salt0, salt0 + 1, ...), each with the logits and the State
// floats of its full prefill.
struct Prefilled {
  std::vector<std::vector<uint32_t>> prompts;
  std::vector<std::vector<float>> logits, floats;
};
Prefilled prefilled(const Model& m, size_t n, uint32_t salt0, uint32_t count) {
  Prefilled p;
  for (uint32_t k = 0; k < count; ++k) {
    p.prompts.push_back(tokens_of(n, salt0 + k, static_cast<uint32_t>(m.config().vocab)));
    State s(m);
    p.logits.push_back(prefill(m, s, p.prompts.back(), 0, n));
    p.floats.emplace_back(s.data(), s.data() + s.size());
  }
  return p;
}

}  // namespace

TEST_CASE("a hit restores the State and logits of a full prefill bit for bit", "[prefix_cache]") {
  auto m = tiny();
  const uint32_t V = static_cast<uint32_t>(m->config().vocab);
  const auto t = tokens_of(100, 1, V);
  PrefixCache cache;
  REQUIRE(cache.warm(*m, t.data(), 40) == 40);

  // Without the cache: the 40-token prefix, then the rest.
  State full(*m);
  std::vector<float> at40 = prefill(*m, full, t, 0, 40);
  std::vector<float> end_full = prefill(*m, full, t, 40, 100);

  State s(*m);
  s.sampler().set_seed(1234);  // the caller's sampler state must survive a restore
  const auto rng_before = s.sampler().rng().words();
  std::vector<float> logits;
  REQUIRE(s.pristine());
  REQUIRE(cache.restore(*m, s, t.data(), t.size(), &logits) == 40);
  CHECK_FALSE(s.pristine());
  CHECK(same_bits(logits, at40));
  CHECK(s.sampler().seed() == 1234);
  CHECK(s.sampler().rng().words() == rng_before);
  std::vector<float> end_hit = prefill(*m, s, t, 40, 100);
  CHECK(same_bits(end_hit, end_full));
  CHECK(std::memcmp(s.data(), full.data(), s.size_bytes()) == 0);

  // A prompt entirely cached: its logits come from the entry, no forward needed.
  State s2(*m);
  std::vector<float> l2;
  REQUIRE(cache.restore(*m, s2, t.data(), 40, &l2) == 40);
  CHECK(same_bits(l2, at40));
}

TEST_CASE("the longest stored prefix is chosen and verified token by token", "[prefix_cache]") {
  auto m = tiny();
  const uint32_t V = static_cast<uint32_t>(m->config().vocab);
  const auto t = tokens_of(64, 2, V);
  PrefixCache cache;
  cache.warm(*m, t.data(), 10);
  CHECK(cache.warm(*m, t.data(), 30) == 20);  // continues from the 10-token entry
  cache.warm(*m, t.data(), 50);
  State s(*m);
  CHECK(cache.restore(*m, s, t.data(), 45, nullptr) == 30);
  State s2(*m);
  CHECK(cache.restore(*m, s2, t.data(), 64, nullptr) == 50);
  State s3(*m);
  CHECK(cache.restore(*m, s3, t.data(), 9, nullptr) == 0);
  // A prompt that differs at token 20 can only use the 10-token prefix.
  auto u = t;
  u[20] = (u[20] + 1) % V;
  State s4(*m);
  CHECK(cache.restore(*m, s4, u.data(), u.size(), nullptr) == 10);
  State s5(*m);
  auto w = t;
  w[0] = (w[0] + 1) % V;
  CHECK(cache.restore(*m, s5, w.data(), w.size(), nullptr) == 0);
  CHECK(s5.pristine());  // a miss leaves the State untouched

  const PrefixCacheStats st = cache.stats();
  CHECK(st.hits == 3);
  CHECK(st.misses == 2);
  CHECK(st.hit_tokens == 30 + 50 + 10);
  CHECK(st.inserts == 3);
  CHECK(st.entries == 3);
  CHECK(st.bytes == PrefixCache::entry_bytes(*m, 10, false) +
                        PrefixCache::entry_bytes(*m, 30, false) +
                        PrefixCache::entry_bytes(*m, 50, false));
  CHECK(st.evictions == 0);
  // Storing a stored prefix again is no new entry.
  State again(*m);
  auto l = prefill(*m, again, t, 0, 10);
  CHECK_FALSE(cache.insert(*m, again, t.data(), 10, l.data()));
  CHECK(cache.stats().inserts == 3);
  cache.clear();
  CHECK(cache.stats().entries == 0);
  CHECK(cache.stats().bytes == 0);
}

TEST_CASE("least recently used entries are evicted under the byte limit", "[prefix_cache]") {
  auto m = tiny();
  const uint32_t V = static_cast<uint32_t>(m->config().vocab);
  PrefixCacheParams p;
  p.max_bytes = 3 * PrefixCache::entry_bytes(*m, 8, false) + 100;  // room for three entries
  PrefixCache cache(p);
  std::vector<std::vector<uint32_t>> prompts;
  for (uint32_t k = 0; k < 4; ++k) prompts.push_back(tokens_of(8, 10 + k, V));
  for (int k = 0; k < 3; ++k) cache.warm(*m, prompts[k].data(), 8);
  State touch(*m);
  REQUIRE(cache.restore(*m, touch, prompts[0].data(), 8, nullptr) == 8);  // 0 most recent
  cache.warm(*m, prompts[3].data(), 8);                                   // evicts 1
  const PrefixCacheStats st = cache.stats();
  CHECK(st.entries == 3);
  CHECK(st.evictions == 1);
  CHECK(st.bytes <= p.max_bytes);
  for (int k : {0, 2, 3}) {
    State s(*m);
    CHECK(cache.restore(*m, s, prompts[k].data(), 8, nullptr) == 8);
  }
  State s1(*m);
  CHECK(cache.restore(*m, s1, prompts[1].data(), 8, nullptr) == 0);

  PrefixCacheParams tiny_budget;
  tiny_budget.max_bytes = 1000;  // smaller than any entry: nothing is stored
  PrefixCache none(tiny_budget);
  none.warm(*m, prompts[0].data(), 8);
  CHECK(none.stats().entries == 0);
  CHECK(none.stats().inserts == 0);
}

TEST_CASE("reserved and evicted memory is reused within the byte limit, contents exact",
          "[prefix_cache]") {
  auto m = tiny();
  const size_t spare = PrefixCache::entry_bytes(*m, 0, false);
  const size_t entry = PrefixCache::entry_bytes(*m, 8, false);
  PrefixCacheParams p;
  p.max_bytes = 3 * entry + 100;  // three entries, or three spares
  PrefixCache cache(p);
  CHECK(cache.reserve(*m, 0) == 0);
  REQUIRE(cache.reserve(*m, 5) == 3);  // the bound counts spares
  CHECK(cache.stats().spare_bytes == 3 * spare);

  const Prefilled pf = prefilled(*m, 8, 40, 4);
  const auto& prompts = pf.prompts;
  for (size_t k = 0; k < 3; ++k) {  // each insert takes a spare: the total stays put
    REQUIRE(cache.warm(*m, prompts[k].data(), 8) == 8);
    const PrefixCacheStats st = cache.stats();
    CHECK(st.spare_bytes == (2 - k) * spare);
    CHECK(st.bytes == (k + 1) * entry);
  }
  REQUIRE(cache.warm(*m, prompts[3].data(), 8) == 8);  // full: prompt 0's memory is reused
  PrefixCacheStats st = cache.stats();
  CHECK(st.entries == 3);
  CHECK(st.evictions == 1);
  CHECK(st.spare_bytes == 0);
  CHECK(st.bytes <= p.max_bytes);
  for (size_t k = 1; k < 4; ++k) {  // every entry, in fresh, reserved or reused memory
    State s(*m);
    std::vector<float> got;
    REQUIRE(cache.restore(*m, s, prompts[k].data(), 8, &got) == 8);
    CHECK(same_bits(got, pf.logits[k]));
    CHECK(same_bits(std::vector<float>(s.data(), s.data() + s.size()), pf.floats[k]));
  }

  // clear() drops spares too; a bound below one entry sets nothing aside.
  REQUIRE(cache.reserve(*m, 1) == 0);  // the entries fill the bound
  cache.clear();
  CHECK(cache.reserve(*m, 2) == 2);
  cache.clear();
  st = cache.stats();
  CHECK(st.spare_bytes == 0);
  CHECK(st.entries == 0);
  PrefixCacheParams small;
  small.max_bytes = 1000;
  PrefixCache none(small);
  CHECK(none.reserve(*m, 4) == 0);
  CHECK(none.stats().spare_bytes == 0);
}

TEST_CASE("spares of another model make room, and bf16 spares restore like fresh memory",
          "[prefix_cache]") {
  auto a = tiny();
  auto b = rand_model();
  const auto t = tokens_of(12, 5, 200);  // within both vocabularies
  PrefixCacheParams p;
  p.max_bytes = 2 * PrefixCache::entry_bytes(*a, 0, false) + 64;
  PrefixCache cache(p);
  REQUIRE(cache.reserve(*a, 2) == 2);
  REQUIRE(PrefixCache::entry_bytes(*b, 12, false) <= p.max_bytes);
  REQUIRE(cache.warm(*b, t.data(), 12) == 12);  // frees a's spares as it needs
  PrefixCacheStats st = cache.stats();
  CHECK(st.entries == 1);
  CHECK(st.bytes + st.spare_bytes <= p.max_bytes);
  CHECK(st.spare_bytes < 2 * PrefixCache::entry_bytes(*a, 0, false));
  State full(*b), hit(*b);
  const std::vector<float> expected = prefill(*b, full, t, 0, 12);
  std::vector<float> got;
  REQUIRE(cache.restore(*b, hit, t.data(), 12, &got) == 12);
  CHECK(same_bits(got, expected));
  CHECK(std::memcmp(hit.data(), full.data(), full.size() * 4) == 0);

  // bf16: a State stored in reserved memory restores exactly as one stored in fresh memory.
  PrefixCacheParams h;
  h.compress_bf16 = true;
  PrefixCache reserved(h), fresh(h);
  REQUIRE(reserved.reserve(*b, 1) == 1);
  CHECK(reserved.stats().spare_bytes == PrefixCache::entry_bytes(*b, 0, true));
  reserved.warm(*b, t.data(), 12);
  fresh.warm(*b, t.data(), 12);
  CHECK(reserved.stats().spare_bytes == 0);
  State r(*b), f(*b);
  REQUIRE(reserved.restore(*b, r, t.data(), 12, nullptr) == 12);
  REQUIRE(fresh.restore(*b, f, t.data(), 12, nullptr) == 12);
  CHECK(std::memcmp(r.data(), f.data(), f.size() * 4) == 0);
}

TEST_CASE("States and entries of other models are refused or invisible", "[prefix_cache]") {
  auto a = tiny();
  auto b = rand_model();
  const auto t = tokens_of(20, 3, 200);  // within both vocabularies (256, 512)
  PrefixCache cache;
  cache.warm(*a, t.data(), t.size());
  // One cache serves both models; entries of one are invisible to the other.
  State sb(*b);
  CHECK(cache.restore(*b, sb, t.data(), t.size(), nullptr) == 0);
  CHECK(sb.pristine());
  // A State of another model than the one named: MismatchError.
  State sa(*a);
  CHECK_THROWS_AS(cache.restore(*b, sa, t.data(), t.size(), nullptr), MismatchError);
  std::vector<float> logits(static_cast<size_t>(a->config().vocab));
  CHECK_THROWS_AS(cache.insert(*b, sa, t.data(), t.size(), logits.data()), MismatchError);
  // Not pristine: tokens would be relative to the State's content.
  State used(*a);
  prefill(*a, used, t, 0, 2);
  CHECK_FALSE(used.pristine());
  CHECK_THROWS_AS(cache.restore(*a, used, t.data(), t.size(), nullptr), InvalidArgument);
  used.reset();
  CHECK(used.pristine());
  CHECK(cache.restore(*a, used, t.data(), t.size(), nullptr) == t.size());
  // Bad input.
  CHECK_THROWS_AS(cache.insert(*a, sa, t.data(), 0, logits.data()), InvalidArgument);
  CHECK_THROWS_AS(cache.insert(*a, sa, t.data(), 3, nullptr), InvalidArgument);
  CHECK_THROWS_AS(cache.warm(*a, t.data(), 0), InvalidArgument);
  std::vector<uint32_t> bad = {1, 2, 70000};
  CHECK_THROWS_WITH(cache.warm(*a, bad.data(), bad.size()),
                    Catch::Contains("token 70000 at position 2"));
}

TEST_CASE("pristine follows construction, reset, clone, forward and load", "[prefix_cache]") {
  auto m = tiny();
  State s(*m);
  CHECK(s.pristine());
  State c = s.clone();
  CHECK(c.pristine());
  const std::vector<uint8_t> fresh = s.serialize();
  CHECK_FALSE(State::deserialize(*m, fresh.data(), fresh.size()).pristine());
  const uint32_t tok = 5;
  forward(*m, s, &tok, 1, nullptr);
  CHECK_FALSE(s.pristine());
  CHECK_FALSE(s.clone().pristine());
  s.sampler().set_seed(7);  // the sampler state does not count
  s.reset();
  CHECK(s.pristine());
  s.sampler().set_seed(8);
  CHECK(s.pristine());
}

TEST_CASE("bf16 compression halves the State bytes within a measured logit error",
          "[prefix_cache]") {
  // docs/prefix-cache.md "Compression" states the values measured here.
  for (const char* file :
       {"models/tiny-rwkv-7v0-834K-FP32.bin", "models/rand-rwkv7-c128-l3-v512-FP32.bin"}) {
    auto m = Model::load(shared_path(file));
    const uint32_t V = static_cast<uint32_t>(m->config().vocab);
    const auto t = tokens_of(96, 4, V);
    PrefixCacheParams p;
    p.compress_bf16 = true;
    PrefixCache cache(p);
    cache.warm(*m, t.data(), 64);
    CHECK(cache.stats().bytes == PrefixCache::entry_bytes(*m, 64, true));
    CHECK(PrefixCache::entry_bytes(*m, 64, true) ==
          PrefixCache::entry_bytes(*m, 64, false) - 2 * m->config().state_floats());

    State full(*m);
    const std::vector<float> at64 = prefill(*m, full, t, 0, 64);
    const std::vector<float> next_full = prefill(*m, full, t, 64, 65);
    const std::vector<float> end_full = prefill(*m, full, t, 65, 96);
    State s(*m);
    std::vector<float> logits;
    REQUIRE(cache.restore(*m, s, t.data(), t.size(), &logits) == 64);
    CHECK(same_bits(logits, at64));  // the stored logits are never compressed
    const double d1 =
        ai00::test::max_abs_diff(prefill(*m, s, t, 64, 65).data(), next_full.data(), V);
    const double d32 =
        ai00::test::max_abs_diff(prefill(*m, s, t, 65, 96).data(), end_full.data(), V);
    INFO(file << ": max |logit diff| after a bf16 restore, 1 token " << d1 << ", 32 tokens "
              << d32);
    CHECK(d1 > 0.0);
    CHECK(d1 < 5e-3);
    CHECK(d32 < 5e-3);
  }
}

TEST_CASE("threads share one cache", "[prefix_cache][concurrency]") {
  auto m = tiny();
  PrefixCacheParams p;
  p.max_bytes = 6 * PrefixCache::entry_bytes(*m, 24, false);  // forces evictions
  auto cache = std::make_shared<PrefixCache>(p);
  const Prefilled pf = prefilled(*m, 24, 20, 8);
  const auto& prompts = pf.prompts;
  const auto &expected = pf.logits, &states = pf.floats;
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int th = 0; th < 4; ++th) {
    threads.emplace_back([&, th] {
      for (int it = 0; it < 12; ++it) {
        const size_t k = static_cast<size_t>((th * 3 + it) % 8);
        State s(*m);
        std::vector<float> logits;
        if (th == 0 && it % 4 == 0) cache->reserve(*m, 2);  // spares come and go meanwhile
        if (th == 1 && it == 6) cache->clear();
        size_t got = cache->restore(*m, s, prompts[k].data(), 24, &logits);
        if (got == 0) {
          logits = prefill(*m, s, prompts[k], 0, 24);
          cache->insert(*m, s, prompts[k].data(), 24, logits.data());
        }
        if (!same_bits(logits, expected[k])) ++wrong[static_cast<size_t>(th)];
        if (got != 0 && std::memcmp(s.data(), states[k].data(), states[k].size() * 4) != 0)
          ++wrong[static_cast<size_t>(th)];
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int w : wrong) CHECK(w == 0);
  const PrefixCacheStats st = cache->stats();
  CHECK(st.hits + st.misses == 48);
  CHECK(st.bytes + st.spare_bytes <= p.max_bytes);
  CHECK(st.entries <= 6);
  CHECK(st.inserts >= st.entries);
}
