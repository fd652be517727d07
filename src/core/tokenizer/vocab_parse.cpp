// Vocabulary parsers (txt with Python literals, ai00_server JSON, GGUF escaped strings) and the
// Tokenizer loaders built on them. The txt parser is a hand-written scanner (no eval, no regex):
// it runs once per model load and must stay well under the 30 ms load budget for 1 MB.
#include "core/tokenizer/vocab_parse.h"

#include <simdjson.h>

#include <cstring>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/utf8.h"
#include "core/tokenizer/tokenizer.h"

namespace ai00::internal::vocab {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses exactly `width` hex digits at s[i..]; -1 if missing or not hex.
long parse_hex(std::string_view s, size_t i, size_t width) {
  if (i + width > s.size()) return -1;
  long v = 0;
  for (size_t k = 0; k < width; ++k) {
    const int h = hex_value(s[i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// Decimal unsigned integer, the whole of `s`, no sign or blanks; false if malformed or > 2^32.
bool parse_uint(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 10) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + uint64_t(c - '0');
  }
  *out = v;
  return v <= 0xFFFFFFFFull;
}

char simple_escape(char e) {
  switch (e) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case 'r':
      return '\r';
    case '\\':
      return '\\';
    case '\'':
      return '\'';
    case '"':
      return '"';
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'v':
      return '\v';
    default:
      return 0;
  }
}

// One escape sequence body[k] == '\\'; appends its bytes and advances k. Returns "" or an error.
std::string parse_escape(std::string_view body, size_t& k, bool is_bytes, std::string& out) {
  if (k + 1 >= body.size()) return "dangling backslash at the end of the literal";
  const char e = body[k + 1];
  if (const char c = simple_escape(e)) {
    out.push_back(c);
    k += 2;
    return {};
  }
  long v = -1;
  if (e == 'x' || e == 'u' || e == 'U') {
    const size_t width = e == 'x' ? 2 : e == 'u' ? 4 : 8;
    if (is_bytes && e != 'x') return std::string("\\") + e + " escape in a bytes literal";
    v = parse_hex(body, k + 2, width);
    if (v < 0)
      return std::string("bad escape \\") + e + ": expected " + std::to_string(width) +
             " hex digits";
    k += 2 + width;
  } else if (e >= '0' && e <= '7') {  // octal, 1 to 3 digits
    size_t j = k + 1;
    v = 0;
    while (j < body.size() && j < k + 4 && body[j] >= '0' && body[j] <= '7')
      v = v * 8 + (body[j++] - '0');
    k = j;
  } else {
    return std::string("bad escape \\") + e;
  }
  if (is_bytes) {
    if (v > 0xFF) return "octal escape above \\377 in a bytes literal";
    out.push_back(static_cast<char>(v));
    return {};
  }
  if (v >= 0xD800 && v <= 0xDFFF)
    return "escape of a surrogate code point (not encodable as UTF-8)";
  if (!utf8::append_code_point(static_cast<uint32_t>(v), out)) return "escape above U+10FFFF";
  return {};
}

[[noreturn]] void fail_line(const std::string& name, size_t line, const std::string& what) {
  throw ModelFileError(name + ":" + std::to_string(line) + ": " + what);
}

// Line number (1-based) of byte `offset` in `content`.
size_t line_of(std::string_view content, size_t offset) {
  size_t line = 1;
  for (size_t i = 0; i < offset && i < content.size(); ++i) line += content[i] == '\n';
  return line;
}

}  // namespace

std::vector<std::string_view> Entries::views() const {
  std::vector<std::string_view> v(spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    v[i] = std::string_view(storage.data() + (spans[i] >> 32), spans[i] & 0xFFFFFFFFu);
  }
  return v;
}

std::string parse_python_literal(std::string_view lit, std::string& out) {
  size_t i = 0;
  const bool is_bytes = !lit.empty() && (lit[0] == 'b' || lit[0] == 'B');
  if (is_bytes) i = 1;
  if (lit.size() < i + 2) return "not a Python string literal";
  const char q = lit[i];
  if (q != '\'' && q != '"') return "a literal must start with a quote (or b and a quote)";
  if (lit.back() != q) return "missing closing quote";
  const std::string_view body = lit.substr(i + 1, lit.size() - i - 2);
  size_t k = 0;
  while (k < body.size()) {
    const char c = body[k];
    if (c == '\\') {
      std::string err = parse_escape(body, k, is_bytes, out);
      if (!err.empty()) return err;
      continue;
    }
    if (c == q) return "unescaped quote inside the literal";
    if (is_bytes && static_cast<unsigned char>(c) >= 0x80)
      return "non-ASCII character in a bytes literal";
    out.push_back(c);
    ++k;
  }
  return {};
}

std::string unescape_gguf(std::string_view s, std::string& out, size_t* error_at) {
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] != '\\') {
      out.push_back(s[k]);
      continue;
    }
    if (error_at) *error_at = k;
    if (k + 1 >= s.size()) return "dangling backslash at the end of the token";
    const char e = s[++k];
    if (e == 'x') {
      const long v = parse_hex(s, k + 1, 2);
      if (v < 0) return "bad escape \\x: expected 2 hex digits";
      out.push_back(static_cast<char>(v));
      k += 2;
    } else {
      out.push_back(e == 't' ? '\t' : e == 'n' ? '\n' : e == 'r' ? '\r' : e);
    }
  }
  return {};
}

