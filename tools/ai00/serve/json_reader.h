// Typed access to one JSON object of a request body, naming the JSON pointer of every field it
// refuses. The server's requests are read with nlohmann::json (Debian's nlohmann-json3-dev):
// the public API of libai00 offers no general JSON reader to tools, and the engine's own parser
// (simdjson) must not be compiled into the CLI (tests/tools/check_cli_links.sh).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

namespace ai00::serve {

using Json = nlohmann::json;

// "/a/b" + key, escaping '~' and '/' as RFC 6901 says.
std::string pointer_join(const std::string& base, const std::string& key);
std::string pointer_join(const std::string& base, size_t index);

// The JSON type name a client would recognise: "string", "number", "object", ...
std::string json_type_name(const Json& v);

// Parses a request body; a syntax error is a 400 naming the byte offset.
Json parse_body(const std::string& body);

// One object of the request. Every accessor marks its key as known; reject_unknown() then
// refuses any other key (so a misspelt field never falls back to a default silently).
class ObjectReader {
 public:
  // `value` must be an object, else a 400 naming `pointer`.
  ObjectReader(const Json& value, std::string pointer);

  const std::string& pointer() const noexcept { return pointer_; }
  std::string at(const std::string& key) const { return pointer_join(pointer_, key); }

  // The raw value of `key` (null counts as absent), or nullptr.
  const Json* find(const std::string& key);
  const Json& require(const std::string& key);

  std::optional<std::string> string(const std::string& key);
  std::optional<bool> boolean(const std::string& key);
  std::optional<double> number(const std::string& key, double min, double max);
  std::optional<long long> integer(const std::string& key, long long min, long long max);

  // Keys accepted and ignored (documented in docs/server.md).
  void ignore(const std::set<std::string>& keys);
  void reject_unknown() const;

 private:
  const Json& value_;
  std::string pointer_;
  std::set<std::string> known_;
};

}  // namespace ai00::serve
