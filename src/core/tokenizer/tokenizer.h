// The RWKV "World" tokenizer (docs/model.md "The RWKV World tokenizer"): greedy longest match over
// bytes.
//
// Ownership and threading: a Tokenizer is immutable after construction and handed out as
// std::shared_ptr<const Tokenizer>; the Model keeps one and any number of threads may call its
// const methods at once. A StreamDecoder is per sequence (not thread-safe) and keeps the
// tokenizer alive through its shared_ptr.
//
// Vocabulary: id 0 is "end of text" (never produced by encode, stops decode, has no bytes).
// Ids 1..vocab_size()-1 map to byte strings; some may have no text (GGUF CONTROL/PAD entries,
// ids >= 256 of a wide byte-level vocabulary) and decode to nothing. A model may have more
// embedding rows than vocab_size() (a G1 model has 65536, the txt vocab ends at id 65529):
// such ids are out of range here, so samplers must never pick them. In the World vocab every
// single byte is a token (id = byte + 1), so any byte string — valid UTF-8 or not — encodes; a
// vocabulary lacking some single byte loads, but encode() throws InvalidArgument (naming the byte
// offset) for an input it cannot cover.
//
// Text and bytes: encode() takes arbitrary bytes. decode() returns the RAW bytes of the tokens
// (possibly invalid UTF-8). decode_text() and StreamDecoder return VALID UTF-8 only: a byte
// sequence that can never become a valid character is replaced by U+FFFD (one per maximal
// ill-formed subpart, the Unicode/WHATWG practice, same as Python's errors="replace"), so text
// crossing the C ABI is always valid UTF-8. The streaming decoder holds back an incomplete but
// still-valid trailing sequence until the next token completes it or flush() is called.
//
// Errors: loaders throw ModelFileError naming the file (or "GGUF tokenizer.ggml.tokens"), the line
// number / entry index and what was wrong; IoError when a file cannot be read. decode() and
// StreamDecoder::push() throw InvalidArgument for an id >= vocab_size(), naming the id and its
// position. Nothing aborts or prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/utf8.h"

namespace ai00::internal {

class Tokenizer {
 public:
  // Loads rwkv_vocab_v20230424.txt (lines `ID LITERAL LENGTH`, Python str/bytes literals) or the
  // ai00_server JSON form ({"ID": "text" | [byte, ...], ...}); the format is detected from the
  // content (first non-blank byte '{' means JSON). Ids must be 1..N, contiguous and unique (txt:
  // in file order), token bytes unique; a JSON entry "0" is ignored (id 0 never has text).
  // vocab_size() = N + 1. Throws IoError / ModelFileError.
  static std::shared_ptr<const Tokenizer> from_vocab_file(const std::string& path);
  // Same as from_vocab_file on bytes already in memory; `name` is used in error messages.
  static std::shared_ptr<const Tokenizer> from_vocab_bytes(std::string_view content,
                                                           const std::string& name);
  // From a GGUF file's `tokenizer.ggml.tokens` / `tokenizer.ggml.token_type` arrays
  // (docs/weight-files.md "GGUF"): entries are escaped byte strings (\t \n \r \xHH un-escaped, any
  // other escaped char taken literally). Type 3 (CONTROL, e.g. index 0 "<s>") and 5 (UNUSED,
  // "[PAD{i}]") entries have no text. `types` may be empty (then index 0 is control, all others are
  // text). vocab_size() = tokens.size(). Throws ModelFileError naming the entry index and, when
  // `path` and `offsets` (file offset of each entry's first byte) are given, the file and the
  // byte offset of the bad escape.
  static std::shared_ptr<const Tokenizer> from_gguf(const std::vector<std::string>& tokens,
                                                    const std::vector<int32_t>& types,
                                                    const std::string& path = {},
                                                    const std::vector<uint64_t>& offsets = {});
  // Identity byte vocabulary for byte-level models (e.g. the tiny fixture, vocab 256):
  // id b (1..255) is the byte b; id 0 is end of text, so the byte 0x00 cannot be encoded and
  // encode() throws InvalidArgument for it. ids >= 256 (if vocab_size > 256) have no text.
  // Throws InvalidArgument if vocab_size < 256. Every call for 256 returns the same instance.
  static std::shared_ptr<const Tokenizer> byte_level(size_t vocab_size);

