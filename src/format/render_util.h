// Helpers shared by the renderers: flattening a message's parts into text, the marker policy,
// and the newline normalisation of the `Role: text` formats (Goose, ai00 v0).
//
// Marker policy (docs/chat-formats.md "Escaping"): the seeds define no escape, so text
// that contains one of the format's markers is REJECTED with a FormatError naming the JSON
// pointer of the part. System messages are written by the developer and may quote the format's
// tool syntax (seed 002 section 8.5 does), so only turn markers are rejected there.
//
// Internal to src/format. Threading: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "format/json.h"
#include "format/message.h"

namespace ai00::internal::format {

// "/<index>" — the JSON pointer of message `index` in a conversation.
std::string message_pointer(size_t index);

// Concatenates the text parts of `m` (value parts as JSON written with `value_style`, passed
// through escape_json_markers with `markers`). Image and function parts are refused with an
// unsupported error naming the part's pointer: no format has an image placeholder, and RWKV-7
// models are text-only, so an image is never silently dropped.
Result<std::string> flatten_contents(const Message& m, const std::string& pointer,
                                     std::string_view format_name,
                                     const json::WriteStyle& value_style = {},
                                     const std::vector<std::string_view>& markers = {});

// The escape of JSON text (docs/chat-formats.md "Escaping"): when `json_text` contains one of
// `markers`, every '<' in it is written "\u003c". In JSON a '<' can only stand inside a string,
// where "\u003c" means the same character, so any JSON reader gets the value back unchanged,
// and no marker (each starts with '<') survives. Text without a marker is returned as is.
std::string escape_json_markers(std::string json_text,
                                const std::vector<std::string_view>& markers);

// Error if `text` contains one of `markers`: "<pointer>: contains the <format> marker "<m>" at
// byte N; ...". Returns nullopt when the text is clean.
std::optional<ErrorInfo> find_forbidden_marker(std::string_view text,
                                               const std::vector<std::string_view>& markers,
                                               const std::string& pointer,
                                               std::string_view format_name);

// Checks every text part of `m` (and the reasoning) against `markers`.
std::optional<ErrorInfo> check_message_markers(const Message& m, const std::string& pointer,
                                               const std::vector<std::string_view>& markers,
                                               std::string_view format_name);

// `Role: text` formats: "\r\n" → "\n", runs of blank lines (lines holding only whitespace
// count as blank) → one "\n", then whitespace trimmed at both ends (seed 001: "\n\n" is the
// model's round separator).
std::string collapse_blank_lines(std::string_view text);

// Error for a role/feature a format cannot carry (kind unsupported).
ErrorInfo unsupported(const std::string& pointer, const std::string& what);

}  // namespace ai00::internal::format
