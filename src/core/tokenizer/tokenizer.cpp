// Tokenizer core: the byte pool, the double-array trie, greedy encode, decode and StreamDecoder.
// The vocabulary loaders (txt, JSON, GGUF, byte-level) are in vocab_parse.cpp.
//
// Encode is a walk in a double-array trie (Aoe 1989, as in darts / darts-clone): the child of
// state s on byte c is slot t = base[s] + c iff check[t] == s. A parallel array gives, per state,
// the id and length of the deepest token on the path from the root ("best"), so greedy longest
// match is: walk as far as the trie allows, then emit best and advance by its length — no
// backtracking bookkeeping. A 64K table keyed by the first two input bytes replaces the two
// hottest steps. (Tried and dropped, no gain measured: 16-byte slots holding best inline, a
// direct-mapped 3-byte table, and two interleaved walkers; the cost is one mispredicted loop exit
// per token, not memory.)
#include "core/tokenizer/tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>

#include "base/error.h"
#include "base/utf8.h"

namespace ai00::internal {

struct Tokenizer::Node {
  uint32_t base;   // children of this state live at base + byte
  uint32_t check;  // parent state of this slot; kFree if the slot is unused
};

struct Tokenizer::Best {
  uint32_t id;   // deepest token on the root..state path (0 if none)
  uint32_t len;  // its length in bytes (0 if none)
};

namespace {

constexpr uint32_t kFree = 0xFFFFFFFFu;
constexpr uint32_t kRootCheck = 0xFFFFFFFEu;  // slot 0 is the root; no state may claim it
constexpr size_t kPoolPad = 16;               // decode copies 16-byte chunks past a token's end

struct Key {
  std::string_view bytes;
  uint32_t id;
};

// One pending trie state during construction: the keys [lo, hi) share its depth-byte prefix.
struct Work {
  uint32_t state, lo, hi, depth;
};

// Double-array builder: slot placement with a doubly linked free list (first fit).
class TrieBuilder {
 public:
  explicit TrieBuilder(std::vector<Tokenizer::Node>& nodes) : nodes_(nodes) {
    grow(1024);
    take(0);
    nodes_[0].check = kRootCheck;
  }

  // A base >= 0 such that base + label is free for every label (labels ascending): first fit
  // over the free list, but a state with several children gives up after kMaxTries free slots
  // and goes to the never-used region above the high-water mark. Without that cap, first fit
  // costs ~300 probes per such state on the World vocab (40 ms); the holes it leaves behind are
  // filled by the far more numerous single-child states.
  uint32_t find_base(const uint8_t* labels, size_t k) {
    constexpr int kMaxTries = 16;
    int tries = 0;
    for (uint32_t p = head_; p != kFree && (k == 1 || tries < kMaxTries); p = next_[p]) {
      if (p < labels[0]) continue;
      ++tries;
      const uint32_t base = p - labels[0];
      bool ok = true;
      for (size_t j = 1; j < k && ok; ++j) ok = slot_free(base + labels[j]);
      if (ok) return reserve(base);
    }
    return reserve(std::max<uint32_t>(high_water_, labels[0]) - labels[0]);
  }

  void take(uint32_t slot) {  // remove `slot` from the free list
    high_water_ = std::max(high_water_, slot + 1);
    const uint32_t pv = prev_[slot], nx = next_[slot];
    if (pv == kFree)
      head_ = nx;
    else
      next_[pv] = nx;
    if (nx != kFree)
      prev_[nx] = pv;
    else
      tail_ = pv;
    next_[slot] = prev_[slot] = kFree;
  }

  // Pads the array so that base + 255 is always in range for every state's base.
  void finish(uint32_t max_base) {
    if (nodes_.size() < size_t(max_base) + 256) grow(size_t(max_base) + 256);
  }

 private:
  bool slot_free(uint32_t slot) const {
    return slot >= nodes_.size() || nodes_[slot].check == kFree;
  }

  // Makes sure every child slot base + 0..255 exists (new slots are free).
  uint32_t reserve(uint32_t base) {
    if (size_t(base) + 256 > nodes_.size()) grow(std::max(nodes_.size() * 2, size_t(base) + 512));
    return base;
  }

  void grow(size_t n) {
    const size_t old = nodes_.size();
    nodes_.resize(n, Tokenizer::Node{0, kFree});
    next_.resize(n, kFree);
    prev_.resize(n, kFree);
    for (size_t i = old; i < n; ++i) {  // append [old, n) to the free list in order
      const auto s = static_cast<uint32_t>(i);
      prev_[s] = tail_;
      if (tail_ == kFree)
        head_ = s;
      else
        next_[tail_] = s;
      tail_ = s;
    }
  }

