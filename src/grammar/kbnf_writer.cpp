// KBNF literal, regex and JSON-string writers (kbnf_writer.h).
#include "grammar/kbnf_writer.h"

#include <cstdio>
#include <cstring>

#include "base/json_escape.h"
#include "base/utf8.h"

namespace ai00::internal::grammar {

namespace {

void append_hex_byte(std::string& out, const char* prefix, unsigned char c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%s%02x", prefix, c);
  out += buf;
}

}  // namespace

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
    const size_t n = utf8::decode_one(bytes.substr(i), nullptr);
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
    const size_t n = utf8::decode_one(text.substr(i), nullptr);
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
