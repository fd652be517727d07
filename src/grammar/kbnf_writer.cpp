// KBNF literal, regex and JSON-string writers (kbnf_writer.h).
#include "grammar/kbnf_writer.h"

#include <cstdio>
#include <cstring>

#include "base/json_escape.h"

namespace ai00::internal::grammar {

namespace {

void append_hex_byte(std::string& out, const char* prefix, unsigned char c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%s%02x", prefix, c);
  out += buf;
}

}  // namespace

size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t min;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((at(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (at(i + k) & 0x3F);
  }
  // Overlong forms, UTF-16 surrogates and values past U+10FFFF are not valid UTF-8.
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

std::string kbnf_literal(std::string_view bytes) {
  std::string out = "'";
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    switch (c) {
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\'':
        out += "\\'";
        ++i;
        continue;
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == 0x7F) {
      append_hex_byte(out, "\\x", c);
      ++i;
      continue;
    }
    const size_t n = utf8_sequence_length(bytes, i);
    if (n == 0) {
      // A stray byte: KBNF's \xHH denotes that byte (docs/grammar.md "Semantics": byte level).
      append_hex_byte(out, "\\x", c);
      ++i;
      continue;
    }
    out.append(bytes.data() + i, n);
    i += n;
  }
  out += "'";
  return out;
}

std::string regex_code_point(uint32_t cp) {
  if ((cp >= '0' && cp <= '9') || (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z'))
    return std::string(1, static_cast<char>(cp));
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\x{%X}", cp);
  return buf;
}

std::string regex_escape(std::string_view text) {
  static const char* const kMeta = "\\.+*?()|[]{}^$";
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F || c == '#' || c == '&' || c == '-' || c == '~') {
        // Controls are spelled out for readability; # & - ~ are set operators in some Rust regex
        // contexts, so a hex escape keeps them literal everywhere.
        out += regex_code_point(c);
      } else {
        if (std::strchr(kMeta, c) != nullptr) out += '\\';
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      out += regex_code_point(c);
      ++i;
    } else {
      out.append(text.data() + i, n);
      i += n;
    }
  }
  return out;
}

std::string kbnf_regex(std::string_view regex, RegexKind kind) {
  const char* prefix = kind == RegexKind::full ? "#" : kind == RegexKind::early ? "#e" : "#ex";
  return prefix + kbnf_literal(regex);
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_json_escaped(out, text);
  return out;
}

std::string json_quote(std::string_view text) { return "\"" + json_escape(text) + "\""; }

std::string kbnf_identifier(std::string_view hint) {
  std::string out;
  for (char ch : hint) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_';
    out += ok ? ch : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  return out;
}

}  // namespace ai00::internal::grammar
