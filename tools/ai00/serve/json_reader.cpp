#include "json_reader.h"

#include <cmath>

#include "api_error.h"

namespace ai00::serve {

std::string pointer_join(const std::string& base, const std::string& key) {
  std::string out = base + "/";
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string pointer_join(const std::string& base, size_t index) {
  return base + "/" + std::to_string(index);
}

std::string json_type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "array";
    case Json::value_t::object:
      return "object";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "number";
    default:
      return "value";
  }
}

Json parse_body(const std::string& body) {
  try {
    return Json::parse(body);
  } catch (const Json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 9: ..."
    std::string what = e.what();
    const size_t at = what.find("] ");
    if (at != std::string::npos) what = what.substr(at + 2);
    throw ApiError(
        400, "request body is not valid JSON (byte " + std::to_string(e.byte) + "): " + what, "");
  }
}

ObjectReader::ObjectReader(const Json& value, std::string pointer)
    : value_(value), pointer_(std::move(pointer)) {
  if (!value_.is_object())
    throw field_error(pointer_.empty() ? "/" : pointer_,
                      "expected an object, got " + json_type_name(value_));
}

const Json* ObjectReader::find(const std::string& key) {
  known_.insert(key);
  auto it = value_.find(key);
  if (it == value_.end() || it->is_null()) return nullptr;
  return &*it;
}

const Json& ObjectReader::require(const std::string& key) {
  const Json* v = find(key);
  if (v == nullptr) throw field_error(at(key), "is required");
  return *v;
}

std::optional<std::string> ObjectReader::string(const std::string& key) {
  const Json* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) throw field_error(at(key), "expected a string, got " + json_type_name(*v));
  return v->get<std::string>();
}

std::optional<bool> ObjectReader::boolean(const std::string& key) {
  const Json* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) throw field_error(at(key), "expected a boolean, got " + json_type_name(*v));
  return v->get<bool>();
}

std::optional<double> ObjectReader::number(const std::string& key, double min, double max) {
  const Json* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) throw field_error(at(key), "expected a number, got " + json_type_name(*v));
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < min || x > max)
    throw field_error(at(key), "must be in [" + Json(min).dump() + ", " + Json(max).dump() +
                                   "], got " + v->dump());
  return x;
}

std::optional<long long> ObjectReader::integer(const std::string& key, long long min,
                                               long long max) {
  const Json* v = find(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer()) throw field_error(at(key), "expected an integer, got " + v->dump());
  // number_unsigned above LLONG_MAX reads as negative: compare as unsigned first.
  if (v->is_number_unsigned() &&
      v->get<unsigned long long>() > static_cast<unsigned long long>(max))
    throw field_error(at(key), "must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                                   "], got " + v->dump());
  const long long x = v->get<long long>();
  if (x < min || x > max)
    throw field_error(at(key), "must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                                   "], got " + v->dump());
  return x;
}

void ObjectReader::ignore(const std::set<std::string>& keys) {
  known_.insert(keys.begin(), keys.end());
}

void ObjectReader::reject_unknown() const {
  for (auto it = value_.begin(); it != value_.end(); ++it)
    if (!known_.count(it.key()))
      throw field_error(at(it.key()), "unknown field (docs/server.md lists the accepted ones)");
}

}  // namespace ai00::serve
