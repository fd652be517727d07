// Parsers for the three serialisations of the RWKV World vocabulary (docs/weight-files.md
// "Vocabulary files", "GGUF"). Tokenizer::from_vocab_file / from_vocab_bytes / from_gguf are built
// on them; they are exposed for tests and for tools that only need the bytes.
//
// All functions are pure and thread-safe. The string-returning helpers report failure as a
// non-empty message (what was wrong, without the location, which the caller adds); the
// parse_* functions throw ModelFileError naming the source, line (txt), JSON pointer (JSON) or
// entry index (GGUF).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ai00::internal::vocab {

// A parsed vocabulary: entry i holds the bytes of id i (empty: no text); entry 0 is always empty.
struct Entries {
  std::string storage;          // all token bytes back to back
  std::vector<uint64_t> spans;  // per id: offset << 32 | length into storage
  std::vector<std::string_view> views() const;
};

// Appends the bytes denoted by a Python str literal ('..' / "..", UTF-8 encoded) or bytes literal
// (b'..' / b".."). Escapes: \xHH \uHHHH \UHHHHHHHH (str only) \ooo \n \t \r \\ \' \" \a \b \f \v.
// Returns "" on success, else what was wrong.
std::string parse_python_literal(std::string_view literal, std::string& out);

// Appends the bytes of one GGUF rwkv token: \t \n \r and \xHH are un-escaped, a backslash before
// any other character yields that character. Returns "" on success, else what was wrong; then
// *error_at (if given) is the offset in `escaped` of the backslash that starts the bad escape.
std::string unescape_gguf(std::string_view escaped, std::string& out, size_t* error_at = nullptr);

// rwkv_vocab_v20230424.txt lines `ID LITERAL LENGTH`, ids 1..N contiguous in file order.
Entries parse_txt(std::string_view content, const std::string& name);
// ai00_server JSON: {"ID": "text" | [byte, ...], ...}; ids 1..N each exactly once ("0" ignored).
Entries parse_json(std::string_view content, const std::string& name);
// True if the content looks like JSON (first non-blank byte is '{').
bool looks_like_json(std::string_view content);

}  // namespace ai00::internal::vocab