bool looks_like_json(std::string_view content) {
  for (char c : content) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{';
  }
  return false;
}

Entries parse_txt(std::string_view content, const std::string& name) {
  // The file is UTF-8 text (str literals hold raw UTF-8 characters): check it once up front.
  const size_t valid = utf8::valid_prefix_len(content);
  if (valid != content.size()) {
    fail_line(name, line_of(content, valid),
              "invalid UTF-8 at byte offset " + std::to_string(valid));
  }
  Entries v;
  v.storage.reserve(content.size() / 2);
  v.spans.reserve(content.size() / 12);
  v.spans.push_back(0);  // id 0: no text
  size_t pos = 0, line_no = 0;
  while (pos < content.size()) {
    const char* nl =
        static_cast<const char*>(std::memchr(content.data() + pos, '\n', content.size() - pos));
    const size_t end = nl ? size_t(nl - content.data()) : content.size();
    std::string_view line = content.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    // Split at the first and the last space: the literal itself may contain spaces.
    const size_t first = line.find(' '), last = line.rfind(' ');
    if (first == std::string_view::npos || first == last)
      fail_line(name, line_no, "expected `ID LITERAL LENGTH`");
    uint64_t id = 0, len = 0;
    if (!parse_uint(line.substr(0, first), &id))
      fail_line(name, line_no, "bad id `" + std::string(line.substr(0, first)) + "`");
    const uint64_t expected = v.spans.size();
    if (id < expected)
      fail_line(name, line_no,
                "duplicate id " + std::to_string(id) + " (ids must be 1, 2, 3, ... in file order)");
    if (id > expected)
      fail_line(
          name, line_no,
          "non-contiguous id " + std::to_string(id) + ", expected " + std::to_string(expected));
    const std::string_view lit = line.substr(first + 1, last - first - 1);
    const size_t start = v.storage.size();
    std::string err = parse_python_literal(lit, v.storage);
    if (!err.empty()) fail_line(name, line_no, "bad literal " + std::string(lit) + ": " + err);
    const std::string_view len_field = line.substr(last + 1);
    if (!parse_uint(len_field, &len))
      fail_line(name, line_no, "bad length field `" + std::string(len_field) + "`");
    const size_t got = v.storage.size() - start;
    if (len != got) {
      fail_line(name, line_no,
                "length field says " + std::to_string(len) + " but literal " + std::string(lit) +
                    " has " + std::to_string(got) + " bytes");
    }
    if (got == 0) fail_line(name, line_no, "empty token");
    v.spans.push_back(uint64_t(start) << 32 | got);
  }
  if (v.spans.size() == 1) throw ModelFileError(name + ": no vocabulary entries");
  return v;
}

namespace {

// One JSON entry "id": "text" or [byte, ...]: appends the bytes; "" or an error.
std::string json_entry_bytes(simdjson::dom::element value, std::string& out) {
  if (value.is_string()) {
    out.append(std::string_view(value.get_string().value_unsafe()));
    return {};
  }
  simdjson::dom::array arr;
  if (value.get_array().get(arr) != simdjson::SUCCESS)
    return "value must be a string or an array of bytes";
  size_t idx = 0;
  for (simdjson::dom::element b : arr) {
    uint64_t x = 0;
    if (b.get_uint64().get(x) != simdjson::SUCCESS || x > 255) {
      return "element " + std::to_string(idx) + " is not an integer 0..255";
    }
    out.push_back(static_cast<char>(x));
    ++idx;
  }
  return {};
}

}  // namespace