  std::vector<Tokenizer::Node>& nodes_;
  std::vector<uint32_t> next_, prev_;
  uint32_t head_ = kFree, tail_ = kFree;
  uint32_t high_water_ = 0;  // every slot at or above it has never been used
};

inline uint8_t byte_at(std::string_view s, size_t i) { return static_cast<uint8_t>(s[i]); }

[[noreturn]] void throw_bad_id(uint32_t id, size_t pos, size_t vocab) {
  throw InvalidArgument("token id " + std::to_string(id) + " at position " + std::to_string(pos) +
                        " is out of range (vocabulary size " + std::to_string(vocab) + ")");
}

void build_double_array(std::vector<Tokenizer::Node>& trie, std::vector<Tokenizer::Best>& best,
                        const Key* keys, size_t n_keys, const std::string& name);
void build_first2(const std::vector<Tokenizer::Node>& trie, const std::vector<Key>& keys,
                  std::unique_ptr<uint32_t[]>& first2);

// Lexicographic sort of the keys (the trie builder needs ascending labels at every depth): a
// counting sort on the first two bytes, then std::sort inside each small bucket. Twice as fast as
// one std::sort over 65K keys, which matters for the 30 ms load budget. Below kBucketMin keys a
// plain std::sort wins: the buckets cost two 257 KB tables and 130K steps whatever the count
// (a byte-level or small GGUF vocabulary, loaded with every model).
void sort_keys(std::vector<Key>& keys) {
  constexpr size_t kBucketMin = 4096;
  if (keys.size() < kBucketMin) {
    std::sort(keys.begin(), keys.end(),
              [](const Key& x, const Key& y) { return x.bytes < y.bytes; });
    return;
  }
  // Bucket b0 * 257 + 0 holds the one-byte key b0; b0 * 257 + 1 + b1 the keys starting b0 b1.
  constexpr size_t kBuckets = 256 * 257;
  auto bucket = [](std::string_view k) {
    const size_t b0 = static_cast<uint8_t>(k[0]);
    return b0 * 257 + (k.size() == 1 ? 0 : 1 + static_cast<uint8_t>(k[1]));
  };
  std::vector<uint32_t> start(kBuckets + 1, 0);
  for (const Key& k : keys) ++start[bucket(k.bytes) + 1];
  for (size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
  std::vector<Key> sorted(keys.size());
  std::vector<uint32_t> fill(start.begin(), start.end() - 1);
  for (const Key& k : keys) sorted[fill[bucket(k.bytes)]++] = k;
  for (size_t b = 0; b < kBuckets; ++b) {
    if (start[b + 1] - start[b] < 2) continue;
    std::sort(sorted.begin() + start[b], sorted.begin() + start[b + 1],
              [](const Key& x, const Key& y) { return x.bytes < y.bytes; });
  }
  keys.swap(sorted);
}

[[noreturn]] void throw_unencodable(uint8_t byte, size_t offset) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", byte);
  throw InvalidArgument("cannot encode byte " + std::string(hex) + " at offset " +
                        std::to_string(offset) + ": the vocabulary has no token for it");
}

}  // namespace

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

std::shared_ptr<const Tokenizer> Tokenizer::build(const std::vector<std::string_view>& entries,
                                                  const std::string& name) {
  if (entries.empty()) throw ModelFileError(name + ": the vocabulary is empty");
  if (entries.size() > 0xFFFFFFF0u) throw ModelFileError(name + ": the vocabulary is too large");
  std::shared_ptr<Tokenizer> tok(new Tokenizer());
  // Byte pool and offsets: decode memcpy's straight out of one contiguous buffer.
  size_t total = 0;
  for (size_t i = 1; i < entries.size(); ++i) total += entries[i].size();
  if (total > 0xFFFFFFF0u) throw ModelFileError(name + ": the vocabulary text is too large");
  tok->pool_.reserve(total + kPoolPad);
  tok->offsets_.resize(entries.size() + 1);
  tok->offsets_[0] = 0;
  tok->offsets_[1] = 0;  // id 0 never has text
  std::vector<Key> keys;
  keys.reserve(entries.size());
  for (size_t i = 1; i < entries.size(); ++i) {
    tok->pool_.append(entries[i]);
    tok->offsets_[i + 1] = static_cast<uint32_t>(tok->pool_.size());
    tok->max_len_ = std::max(tok->max_len_, entries[i].size());
  }
  tok->pool_.append(kPoolPad, '\0');  // within the reserved capacity: views stay valid
  for (size_t i = 1; i < entries.size(); ++i) {
    if (!entries[i].empty()) keys.push_back({tok->token_bytes(uint32_t(i)), uint32_t(i)});
  }
  sort_keys(keys);
  build_double_array(tok->trie_, tok->best_, keys.data(), keys.size(), name);
  build_first2(tok->trie_, keys, tok->first2_);
  return tok;
}

namespace {

void build_double_array(std::vector<Tokenizer::Node>& trie_, std::vector<Tokenizer::Best>& best_,
                        const Key* keys, size_t n_keys, const std::string& name) {
  using Node = Tokenizer::Node;
  using Best = Tokenizer::Best;
  TrieBuilder b(trie_);
  best_.assign(trie_.size(), Best{0, 0});
  std::deque<Work> queue;
  queue.push_back({0, 0, static_cast<uint32_t>(n_keys), 0});
  uint8_t labels[256];
  uint32_t ranges[257];
  uint32_t max_base = 0;
  while (!queue.empty()) {
    const Work w = queue.front();
    queue.pop_front();
    uint32_t i = w.lo;
    if (i < w.hi && keys[i].bytes.size() == w.depth) {  // this state is itself a token
      if (i + 1 < w.hi && keys[i + 1].bytes.size() == w.depth) {
        const uint32_t a = std::min(keys[i].id, keys[i + 1].id),
                       b = std::max(keys[i].id, keys[i + 1].id);
        throw ModelFileError(name + ": ids " + std::to_string(a) + " and " + std::to_string(b) +
                             " have the same bytes");
      }
      best_[w.state] = Best{keys[i].id, w.depth};
      ++i;
    }
    size_t k = 0;  // group the remaining keys by their byte at `depth`
    while (i < w.hi) {
      const uint8_t c = byte_at(keys[i].bytes, w.depth);
      labels[k] = c;
      ranges[k++] = i;
      while (i < w.hi && byte_at(keys[i].bytes, w.depth) == c) ++i;
    }
    ranges[k] = w.hi;
    if (k == 0) continue;
    const uint32_t base = b.find_base(labels, k);
    max_base = std::max(max_base, base);
    trie_[w.state].base = base;
    if (best_.size() < trie_.size()) best_.resize(trie_.size(), Best{0, 0});
    const Best parent = best_[w.state];
    for (size_t j = 0; j < k; ++j) {
      const uint32_t t = base + labels[j];
      b.take(t);
      trie_[t] = Node{0, w.state};
      best_[t] = parent;
      queue.push_back({t, ranges[j], ranges[j + 1], w.depth + 1});
    }
  }
  b.finish(max_base);
  // first2_ packs a state index with 2 flag bits.
  if (trie_.size() >= (size_t(1) << 30))
    throw ModelFileError(name + ": the vocabulary is too large");
  best_.resize(trie_.size(), Best{0, 0});
}

void build_first2(const std::vector<Tokenizer::Node>& trie_, const std::vector<Key>& keys,
                  std::unique_ptr<uint32_t[]>& first2_) {
  // first2_[b0 << 8 | b1] = state << 2 | bytes consumed (0, 1 or 2) walking b0 b1 from the root.
  // Only rows whose first byte starts a longer key need the 256 child probes; the others are
  // one fill (a small vocabulary then builds in microseconds, not 65K probes).
  bool deeper[256] = {};
  for (const Key& k : keys)
    if (k.bytes.size() > 1) deeper[byte_at(k.bytes, 0)] = true;
  first2_.reset(new uint32_t[65536]());  // one memset (a vector fills element by element)
  for (uint32_t b0 = 0; b0 < 256; ++b0) {
    const uint32_t s1 = trie_[0].base + b0;
    if (trie_[s1].check != 0) continue;  // no path: the row stays 0
    uint32_t* row = first2_.get() + (b0 << 8);
    std::fill(row, row + 256, s1 << 2 | 1);
    if (!deeper[b0]) continue;
    for (uint32_t b1 = 0; b1 < 256; ++b1) {
      const uint32_t s2 = trie_[s1].base + b1;
      if (trie_[s2].check == s1) row[b1] = s2 << 2 | 2;
    }
  }
}

}  // namespace

uint32_t Tokenizer::find(std::string_view bytes) const {
  if (bytes.empty()) return 0;
  uint32_t s = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint32_t t = trie_[s].base + byte_at(bytes, i);
    if (trie_[t].check != s) return 0;
    s = t;
  }
  return best_[s].len == bytes.size() ? best_[s].id : 0;
}

