// JSON string escaping shared by the JSON writer (src/format) and the grammar builders
// (src/grammar), so both write the same bytes for the same string.
#pragma once

#include <string>
#include <string_view>

namespace ai00 {

// Appends `s` escaped as the inside of a JSON string (no surrounding quotes): `"` and `\`
// escaped, \n \r \t \b \f by their short forms, other control bytes as \u00XX (lower-case hex);
// every other byte, UTF-8 or not, is copied unchanged.
void append_json_escaped(std::string& out, std::string_view s);

}  // namespace ai00