Entries parse_json(std::string_view content, const std::string& name) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const simdjson::padded_string padded(content);
  if (auto err = parser.parse(padded).get(doc)) {
    throw ModelFileError(name + ": bad JSON vocabulary: " + simdjson::error_message(err));
  }
  simdjson::dom::object obj;
  if (doc.get_object().get(obj) != simdjson::SUCCESS) {
    throw ModelFileError(name + ": JSON vocabulary must be an object {\"id\": token, ...}");
  }
  Entries v;
  std::vector<uint8_t> seen;
  v.spans.assign(1, 0);
  for (auto field : obj) {
    const std::string_view key = field.key;
    const std::string where = name + ": /" + std::string(key) + ": ";
    uint64_t id = 0;
    if (!parse_uint(key, &id)) throw ModelFileError(where + "key must be a decimal token id");
    // Ids are 1..N (plus an optional 0), so an id above the entry count leaves a gap; checking
    // here also bounds the tables below.
    if (id > obj.size())
      throw ModelFileError(where + "id " + std::to_string(id) +
                           " is larger than the number of entries (ids must be 1..N)");
    if (id >= v.spans.size()) v.spans.resize(id + 1, 0);
    if (id >= seen.size()) seen.resize(id + 1, 0);
    if (seen[id]) throw ModelFileError(where + "duplicate id " + std::to_string(id));
    seen[id] = 1;
    if (id == 0) continue;  // id 0 is end of text and never has bytes
    const size_t start = v.storage.size();
    std::string err = json_entry_bytes(field.value, v.storage);
    if (!err.empty()) throw ModelFileError(where + err);
    const size_t got = v.storage.size() - start;
    if (got == 0) throw ModelFileError(where + "empty token");
    v.spans[id] = uint64_t(start) << 32 | got;
  }
  if (v.spans.size() <= 1) throw ModelFileError(name + ": no vocabulary entries");
  for (size_t id = 1; id < v.spans.size(); ++id) {
    if (!seen[id])
      throw ModelFileError(name + ": id " + std::to_string(id) + " is missing (ids must be 1..N)");
  }
  return v;
}

}  // namespace ai00::internal::vocab

namespace ai00::internal {

std::shared_ptr<const Tokenizer> Tokenizer::from_vocab_bytes(std::string_view content,
                                                             const std::string& name) {
  const vocab::Entries e = vocab::looks_like_json(content) ? vocab::parse_json(content, name)
                                                           : vocab::parse_txt(content, name);
  return build(e.views(), name);
}

std::shared_ptr<const Tokenizer> Tokenizer::from_vocab_file(const std::string& path) {
  const MappedFile f = MappedFile::open(path);
  return from_vocab_bytes(std::string_view(reinterpret_cast<const char*>(f.data()), f.size()),
                          path);
}

std::shared_ptr<const Tokenizer> Tokenizer::from_gguf(const std::vector<std::string>& tokens,
                                                      const std::vector<int32_t>& types,
                                                      const std::string& path,
                                                      const std::vector<uint64_t>& offsets) {
  const std::string name =
      (path.empty() ? std::string() : path + ": ") + "GGUF tokenizer.ggml.tokens";
  if (tokens.empty()) throw ModelFileError(name + " is empty");
  if (!types.empty() && types.size() != tokens.size()) {
    throw ModelFileError("GGUF tokenizer.ggml.token_type has " + std::to_string(types.size()) +
                         " entries but tokenizer.ggml.tokens has " + std::to_string(tokens.size()));
  }
  constexpr int32_t kControl = 3, kUnused = 5;  // llama.cpp token types without text
  vocab::Entries v;
  v.spans.assign(tokens.size(), 0);
  for (size_t i = 1; i < tokens.size(); ++i) {
    if (!types.empty() && (types[i] == kControl || types[i] == kUnused)) continue;
    const size_t start = v.storage.size();
    size_t at = 0;
    std::string err = vocab::unescape_gguf(tokens[i], v.storage, &at);
    if (!err.empty()) {
      std::string where = name + "[" + std::to_string(i) + "]";
      if (i < offsets.size())
        where += " at byte offset " + std::to_string(offsets[i] + at);
      else
        where += " at byte " + std::to_string(at) + " of the entry";
      throw ModelFileError(where + ": " + err);
    }
    v.spans[i] = uint64_t(start) << 32 | (v.storage.size() - start);
  }
  return build(v.views(), name);
}

std::shared_ptr<const Tokenizer> Tokenizer::byte_level(size_t vocab_size) {
  if (vocab_size < 256) {
    throw InvalidArgument("a byte-level vocabulary needs at least 256 ids, got " +
                          std::to_string(vocab_size));
  }
  static const std::string kBytes = [] {
    std::string s(256, '\0');
    for (int b = 0; b < 256; ++b) s[b] = static_cast<char>(b);
    return s;
  }();
  auto make = [vocab_size] {
    std::vector<std::string_view> entries(vocab_size);
    for (size_t b = 1; b < 256; ++b) entries[b] = std::string_view(kBytes.data() + b, 1);
    return build(entries, "byte-level vocabulary");
  };
  // Every load of a 256-token model asks for this one; a Tokenizer is immutable, so they share
  // one built once (the build was most of such a load's time: tests/fuzz/README.md "Speed").
  if (vocab_size == 256) {
    static const std::shared_ptr<const Tokenizer> k256 = make();
    return k256;
  }
  return make();
}

}  // namespace ai00::internal