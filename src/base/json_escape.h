// JSON string escaping and JSON Pointer tokens, shared by the JSON writer (src/format) and the
// grammar builders (src/grammar), so both write the same bytes for the same string.
#pragma once

#include <string>
#include <string_view>

namespace ai00::internal {

// Appends `s` escaped as the inside of a JSON string (no surrounding quotes): `"` and `\`
// escaped, \n \r \t \b \f by their short forms, other control bytes as \u00XX (lower-case hex);
// every other byte, UTF-8 or not, is copied unchanged.
void append_json_escaped(std::string& out, std::string_view s);

// Appends `key` as one JSON Pointer reference token (RFC 6901): `~` as `~0`, `/` as `~1`.
void append_json_pointer_token(std::string& out, std::string_view key);

}  // namespace ai00::internal