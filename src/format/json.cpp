// ai00::internal::json: value type, writer, and the simdjson On-Demand reader (see json.h).
#include "format/json.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "base/json_escape.h"
#include "base/limits.h"
#include "base/utf8.h"

namespace ai00::internal::json {

const char* type_phrase(Type t) {
  switch (t) {
    case Type::null:
      return "null";
    case Type::boolean:
      return "a boolean";
    case Type::number:
      return "a number";
    case Type::string:
      return "a string";
    case Type::array:
      return "an array";
    case Type::object:
      return "an object";
  }
  return "a value";
}

Value::Value(int v) : type_(Type::number), text_(std::to_string(v)) {}
Value::Value(long long v) : type_(Type::number), text_(std::to_string(v)) {}
Value::Value(double v) {
  if (std::isfinite(v)) {
    type_ = Type::number;
    text_ = fmt::format("{}", v);  // shortest text that reads back exactly
  }
}

Value Value::number_from_text(std::string text) {
  Value v;
  v.type_ = Type::number;
  v.text_ = std::move(text);
  return v;
}

// JSON number grammar (RFC 8259): -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool Value::is_number_text(std::string_view t) {
  size_t i = 0, n = t.size();
  auto digits = [&]() {
    size_t s = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
    return i > s;
  };
  if (i < n && t[i] == '-') ++i;
  if (i < n && t[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < n && t[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

bool Value::as_bool() const {
  AI00_CHECK(is_bool(), "json::Value is not a boolean");
  return bool_;
}
const std::string& Value::number_text() const {
  AI00_CHECK(is_number(), "json::Value is not a number");
  return text_;
}
double Value::as_double() const { return std::strtod(number_text().c_str(), nullptr); }
const std::string& Value::as_string() const {
  AI00_CHECK(is_string(), "json::Value is not a string");
  return text_;
}
const Array& Value::as_array() const {
  AI00_CHECK(is_array(), "json::Value is not an array");
  return *array_;
}
Array& Value::as_array() {
  AI00_CHECK(is_array(), "json::Value is not an array");
  if (array_.use_count() > 1) array_ = std::make_shared<Array>(*array_);  // copy on write
  return *array_;
}
const Object& Value::as_object() const {
  AI00_CHECK(is_object(), "json::Value is not an object");
  return *object_;
}
Object& Value::as_object() {
  AI00_CHECK(is_object(), "json::Value is not an object");
  if (object_.use_count() > 1) object_ = std::make_shared<Object>(*object_);  // copy on write
  return *object_;
}

const Value* Value::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& m : *object_)
    if (m.first == key) return &m.second;
  return nullptr;
}

Value& Value::set(std::string key, Value v) {
  if (is_null()) *this = Value(Object{});
  Object& o = as_object();
  for (auto& m : o)
    if (m.first == key) return m.second = std::move(v);
  o.emplace_back(std::move(key), std::move(v));
  return o.back().second;
}

Value& Value::push_back(Value v) {
  if (is_null()) *this = Value(Array{});
  Array& a = as_array();
  a.push_back(std::move(v));
  return a.back();
}

bool operator==(const Value& a, const Value& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Type::null:
      return true;
    case Type::boolean:
      return a.bool_ == b.bool_;
    case Type::number:
    case Type::string:
      return a.text_ == b.text_;
    case Type::array:
      return *a.array_ == *b.array_;
    case Type::object:
      return *a.object_ == *b.object_;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Writer

void write_string(std::string& out, std::string_view s) {
  out += '"';
  append_json_escaped(out, s);
  out += '"';
}

namespace {

bool is_scalar(const Value& v) { return !v.is_array() && !v.is_object(); }

bool all_scalars(const Value& v) {
  if (v.is_array()) {
    for (const auto& e : v.as_array())
      if (!is_scalar(e)) return false;
  } else {
    for (const auto& m : v.as_object())
      if (!is_scalar(m.second)) return false;
  }
  return true;
}

void write_value(std::string& out, const Value& v, const WriteStyle& st, int level);

// Writes the elements of an array or the members of an object with the given separators.
void write_items(std::string& out, const Value& v, const WriteStyle& st, int level, const char* sep,
                 const char* colon, const std::string& item_indent) {
  bool first = true;
  auto begin_item = [&]() {
    if (!first) out += sep;
    first = false;
    out += item_indent;
  };
  if (v.is_array()) {
    for (const auto& e : v.as_array()) {
      begin_item();
      write_value(out, e, st, level + 1);
    }
  } else {
    for (const auto& m : v.as_object()) {
      begin_item();
      write_string(out, m.first);
      out += colon;
      write_value(out, m.second, st, level + 1);
    }
  }
}

void write_container(std::string& out, const Value& v, const WriteStyle& st, int level) {
  const bool arr = v.is_array();
  const char open = arr ? '[' : '{', close = arr ? ']' : '}';
  const bool empty = arr ? v.as_array().empty() : v.as_object().empty();
  out += open;
  if (empty) {
    out += close;
    return;
  }
  if (st.indent <= 0) {
    write_items(out, v, st, level, st.spaced ? ", " : ",", st.spaced ? ": " : ":", "");
  } else if (all_scalars(v) && (arr ? st.inline_scalar_arrays : st.inline_scalar_objects)) {
    if (!arr) out += ' ';
    write_items(out, v, st, level, ", ", ": ", "");
    if (!arr) out += ' ';
  } else {
    out += '\n';
    write_items(out, v, st, level, ",\n", ": ", std::string((level + 1) * st.indent, ' '));
    out += '\n';
    out.append(level * st.indent, ' ');
  }
  out += close;
}

void write_value(std::string& out, const Value& v, const WriteStyle& st, int level) {
  switch (v.type()) {
    case Type::null:
      out += "null";
      break;
    case Type::boolean:
      out += v.as_bool() ? "true" : "false";
      break;
    case Type::number:
      out += v.number_text();
      break;
    case Type::string:
      write_string(out, v.as_string());
      break;
    case Type::array:
    case Type::object:
      write_container(out, v, st, level);
      break;
  }
}

}  // namespace

void write_to(std::string& out, const Value& v, const WriteStyle& style) {
  write_value(out, v, style, 0);
}

std::string write(const Value& v, const WriteStyle& style) {
  std::string out;
  write_value(out, v, style, 0);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reader (simdjson On-Demand)

namespace {

namespace od = simdjson::ondemand;

struct Reader {
  // Deeper documents are refused rather than risk the stack (base/limits.h).
  int max_depth = static_cast<int>(std::min<uint32_t>(limits().max_nesting_depth, 1u << 30));
  od::document* doc = nullptr;
  const char* base = nullptr;
  std::string message;  // first error, with its byte offset

  bool fail(const std::string& what) {
    if (!message.empty()) return false;
    const char* at = nullptr;
    if (doc && !doc->current_location().get(at) && at >= base) {
      message = fmt::format("JSON syntax error near byte {}: {}", at - base, what);
    } else {
      message = "JSON syntax error: " + what;
    }
    return false;
  }
  bool fail(simdjson::error_code e) { return fail(simdjson::error_message(e)); }

  bool number(std::string_view raw, Value& out) {
    while (!raw.empty() &&
           (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
      raw.remove_suffix(1);
    if (!Value::is_number_text(raw)) return fail("invalid number '" + std::string(raw) + "'");
    out = Value::number_from_text(std::string(raw));
    return true;
  }

  bool value(od::value v, Value& out, int depth) {
    if (depth >= max_depth)
      return fail(limit_message("", "array/object nesting", "max_nesting_depth",
                                static_cast<uint64_t>(max_depth)));
    od::json_type t;
    if (auto e = v.type().get(t)) return fail(e);
    switch (t) {
      case od::json_type::array:
        return array(v, out, depth);
      case od::json_type::object:
        return object(v, out, depth);
      case od::json_type::number: {
        return number(v.raw_json_token(), out);
      }
      case od::json_type::string: {
        std::string_view s;
        if (auto e = v.get_string().get(s)) return fail(e);
        out = Value(std::string(s));
        return true;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto e = v.get_bool().get(b)) return fail(e);
        out = Value(b);
        return true;
      }
      case od::json_type::null: {
        bool is_null = false;
        if (auto e = v.is_null().get(is_null)) return fail(e);
        if (!is_null) return fail("invalid literal");
        out = Value();
        return true;
      }
    }
    return fail("unknown value type");
  }

  bool array(od::value v, Value& out, int depth) {
    od::array a;
    if (auto e = v.get_array().get(a)) return fail(e);
    Array items;
    for (auto el : a) {
      od::value ev;
      if (auto e = el.get(ev)) return fail(e);
      Value item;
      if (!value(ev, item, depth + 1)) return false;
      items.push_back(std::move(item));
    }
    out = Value(std::move(items));
    return true;
  }

  bool object(od::value v, Value& out, int depth) {
    od::object o;
    if (auto e = v.get_object().get(o)) return fail(e);
    Object members;
    for (auto field : o) {
      od::field f;
      if (auto e = std::move(field).get(f)) return fail(e);
      std::string_view key;
      if (auto e = f.unescaped_key().get(key)) return fail(e);
      std::string k(key);
      for (const auto& m : members)
        if (m.first == k) return fail("duplicate key \"" + k + "\"");
      Value item;
      if (!value(f.value(), item, depth + 1)) return false;
      members.emplace_back(std::move(k), std::move(item));
    }
    out = Value(std::move(members));
    return true;
  }

  bool root(Value& out) {
    od::json_type t;
    if (auto e = doc->type().get(t)) return fail(e);
    if (t == od::json_type::array || t == od::json_type::object) {
      od::value v;
      if (auto e = doc->get_value().get(v)) return fail(e);
      return value(v, out, 0);
    }
    // Scalar documents cannot be turned into an od::value; read them from the document.
    switch (t) {
      case od::json_type::number: {
        std::string_view raw;
        if (auto e = doc->raw_json_token().get(raw)) return fail(e);
        return number(raw, out);
      }
      case od::json_type::string: {
        std::string_view s;
        if (auto e = doc->get_string().get(s)) return fail(e);
        out = Value(std::string(s));
        return true;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto e = doc->get_bool().get(b)) return fail(e);
        out = Value(b);
        return true;
      }
      default: {
        bool is_null = false;
        if (auto e = doc->is_null().get(is_null)) return fail(e);
        if (!is_null) return fail("invalid literal");
        out = Value();
        return true;
      }
    }
  }
};

}  // namespace

Result<Value> parse(std::string_view text) {
  if (uint64_t max = limits().max_input_bytes; text.size() > max)  // before any work
    return make_error(ErrorKind::format,
                      limit_message("JSON document", std::to_string(text.size()) + " bytes",
                                    "max_input_bytes", max));
  // The document must outlive every value read from it; keep all of it local to this call.
  simdjson::padded_string padded(text);
  od::parser parser;
  od::document doc;
  if (auto e = parser.iterate(padded).get(doc)) {
    if (e == simdjson::UTF8_ERROR)  // say where: the first byte that is not valid UTF-8
      return make_error(ErrorKind::format,
                        fmt::format("invalid UTF-8 at byte offset {} of the JSON document",
                                    utf8::valid_prefix_len(text)));
    return make_error(ErrorKind::format,
                      std::string("JSON syntax error: ") + simdjson::error_message(e));
  }
  Reader r;
  r.doc = &doc;
  r.base = padded.data();
  Value out;
  if (!r.root(out)) return make_error(ErrorKind::format, r.message);
  if (!out.is_array() && !out.is_object()) {
    // A scalar document: simdjson reads only its first token; the rest must be whitespace.
    std::string_view raw, all = text;
    auto trim = [](std::string_view& s) {
      while (!s.empty() &&
             (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
        s.remove_prefix(1);
      while (!s.empty() &&
             (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    };
    if (doc.raw_json_token().get(raw)) raw = {};
    trim(raw);
    trim(all);
    if (raw.size() != all.size())
      return make_error(ErrorKind::format,
                        fmt::format("JSON syntax error near byte {}: unexpected content after "
                                    "the JSON value",
                                    static_cast<size_t>(all.data() - text.data()) + raw.size()));
    return out;
  }
  const char* at = nullptr;
  if (doc.current_location().get(at) != simdjson::OUT_OF_BOUNDS) {
    r.fail("unexpected content after the JSON value");
    return make_error(ErrorKind::format, r.message);
  }
  return out;
}

std::string pointer_append(const std::string& pointer, std::string_view key) {
  std::string out = pointer + "/";
  append_json_pointer_token(out, key);
  return out;
}

std::string pointer_append(const std::string& pointer, size_t index) {
  return pointer + "/" + std::to_string(index);
}

}  // namespace ai00::internal::json