  // Greedy longest match over `bytes`; never returns 0. Any byte string encodes (World vocab).
  std::vector<uint32_t> encode(std::string_view bytes) const;
  // Same, appending to `out` (no per-call allocation when `out` has capacity). On error `out`
  // is left as it was.
  void encode_append(std::string_view bytes, std::vector<uint32_t>& out) const;

  // Concatenated raw bytes of ids[0..n), stopping at the first id 0. Unknown id (>= vocab_size)
  // -> InvalidArgument naming the id and its position. Ids without text decode to nothing.
  std::string decode(const uint32_t* ids, size_t n) const;
  std::string decode(const std::vector<uint32_t>& ids) const {
    return decode(ids.data(), ids.size());
  }
  // Appends the raw bytes to `out`; returns the number of ids consumed (n, or the index of the
  // first 0 token, which is not consumed).
  size_t decode_append(const uint32_t* ids, size_t n, std::string& out) const;
  // decode() then replace ill-formed UTF-8 by U+FFFD: always valid UTF-8.
  std::string decode_text(const uint32_t* ids, size_t n) const;

  // Number of ids, including id 0 (e.g. 65530 for the txt World vocab, 65536 for a G1 GGUF).
  size_t vocab_size() const { return offsets_.size() - 1; }
  // Bytes of one token; empty for id 0, ids without text and ids >= vocab_size(). The view
  // points into the tokenizer and lives as long as it.
  std::string_view token_bytes(uint32_t id) const {
    if (id >= offsets_.size() - 1) return {};
    return std::string_view(pool_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]);
  }
  // Length in bytes of the longest token.
  size_t max_token_len() const { return max_len_; }
  // The id of a token with exactly these bytes, or 0 if there is none.
  uint32_t find(std::string_view bytes) const;

  // Internal: built by the loaders (vocab_parse.cpp). `entries[i]` holds the bytes of id i; an
  // empty entry has no text. Throws ModelFileError (with `name`) when two ids have the same bytes.
  static std::shared_ptr<const Tokenizer> build(const std::vector<std::string_view>& entries,
                                                const std::string& name);

  struct Node;  // double-array trie slot (tokenizer.cpp)
  struct Best;  // longest token ending at or above a trie state
  ~Tokenizer();

 private:
  Tokenizer();
  size_t decode_total_len(const uint32_t* ids, size_t n, size_t* consumed) const;

  std::string pool_;               // all token bytes back to back, plus 16 bytes of padding
  std::vector<uint32_t> offsets_;  // [vocab_size + 1]: token i is pool_[offsets_[i], offsets_[i+1])
  std::vector<Node> trie_;         // double-array trie over the token bytes
  std::vector<Best> best_;         // per trie slot: the greedy match when the walk stops there
  std::unique_ptr<uint32_t[]> first2_;  // [65536]: state after the first two bytes (tokenizer.cpp)
  size_t max_len_ = 0;
};

// Incremental detokenizer for one sequence: push ids one by one and get back only complete,
// valid UTF-8 text (ill-formed bytes become U+FFFD, see above). Concatenating every piece
// returned by push() and flush() equals decode_text() of the same ids, wherever the pieces were
// split. Not thread-safe; cheap to create; copyable (copies the pending bytes).
class StreamDecoder {
 public:
  explicit StreamDecoder(std::shared_ptr<const Tokenizer> tokenizer);

  // Appends the text completed by `id` to `out`. Returns false when `id` is 0 (end of text): then
  // the pending bytes are flushed into `out` and ended() becomes true; the next push starts a new
  // text. Unknown id -> InvalidArgument naming the id and its position (ids pushed so far).
  bool push(uint32_t id, std::string& out);
  // Convenience form returning the completed text (for id 0: the flushed pending bytes).
  std::string push(uint32_t id);
  // Emits the held-back bytes (an incomplete sequence becomes U+FFFD) and clears them.
  void flush(std::string& out);
  std::string flush();

  bool ended() const { return ended_; }                           // the last push was token 0
  size_t pending_bytes() const { return pending_.held_bytes(); }  // held back, at most 3
  size_t position() const { return position_; }                   // number of ids pushed
  void reset();                                                   // forget pending bytes and state

 private:
  std::shared_ptr<const Tokenizer> tok_;
  utf8::Holdback pending_;  // an incomplete but still-valid UTF-8 prefix (0..3 bytes)
  size_t position_ = 0;
  bool ended_ = false;
};

}  // namespace ai00::internal