std::vector<uint32_t> Tokenizer::encode(std::string_view bytes) const {
  std::vector<uint32_t> out;
  encode_append(bytes, out);
  return out;
}

void Tokenizer::encode_append(std::string_view bytes, std::vector<uint32_t>& out) const {
  const auto* const begin = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint8_t* const end = begin + bytes.size();
  const Node* const trie = trie_.data();
  const uint32_t* const first2 = first2_.get();
  const Best* const best = best_.data();
  // Ids go through a small stack buffer: appending a block costs 4 bytes per token, where
  // resizing `out` ahead would zero-fill 4 bytes per input byte.
  uint32_t buf[1024];
  size_t nbuf = 0;
  const size_t initial = out.size();  // restored on error: `out` is unchanged then
  const uint8_t* q = begin;
  while (q < end) {
    uint32_t s;
    if (q + 1 < end) {
      const uint32_t e = first2[uint32_t(q[0]) << 8 | q[1]];
      s = e >> 2;
      if (e & 2) {  // the first two bytes are a trie path: walk as deep as the trie goes
        for (const uint8_t* r = q + 2; r < end; ++r) {
          const uint32_t t = trie[s].base + *r;
          if (trie[t].check != s) break;
          s = t;
        }
      }
    } else {
      const uint32_t t = trie[0].base + q[0];
      s = trie[t].check == 0 ? t : 0;
    }
    const Best b = best[s];
    if (b.len == 0) {
      out.resize(initial);
      throw_unencodable(*q, size_t(q - begin));
    }
    buf[nbuf++] = b.id;
    q += b.len;
    if (nbuf == 1024) {
      out.insert(out.end(), buf, buf + nbuf);
      nbuf = 0;
    }
  }
  out.insert(out.end(), buf, buf + nbuf);
}

