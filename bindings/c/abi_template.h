// The ChatTemplate handle of the C ABI and helpers shared with the generator binding.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "abi_internal.h"
#include "base/result.h"
#include "format/config.h"
#include "format/format.h"

struct ai00_chat_template {
  std::shared_ptr<const ai00::internal::format::ChatFormat> format;  // immutable, shareable
  ai00::internal::format::RenderResult last;     // the last render: owns the prompt handed out
  bool rendered = false;                         // `last` holds a render
  std::string last_json;                         // ai00_chat_template_last_render_json's text
  std::string raw_prompt;                        // the last FIM / multi-file prompt
  std::string transcript_json;                   // the last ai00_chat_template_parse_transcript
  ai00::internal::format::PromptsConfig config;  // presets and format settings
  mutable ai00::internal::abi::ErrorSlot error;
};

namespace ai00::internal::abi {

// Value of a Result, or throws its error (kind kept) prefixed with `what`.
template <typename T>
T unwrap(Result<T>&& r, const char* what) {
  if (!r.ok()) throw_error(r.error().kind, std::string(what) + ": " + r.error().message);
  return std::move(r).value();
}

// Converts (and validates) C render options; NULL = defaults.
format::RenderOptions render_options(const ai00_render_options* options, const char* function);

}  // namespace ai00::internal::abi
