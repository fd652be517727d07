// A tiny reader for the NPC reply, {"say": "...", "emotion": "...", "action": "..."}.
//
// The grammar already guarantees the shape, so a game would hand the text to its own JSON
// library; this one reads a flat object of string values (with the JSON escapes) so that the
// example needs nothing but the standard library, and checks the enum values independently of
// the grammar.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace village {

inline const std::vector<std::string>& emotions() {
  static const std::vector<std::string> v = {"happy",  "sad",     "angry",
                                             "afraid", "curious", "neutral"};
  return v;
}
inline const std::vector<std::string>& actions() {
  static const std::vector<std::string> v = {"none", "wave",  "trade",     "follow",
                                             "flee", "guard", "give_quest"};
  return v;
}

struct Reply {
  std::string say, emotion, action;
};

namespace detail {

inline void skip_ws(const std::string& s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
}

inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A JSON string starting at s[i] == '"'; i ends after the closing quote.
inline std::optional<std::string> read_string(const std::string& s, size_t& i) {
  if (i >= s.size() || s[i] != '"') return std::nullopt;
  std::string out;
  for (++i; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      ++i;
      return out;
    }
    if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= s.size()) return std::nullopt;
    switch (s[i]) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (i + 4 >= s.size()) return std::nullopt;
        uint32_t cp = 0;
        for (int k = 1; k <= 4; ++k) {
          const char h = s[i + k];
          cp <<= 4;
          if (h >= '0' && h <= '9')
            cp |= static_cast<uint32_t>(h - '0');
          else if (h >= 'a' && h <= 'f')
            cp |= static_cast<uint32_t>(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F')
            cp |= static_cast<uint32_t>(h - 'A' + 10);
          else
            return std::nullopt;
        }
        i += 4;
        append_utf8(out, cp);  // (a lone surrogate is kept as is; fine for display)
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

inline bool one_of(const std::string& v, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (a == v) return true;
  return false;
}

}  // namespace detail

// The reply, or std::nullopt (with `why`) when the text is not an object of exactly these
// three string members with allowed enum values.
inline std::optional<Reply> parse_reply(const std::string& text, std::string* why = nullptr) {
  auto fail = [&](const char* reason) -> std::optional<Reply> {
    if (why) *why = reason;
    return std::nullopt;
  };
  std::map<std::string, std::string> members;
  size_t i = 0;
  detail::skip_ws(text, i);
  if (i >= text.size() || text[i] != '{') return fail("not an object");
  ++i;
  detail::skip_ws(text, i);
  while (i < text.size() && text[i] != '}') {
    auto key = detail::read_string(text, i);
    if (!key) return fail("bad key");
    detail::skip_ws(text, i);
    if (i >= text.size() || text[i] != ':') return fail("missing ':'");
    ++i;
    detail::skip_ws(text, i);
    auto value = detail::read_string(text, i);
    if (!value) return fail("a value is not a string");
    if (!members.emplace(*key, *value).second) return fail("duplicate key");
    detail::skip_ws(text, i);
    if (i < text.size() && text[i] == ',') {
      ++i;
      detail::skip_ws(text, i);
    }
  }
  if (i >= text.size()) return fail("unterminated object");
  ++i;
  detail::skip_ws(text, i);
  if (i != text.size()) return fail("text after the object");
  if (members.size() != 3 || !members.count("say") || !members.count("emotion") ||
      !members.count("action"))
    return fail("members are not say, emotion, action");
  Reply r{members["say"], members["emotion"], members["action"]};
  if (!detail::one_of(r.emotion, emotions())) return fail("emotion not in the enum");
  if (!detail::one_of(r.action, actions())) return fail("action not in the enum");
  return r;
}

}  // namespace village
