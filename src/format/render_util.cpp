// Shared renderer helpers (see render_util.h).
#include "format/render_util.h"

#include <fmt/format.h>

#include "format/stream.h"

namespace ai00::internal::format {

std::string message_pointer(size_t index) { return json::pointer_append("", index); }

ErrorInfo unsupported(const std::string& pointer, const std::string& what) {
  return make_error(ErrorKind::unsupported, (pointer.empty() ? "(root)" : pointer) + ": " + what);
}

std::string escape_json_markers(std::string json_text,
                                const std::vector<std::string_view>& markers) {
  if (!find_marker(json_text, markers)) return json_text;
  std::string out;
  out.reserve(json_text.size() + 16);
  for (char c : json_text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

Result<std::string> flatten_contents(const Message& m, const std::string& pointer,
                                     std::string_view format_name,
                                     const json::WriteStyle& value_style,
                                     const std::vector<std::string_view>& markers) {
  std::string out;
  for (size_t j = 0; j < m.contents.size(); ++j) {
    const Part& p = m.contents[j];
    const std::string ptr = json::pointer_append(json::pointer_append(pointer, "contents"), j);
    switch (p.type) {
      case PartType::text:
        out += p.text;
        break;
      case PartType::value:
        out += escape_json_markers(json::write(p.data, value_style), markers);
        break;
      case PartType::image:
        return unsupported(ptr, fmt::format("an image part cannot be rendered in {} (RWKV-7 "
                                            "models are text-only)",
                                            format_name));
      case PartType::function:
        return unsupported(ptr, fmt::format("a function part cannot be rendered in {}; put "
                                            "calls in `tool_calls`",
                                            format_name));
    }
  }
  return out;
}

std::optional<ErrorInfo> find_forbidden_marker(std::string_view text,
                                               const std::vector<std::string_view>& markers,
                                               const std::string& pointer,
                                               std::string_view format_name) {
  auto hit = find_marker(text, markers);  // the earliest marker, so the byte offset is the first
  if (!hit) return std::nullopt;
  return make_error(ErrorKind::format,
                    fmt::format("{}: contains the {} marker \"{}\" at byte {}; the format "
                                "defines no escape, so such text is refused (it would break "
                                "the structure or fake a turn)",
                                pointer.empty() ? "(root)" : pointer, format_name,
                                markers[hit->index], hit->pos));
}

std::optional<ErrorInfo> check_message_markers(const Message& m, const std::string& pointer,
                                               const std::vector<std::string_view>& markers,
                                               std::string_view format_name) {
  std::string all;
  for (size_t j = 0; j < m.contents.size(); ++j) {
    if (m.contents[j].type != PartType::text) continue;
    const std::string ptr = json::pointer_append(
        json::pointer_append(json::pointer_append(pointer, "contents"), j), "text");
    if (auto e = find_forbidden_marker(m.contents[j].text, markers, ptr, format_name)) return e;
    all += m.contents[j].text;
  }
  // A marker split across two text parts is still a marker once they are concatenated.
  if (auto e = find_forbidden_marker(all, markers, json::pointer_append(pointer, "contents"),
                                     format_name))
    return e;
  if (m.reasoning)
    if (auto e = find_forbidden_marker(*m.reasoning, markers,
                                       json::pointer_append(pointer, "reasoning"), format_name))
      return e;
  return std::nullopt;
}

std::string collapse_blank_lines(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    s += text[i];
  }
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '\n') {
      out += s[i++];
      continue;
    }
    // A newline: look past following blank lines (whitespace-only) to the next content.
    size_t j = i + 1, last_nl = i;
    int newlines = 1;
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n')) {
      if (s[j] == '\n') {
        last_nl = j;
        ++newlines;
      }
      ++j;
    }
    if (newlines >= 2) {
      while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
      out += '\n';
      i = last_nl + 1;  // keep the indentation of the next non-blank line
    } else {
      out += '\n';
      ++i;
    }
  }
  size_t b = 0, e = out.size();
  auto ws = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  while (b < e && ws(out[b])) ++b;
  while (e > b && ws(out[e - 1])) --e;
  return out.substr(b, e - b);
}

}  // namespace ai00::internal::format
