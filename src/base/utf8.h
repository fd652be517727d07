// UTF-8, in one place: validation, sanitizing (also streamed), decoding and encoding, used by the
// tokenizer, the format parsers, the grammar compiler and the C ABI.
//
// "Valid" means well-formed UTF-8 as in Unicode 15 table 3-7: no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF. Replacement follows the Unicode "maximal subpart"
// practice (also WHATWG and Python's errors="replace"): each maximal ill-formed subpart becomes
// exactly one U+FFFD, so the result does not depend on where a byte stream was split.
//
// All functions are pure, thread-safe and never throw (except std::bad_alloc). A Holdback is a
// plain value: one stream, one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ai00::internal::utf8 {

// U+FFFD REPLACEMENT CHARACTER, UTF-8 encoded.
inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// True if `s` is entirely well-formed UTF-8.
bool is_valid(std::string_view s);

// Length of the longest well-formed prefix of `s` (== s.size() iff is_valid(s)).
size_t valid_prefix_len(std::string_view s);

// Length of the prefix of `s` that does not end inside an incomplete but still completable
// sequence: the tail after it (0..3 bytes) is a proper prefix of some valid character, e.g.
// "\xE4\xBD" (first two bytes of U+4F60). Ill-formed bytes are never held back.
size_t complete_prefix_len(std::string_view s);

// Appends `s` to `out`, replacing each maximal ill-formed subpart by U+FFFD. A trailing
// incomplete sequence is replaced too (this is the end of the stream).
void append_sanitized(std::string_view s, std::string& out);

// Like append_sanitized, but stops before a trailing incomplete-but-completable sequence and
// returns the number of bytes of `s` consumed (s.size() minus 0..3). Feeding the unconsumed tail
// again in front of the next bytes gives the same output as sanitizing everything at once.
size_t append_sanitized_complete(std::string_view s, std::string& out);

// s with ill-formed subparts replaced (append_sanitized into a fresh string).
std::string sanitize(std::string_view s);

// Appends the UTF-8 encoding of code point `cp` (<= 0x10FFFF; surrogates are encoded as is,
// callers that need valid output must not pass them). Returns false (and appends nothing) for
// cp > 0x10FFFF.
bool append_code_point(uint32_t cp, std::string& out);

// Bytes of the UTF-8 encoding of `cp` (1..4; surrogates count 3), or 0 for cp > 0x10FFFF.
size_t encoded_length(uint32_t cp);

// Decodes one well-formed character at the start of `s`: returns its length (1..4) and stores the
// code point in *cp, or returns 0 if `s` does not start with a complete well-formed character.
size_t decode_one(std::string_view s, uint32_t* cp);

// Sanitizes a byte stream that arrives in pieces: passes on whole, valid code points only, and
// holds back a trailing incomplete-but-completable sequence (0..3 bytes) until the next piece
// decides. The concatenated output equals sanitize() of the concatenated input, however split.
class Holdback {
 public:
  // Appends the sanitized code points of held + chunk to `out`.
  void feed(std::string_view chunk, std::string& out);
  std::string feed(std::string_view chunk);
  // End of the stream: appends the held tail as U+FFFD (nothing if nothing is held).
  void flush(std::string& out);
  std::string flush();
  size_t held_bytes() const { return held_.size(); }

 private:
  std::string held_;
};

}  // namespace ai00::internal::utf8
