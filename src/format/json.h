// ai00::internal::json — a small JSON value type with a byte-stable writer (docs/chat-formats.md
// "Message model").
//
// Value is a plain value type: null, bool, number, string, array or object. Numbers keep the text
// they were written with ("1.50" stays "1.50", 611384164352 never becomes 6.11e11), and objects
// keep their members in insertion order, so parse → write → parse → write gives identical bytes.
// Strings hold UTF-8; the writer escapes only `"`, `\` and control characters.
//
// Parsing uses simdjson (On-Demand) and returns Result: a syntax error says what and at which
// byte offset. Nothing here throws on bad input, prints or aborts.
// Threading: a Value is an ordinary value; distinct Values may be used from distinct threads.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace ai00::internal::json {

enum class Type { null, boolean, number, string, array, object };

// Name of a type as used in error messages: "null", "a boolean", "a number", "a string", ...
const char* type_phrase(Type t);

class Value;
using Array = std::vector<Value>;
using Member = std::pair<std::string, Value>;
using Object = std::vector<Member>;  // insertion order; duplicate keys are rejected on parse

class Value {
 public:
  Value() = default;  // null
  Value(std::nullptr_t) {}
  Value(bool b) : type_(Type::boolean), bool_(b) {}
  Value(int v);
  Value(long long v);
  Value(double v);  // shortest text that reads back as the same double; NaN/inf become null
  Value(const char* s) : type_(Type::string), text_(s) {}
  Value(std::string s) : type_(Type::string), text_(std::move(s)) {}
  Value(std::string_view s) : type_(Type::string), text_(s) {}
  Value(Array a) : type_(Type::array), array_(std::make_shared<Array>(std::move(a))) {}
  Value(Object o) : type_(Type::object), object_(std::make_shared<Object>(std::move(o))) {}

  // A number from its JSON text; the caller guarantees `text` is a valid JSON number
  // (is_number_text) — otherwise the writer would emit invalid JSON.
  static Value number_from_text(std::string text);
  static bool is_number_text(std::string_view text);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::null; }
  bool is_bool() const { return type_ == Type::boolean; }
  bool is_number() const { return type_ == Type::number; }
  bool is_string() const { return type_ == Type::string; }
  bool is_array() const { return type_ == Type::array; }
  bool is_object() const { return type_ == Type::object; }

  // Accessors; calling one on the wrong type is a bug (throws InternalError via AI00_CHECK).
  bool as_bool() const;
  const std::string& number_text() const;  // the number exactly as written
  double as_double() const;
  const std::string& as_string() const;
  const Array& as_array() const;
  Array& as_array();
  const Object& as_object() const;
  Object& as_object();

  // Object helpers: find returns nullptr when absent (or when this is not an object).
  const Value* find(std::string_view key) const;
  // Sets key (replacing an existing member in place, else appending). Makes this an object if null.
  Value& set(std::string key, Value v);
  // Array helper: appends; makes this an array if null.
  Value& push_back(Value v);

  // Structural equality; numbers compare by their text, objects by ordered members.
  friend bool operator==(const Value& a, const Value& b);
  friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

 private:
  Type type_ = Type::null;
  bool bool_ = false;
  std::string text_;  // string contents or number text
  // Containers are shared and copied on write so that copying a Value is cheap.
  std::shared_ptr<Array> array_;
  std::shared_ptr<Object> object_;
};

// How write() lays a value out. The default is compact: {"a":1,"b":[2,3]}.
struct WriteStyle {
  int indent = 0;                      // 0: one line; N: N spaces per level, one member per line
  bool spaced = false;                 // one line with ", " and ": " (Python's json.dumps default)
  bool inline_scalar_arrays = false;   // with indent: arrays of scalars stay on one line: ["a", 1]
  bool inline_scalar_objects = false;  // with indent: objects of scalars on one line: { "a": 1 }
};

// Writes `v` as JSON. Never fails: every Value is writable.
std::string write(const Value& v, const WriteStyle& style = {});
void write_to(std::string& out, const Value& v, const WriteStyle& style = {});
// Appends `s` as a quoted JSON string.
void write_string(std::string& out, std::string_view s);

// Parses one JSON document (surrounding whitespace allowed, nothing else). Errors have kind
// `format` and say "JSON syntax error at byte N: ..."; duplicate object keys are errors.
Result<Value> parse(std::string_view text);

// JSON pointer helpers (RFC 6901): append a key ("~" → "~0", "/" → "~1") or an index.
std::string pointer_append(const std::string& pointer, std::string_view key);
std::string pointer_append(const std::string& pointer, size_t index);

}  // namespace ai00::internal::json
