#include "base/utf8.h"

#include <cstring>

namespace ai00::internal::utf8 {
namespace {

enum class Kind { valid, invalid, incomplete };
struct Step {
  Kind kind;
  size_t len;  // valid: character length; invalid: maximal subpart; incomplete: bytes present
};

// Classifies the sequence starting at p[0] (avail >= 1 bytes available). The allowed range of
// the second byte depends on the lead byte (Unicode table 3-7); that is what rules out overlong
// forms (E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and code points above U+10FFFF (F4 90..).
inline Step step(const uint8_t* p, size_t avail) {
  const uint8_t c = p[0];
  if (c < 0x80) return {Kind::valid, 1};
  size_t need;
  uint8_t lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return {Kind::invalid, 1};  // 80..C1 (continuation or overlong lead), F5..FF
  }
  for (size_t k = 1; k < need; ++k) {
    if (k >= avail) return {Kind::incomplete, k};
    const uint8_t b = p[k];
    if (b < lo || b > hi) return {Kind::invalid, k};
    lo = 0x80;
    hi = 0xBF;
  }
  return {Kind::valid, need};
}

// Number of leading ASCII bytes in p[i..n), checked 8 at a time (the common case for text).
inline size_t skip_ascii(const uint8_t* p, size_t i, size_t n) {
  while (i + 8 <= n) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w & 0x8080808080808080ull) break;
    i += 8;
  }
  while (i < n && p[i] < 0x80) ++i;
  return i;
}

// Shared loop of append_sanitized / append_sanitized_complete; returns bytes consumed.
size_t sanitize_impl(std::string_view s, std::string& out, bool at_end) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t run = 0;  // start of the pending run of well-formed bytes
  size_t i = 0;
  while (true) {
    i = skip_ascii(p, i, n);
    if (i >= n) break;
    const Step st = step(p + i, n - i);
    if (st.kind == Kind::valid) {
      i += st.len;
      continue;
    }
    out.append(s.data() + run, i - run);
    if (st.kind == Kind::incomplete && !at_end) return i;  // hold the tail back
    out.append(kReplacement);
    i += st.len;
    run = i;
  }
  out.append(s.data() + run, n - run);
  return n;
}

}  // namespace

size_t valid_prefix_len(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (true) {
    i = skip_ascii(p, i, n);
    if (i >= n) return n;
    const Step st = step(p + i, n - i);
    if (st.kind != Kind::valid) return i;
    i += st.len;
  }
}

bool is_valid(std::string_view s) { return valid_prefix_len(s) == s.size(); }

size_t complete_prefix_len(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  // The held-back tail, if any, starts at the last non-continuation byte among the last three.
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const uint8_t c = p[n - back];
    if ((c & 0xC0) == 0x80) continue;
    const Step st = step(p + n - back, back);
    return st.kind == Kind::incomplete && st.len == back ? n - back : n;
  }
  return n;
}

void append_sanitized(std::string_view s, std::string& out) { sanitize_impl(s, out, true); }

size_t append_sanitized_complete(std::string_view s, std::string& out) {
  return sanitize_impl(s, out, false);
}

std::string sanitize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  sanitize_impl(s, out, true);
  return out;
}

bool append_code_point(uint32_t cp, std::string& out) {
  char b[4];
  size_t n;
  if (cp < 0x80) {
    b[0] = static_cast<char>(cp);
    n = 1;
  } else if (cp < 0x800) {
    b[0] = static_cast<char>(0xC0 | (cp >> 6));
    b[1] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    b[0] = static_cast<char>(0xE0 | (cp >> 12));
    b[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    b[2] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 3;
  } else if (cp <= 0x10FFFF) {
    b[0] = static_cast<char>(0xF0 | (cp >> 18));
    b[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    b[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    b[3] = static_cast<char>(0x80 | (cp & 0x3F));
    n = 4;
  } else {
    return false;
  }
  out.append(b, n);
  return true;
}

size_t encoded_length(uint32_t cp) {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : cp <= 0x10FFFF ? 4 : 0;
}

size_t decode_one(std::string_view s, uint32_t* cp) {
  if (s.empty()) return 0;
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const Step st = step(p, s.size());
  if (st.kind != Kind::valid) return 0;
  static const uint8_t kLeadMask[5] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  uint32_t v = p[0] & kLeadMask[st.len];
  for (size_t k = 1; k < st.len; ++k) v = (v << 6) | (p[k] & 0x3F);
  if (cp) *cp = v;
  return st.len;
}

void Holdback::feed(std::string_view chunk, std::string& out) {
  if (held_.empty()) {
    const size_t used = append_sanitized_complete(chunk, out);
    held_.assign(chunk.data() + used, chunk.size() - used);
    return;
  }
  held_.append(chunk.data(), chunk.size());
  const size_t used = append_sanitized_complete(held_, out);
  held_.erase(0, used);
}

std::string Holdback::feed(std::string_view chunk) {
  std::string out;
  feed(chunk, out);
  return out;
}

void Holdback::flush(std::string& out) {
  append_sanitized(held_, out);
  held_.clear();
}

std::string Holdback::flush() {
  std::string out;
  flush(out);
  return out;
}

}  // namespace ai00::internal::utf8