size_t Tokenizer::decode_total_len(const uint32_t* ids, size_t n, size_t* consumed) const {
  const uint32_t* off = offsets_.data();
  const size_t vocab = vocab_size();
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t id = ids[i];
    if (id >= vocab) throw_bad_id(id, i, vocab);
    if (id == 0) {
      *consumed = i;
      return total;
    }
    total += off[id + 1] - off[id];
  }
  *consumed = n;
  return total;
}

size_t Tokenizer::decode_append(const uint32_t* ids, size_t n, std::string& out) const {
  size_t count = 0;
  const size_t total = decode_total_len(ids, n, &count);
  const size_t start = out.size();
  out.resize(start + total + kPoolPad);  // room for the last 16-byte over-copy
  char* dst = out.data() + start;
  const char* pool = pool_.data();
  const uint32_t* off = offsets_.data();
  for (size_t i = 0; i < count; ++i) {
    // Tokens are short: copy whole 16-byte chunks (the pool is padded), the next token
    // overwrites the excess. Ids were validated by decode_total_len.
    const uint32_t a = off[ids[i]], len = off[ids[i] + 1] - a;
    const char* src = pool + a;
    char* d = dst;
    for (uint32_t done = 0; done < len; done += 16) std::memcpy(d + done, src + done, 16);
    dst += len;
  }
  out.resize(start + total);
  return count;
}

std::string Tokenizer::decode(const uint32_t* ids, size_t n) const {
  std::string out;
  decode_append(ids, n, out);
  return out;
}

std::string Tokenizer::decode_text(const uint32_t* ids, size_t n) const {
  return utf8::sanitize(decode(ids, n));
}

// ---------------------------------------------------------------------------------------------
// StreamDecoder

StreamDecoder::StreamDecoder(std::shared_ptr<const Tokenizer> tokenizer)
    : tok_(std::move(tokenizer)) {
  AI00_CHECK(tok_ != nullptr, "StreamDecoder needs a tokenizer");
}

bool StreamDecoder::push(uint32_t id, std::string& out) {
  if (id >= tok_->vocab_size()) throw_bad_id(id, position_, tok_->vocab_size());
  ++position_;
  if (id == 0) {
    flush(out);
    ended_ = true;
    return false;
  }
  ended_ = false;
  const std::string_view bytes = tok_->token_bytes(id);
  pending_.feed(bytes, out);
  return true;
}

std::string StreamDecoder::push(uint32_t id) {
  std::string out;
  push(id, out);
  return out;
}

void StreamDecoder::flush(std::string& out) { pending_.flush(out); }

std::string StreamDecoder::flush() {
  std::string out;
  flush(out);
  return out;
}

void StreamDecoder::reset() {
  pending_ = utf8::Holdback();
  position_ = 0;
  ended_ = false;
}

}  // namespace ai00::internal