// ai00 C++ API — OutputParser: a chat format's incremental reply parser on its own (header-only
// RAII over ai00.h). Push model output in chunks of any size and get the same Deltas a
// Generator would give for it; finish, then read the message.
//
// Ownership: unique (movable, not copyable). Threading: one thread at a time. Errors:
// ai00::Error (AI00_ERR_FORMAT for a malformed tool list; AI00_ERR_INVALID_ARGUMENT for pushing
// after finish). Malformed output never fails: it stays text, with a warning.
//
// Usage:
//
//   ai00::ChatTemplate tmpl("ai00-v1");
//   ai00::OutputParser parser(tmpl, {});
//   for (const ai00::Delta& d : parser.push(chunk)) show(d);
//   for (const ai00::Delta& d : parser.finish()) show(d);  // the last one is the finish
//   std::string message = parser.message_json();
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ai00/ai00.h"
#include "ai00/chat_template.hpp"
#include "ai00/error.hpp"

namespace ai00 {
inline namespace api {

struct ParseOptions {
  ai00_thinking thinking = AI00_THINKING_OFF;  // the level the prompt was rendered with
  std::string tools_json;                      // the tools the prompt offered; "" = none
  uint64_t id_seed = 0;                        // tool call ids derive from it
  bool stream_tool_calls = false;              // also tool_call_start / tool_call_arguments deltas
};

// The name of a finish reason ("stop", "length", "tool_calls", ...).
inline std::string finish_reason_name(FinishReason r) {
  const char* name = nullptr;
  detail::check(ai00_finish_reason_name(&name, static_cast<int32_t>(r)));
  return name;
}

class OutputParser {
 public:
  OutputParser(const ChatTemplate& tmpl, const ParseOptions& options) {
    ai00_parse_options o{};
    o.struct_size = sizeof o;  // this header's size (docs/abi.md)
    detail::check(ai00_parse_options_default(&o));
    o.thinking = options.thinking;
    o.tools_json = options.tools_json.empty() ? nullptr : options.tools_json.data();
    o.tools_json_len = options.tools_json.size();
    o.id_seed = options.id_seed;
    o.stream_tool_calls = options.stream_tool_calls ? 1 : 0;
    ai00_output_parser* p = nullptr;
    detail::check(ai00_output_parser_new(&p, tmpl.get(), &o));
    handle_.reset(p);
  }

  // Feeds bytes; returns the deltas that became certain.
  std::vector<Delta> push(std::string_view bytes) {
    detail::check(ai00_output_parser_push(nullptr, get(), bytes.data(), bytes.size()));
    return drain();
  }
  // Ends the output; returns the remaining deltas, the last being the finish.
  std::vector<Delta> finish(FinishReason reason = FinishReason::stop) {
    detail::check(ai00_output_parser_finish(get(), static_cast<int32_t>(reason)));
    return drain();
  }

  FinishReason finish_reason() const {
    int32_t r = AI00_FINISH_NONE;
    detail::check(ai00_output_parser_finish_reason(&r, get()));
    return static_cast<FinishReason>(r);
  }
  // The parsed message as seed 004 JSON (after finish()).
  std::string message_json() {
    const char* json = nullptr;
    size_t len = 0;
    detail::check(ai00_output_parser_message_json(&json, &len, get()));
    return std::string(json, len);
  }
  // Malformed structures kept as text (after finish()).
  std::vector<std::string> warnings() const {
    size_t n = 0;
    detail::check(ai00_output_parser_warning_count(&n, get()));
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
      const char* w = nullptr;
      size_t len = 0;
      detail::check(ai00_output_parser_warning(&w, &len, get(), i));
      out.emplace_back(w, len);
    }
    return out;
  }

  ai00_output_parser* get() const noexcept { return handle_.get(); }

 private:
  std::vector<Delta> drain() {
    size_t n = 0;
    detail::check(ai00_output_parser_pending(&n, get()));
    std::vector<Delta> out;
    for (size_t i = 0; i < n; ++i) {
      ai00_delta d{};
      d.struct_size = sizeof d;
      detail::check(ai00_output_parser_next(&d, get()));
      out.push_back(Delta::from_c(d));
    }
    return out;
  }
  struct Free {
    void operator()(ai00_output_parser* p) const noexcept { ai00_output_parser_free(p); }
  };
  std::unique_ptr<ai00_output_parser, Free> handle_;
};

}  // namespace api
}  // namespace ai00
