// Streaming reader of a JSON tool call (see call_json_stream.h).
#include "format/call_json_stream.h"

#include "base/json_escape.h"
#include "base/utf8.h"

namespace ai00::internal::format {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// RFC 8259 section 7: a high surrogate escape must be followed by a low one; json::parse
// refuses a lone half, so the reader stops there too.
CallJsonStream::StringDecoder::Step CallJsonStream::StringDecoder::step(char c, std::string& out) {
  if (state == 0) {
    if (c == '\\') {
      state = 1;
      return Step::more;
    }
    if (high) return Step::error;
    if (c == '"') return Step::end;
    out += c;
    return Step::more;
  }
  if (state == 1) {
    if (high && c != 'u') return Step::error;
    state = 0;
    switch (c) {
      case '"':
      case '\\':
      case '/':
        out += c;
        return Step::more;
      case 'b':
        out += '\b';
        return Step::more;
      case 'f':
        out += '\f';
        return Step::more;
      case 'n':
        out += '\n';
        return Step::more;
      case 'r':
        out += '\r';
        return Step::more;
      case 't':
        out += '\t';
        return Step::more;
      case 'u':
        state = 2;
        hex = 0;
        return Step::more;
      default:
        return Step::error;
    }
  }
  const int v = hex_digit(c);
  if (v < 0) return Step::error;
  hex = hex * 16 + static_cast<uint32_t>(v);
  if (++state < 6) return Step::more;
  state = 0;
  uint32_t cp = hex;
  if (high) {
    if (cp < 0xDC00 || cp > 0xDFFF) return Step::error;
    cp = 0x10000 + ((high - 0xD800) << 10) + (cp - 0xDC00);
    high = 0;
  } else if (cp >= 0xD800 && cp <= 0xDBFF) {
    high = cp;
    return Step::more;
  } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
    return Step::error;
  }
  utf8::append_code_point(cp, out);
  return Step::more;
}

void CallJsonStream::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (stage_ == Stage::done) return;
    step(c);
  }
}

std::string CallJsonStream::take_arguments() {
  std::string out;
  out.swap(out_);
  return out;
}

// The top-level object: members in any order, whitespace between tokens. A byte that cannot
// belong there ends the reading (json::parse will refuse the call as well).
void CallJsonStream::step(char c) {
  switch (stage_) {
    case Stage::before:
      if (is_ws(c)) return;
      c == '{' ? void(stage_ = Stage::key_or_end) : fail();
      return;
    case Stage::key_or_end:
      if (is_ws(c)) return;
      if (c == '}') {
        stage_ = Stage::done;
      } else if (c == '"') {
        key_.clear();
        str_ = StringDecoder{};
        stage_ = Stage::key;
      } else {
        fail();
      }
      return;
    case Stage::key:
      switch (str_.step(c, key_)) {
        case StringDecoder::Step::end:
          stage_ = Stage::colon;
          break;
        case StringDecoder::Step::error:
          fail();
          break;
        case StringDecoder::Step::more:
          break;
      }
      return;
    case Stage::colon:
      if (is_ws(c)) return;
      c == ':' ? void(stage_ = Stage::value_start) : fail();
      return;
    case Stage::value_start:
      if (!is_ws(c)) start_value(c);
      return;
    case Stage::value:
      value_byte(c);
      return;
    case Stage::after_value:
      if (is_ws(c)) return;
      if (c == ',') {
        stage_ = Stage::key_or_end;
      } else {
        c == '}' ? void(stage_ = Stage::done) : fail();
      }
      return;
    case Stage::done:
      return;
  }
}

void CallJsonStream::start_value(char c) {
  role_ = Role::skip;
  if (key_ == "name" && !name_ && c == '"') {
    role_ = Role::name;
    name_text_.clear();
  }
  if (key_ == "arguments" && !args_seen_) {
    args_seen_ = true;
    if (c != '"' && collect_) {
      role_ = Role::arguments;
      args_begun_ = true;
    }
  }
  depth_ = 0;
  in_string_ = scalar_ = false;
  stage_ = Stage::value;
  if (c == '"') {
    in_string_ = true;
    str_ = StringDecoder{};
  } else if (c == '{' || c == '[') {
    depth_ = 1;
  } else {
    scalar_ = true;
  }
  if (role_ == Role::arguments) out_ += c;
}

// Inside a member's value: strings are decoded (and, in the arguments, escaped again as
// json::write escapes them), whitespace between tokens is dropped, everything else is copied.
void CallJsonStream::value_byte(char c) {
  const bool emit = role_ == Role::arguments;
  if (in_string_) {
    decoded_.clear();
    const auto st = str_.step(c, decoded_);
    if (st == StringDecoder::Step::error) return fail();
    if (emit) append_json_escaped(out_, decoded_);
    if (role_ == Role::name) name_text_ += decoded_;
    if (st == StringDecoder::Step::end) {
      in_string_ = false;
      if (emit) out_ += '"';
      if (depth_ == 0) {
        if (role_ == Role::name) name_ = name_text_;
        end_value();
      }
    }
    return;
  }
  if (scalar_ && (is_ws(c) || c == ',' || c == '}')) {  // the number or literal ended
    end_value();
    step(c);
    return;
  }
  if (is_ws(c)) return;
  if (c == '"') {
    in_string_ = true;
    str_ = StringDecoder{};
  } else if (c == '{' || c == '[') {
    ++depth_;
  } else if (c == '}' || c == ']') {
    if (--depth_ == 0) end_value();
  }
  if (emit) out_ += c;
}

}  // namespace ai00::internal::format
