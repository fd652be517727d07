// Output parser handle of the C ABI: a chat format's incremental reply parser on its own, fed
// bytes by the caller instead of by a generator (docs/chat-formats.md). Deltas are flattened
// exactly as a generator flattens them (abi_delta.h).
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "abi_delta.h"
#include "abi_template.h"
#include "format/format.h"
#include "format/json.h"
#include "format/message.h"

struct ai00_output_parser {
  std::unique_ptr<ai00::internal::format::OutputParser> parser;
  std::deque<ai00::internal::abi::Flat> pending;  // flattened, not yet taken by next()
  ai00::internal::abi::Flat current;              // the delta handed out last
  bool finished = false;
  std::string message_json;
  mutable ai00::internal::abi::ErrorSlot error;
};

namespace {

using ai00::internal::abi::require;
namespace format = ai00::internal::format;

ai00::internal::abi::ErrorSlot* slot_of(const ai00_output_parser* p) {
  return p ? &p->error : nullptr;
}

// The C options as the format's ParseOptions. Whether the reply starts inside a thinking block
// is the format's business: its renderer says so for the same thinking level and tools.
format::ParseOptions parse_options(const format::ChatFormat& fmt, const ai00_parse_options* o,
                                   const char* fn) {
  ai00_parse_options d{};
  ai00_parse_options_default(&d);
  if (o != nullptr) {
    // The first published struct ends at id_seed; stream_tool_calls is read when present.
    constexpr size_t kV1Size = offsetof(ai00_parse_options, id_seed) + sizeof(uint64_t);
    ai00::internal::abi::check_struct_size(o->struct_size, kV1Size, sizeof(ai00_parse_options), fn,
                                           "ai00_parse_options");
    std::memcpy(&d, o, o->struct_size);
    d.struct_size = sizeof d;
  }
  ai00_render_options ro{};
  ai00_render_options_default(&ro);
  ro.thinking = d.thinking;
  ro.tools_json = d.tools_json;
  ro.tools_json_len = d.tools_json_len;
  format::RenderOptions render = ai00::internal::abi::render_options(&ro, fn);
  format::ParseOptions p;
  p.id_seed = d.id_seed;
  p.stream_tool_calls = d.stream_tool_calls != 0;
  p.tools = render.tools;
  p.thinking_open =
      ai00::internal::abi::unwrap(fmt.render({}, render), fn).constraints.thinking_open_in_prompt;
  return p;
}

void require_finished(const ai00_output_parser& p, const char* fn) {
  if (!p.finished) {
    throw ai00::internal::InvalidArgument(
        std::string(fn) + ": the parser is not finished (ai00_output_parser_finish)");
  }
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_parse_options_default(ai00_parse_options* out_options) {
  try {
    require(out_options, "ai00_parse_options_default", "out_options");
    ai00_parse_options d{};
    d.struct_size = sizeof(ai00_parse_options);
    d.thinking = AI00_THINKING_OFF;
    ai00::internal::abi::write_default(out_options, d,
                                       offsetof(ai00_parse_options, id_seed) + sizeof(uint64_t));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_output_parser_new(ai00_output_parser** out_parser,
                                            const ai00_chat_template* tmpl,
                                            const ai00_parse_options* options) {
  try {
    const char* fn = "ai00_output_parser_new";
    require(out_parser, fn, "out_parser");
    require(tmpl, fn, "tmpl");
    auto p = std::make_unique<ai00_output_parser>();
    p->parser = tmpl->format->make_parser(parse_options(*tmpl->format, options, fn));
    *out_parser = p.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_output_parser_free(ai00_output_parser* parser) {
  try {
    delete parser;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_output_parser_last_error(const ai00_output_parser* parser) {
  try {
    return parser ? parser->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_output_parser_push(size_t* out_pending, ai00_output_parser* parser,
                                             const char* bytes, size_t len) {
  try {
    const char* fn = "ai00_output_parser_push";
    require(parser, fn, "parser");
    std::string_view chunk = ai00::internal::abi::text_arg(bytes, len, fn, "bytes");
    if (parser->finished) {
      throw ai00::internal::InvalidArgument(std::string(fn) + ": the parser is already finished");
    }
    for (const auto& d : parser->parser->feed(chunk))
      ai00::internal::abi::flatten(d, parser->pending);
    if (out_pending != nullptr) *out_pending = parser->pending.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(parser));
  }
}

AI00_API ai00_status ai00_output_parser_finish(ai00_output_parser* parser, int32_t finish_reason) {
  try {
    const char* fn = "ai00_output_parser_finish";
    require(parser, fn, "parser");
    const format::FinishReason end = ai00::internal::abi::finish_reason_of(finish_reason, fn);
    if (parser->finished) {
      throw ai00::internal::InvalidArgument(std::string(fn) + ": the parser is already finished");
    }
    for (const auto& d : parser->parser->finish(end))
      ai00::internal::abi::flatten(d, parser->pending);
    parser->finished = true;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(parser));
  }
}

AI00_API ai00_status ai00_output_parser_pending(size_t* out_count,
                                                const ai00_output_parser* parser) {
  try {
    require(out_count, "ai00_output_parser_pending", "out_count");
    require(parser, "ai00_output_parser_pending", "parser");
    *out_count = parser->pending.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(parser));
  }
}

AI00_API ai00_status ai00_output_parser_next(ai00_delta* out_delta, ai00_output_parser* parser) {
  try {
    const char* fn = "ai00_output_parser_next";
    require(out_delta, fn, "out_delta");
    require(parser, fn, "parser");
    // Checked before a delta is taken, so a bad size loses nothing.
    ai00::internal::abi::check_struct_size(out_delta->struct_size,
                                           ai00::internal::abi::kDeltaV1Size, sizeof(ai00_delta),
                                           fn, "ai00_delta");
    if (parser->pending.empty())
      throw ai00::internal::InvalidArgument(std::string(fn) + ": no delta is queued");
    parser->current = std::move(parser->pending.front());
    parser->pending.pop_front();
    ai00::internal::abi::fill_caller(parser->current, out_delta, fn);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(parser));
  }
}

AI00_API ai00_status ai00_output_parser_finish_reason(int32_t* out_finish_reason,
                                                      const ai00_output_parser* parser) {
  try {
    require(out_finish_reason, "ai00_output_parser_finish_reason", "out_finish_reason");
    require(parser, "ai00_output_parser_finish_reason", "parser");
    *out_finish_reason =
        parser->finished ? ai00::internal::abi::finish_code(parser->parser->result().finish_reason)
                         : AI00_FINISH_NONE;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(parser));
  }
}

AI00_API ai00_status ai00_output_parser_message_json(const char** out_json, size_t* out_len,
                                                     ai00_output_parser* parser) {
  try {
    const char* fn = "ai00_output_parser_message_json";
    require(out_json, fn, "out_json");
    require(out_len, fn, "out_len");
    require(parser, fn, "parser");
    require_finished(*parser, fn);
    parser->message_json =
        ai00::internal::json::write(format::to_json(parser->parser->result().message));
    *out_json = parser->message_json.c_str();
    *out_len = parser->message_json.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(parser));
  }
}

AI00_API ai00_status ai00_output_parser_warning_count(size_t* out_count,
                                                      const ai00_output_parser* parser) {
  try {
    require(out_count, "ai00_output_parser_warning_count", "out_count");
    require(parser, "ai00_output_parser_warning_count", "parser");
    *out_count = parser->finished ? parser->parser->result().warnings.size() : 0;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(parser));
  }
}

AI00_API ai00_status ai00_output_parser_warning(const char** out_text, size_t* out_len,
                                                const ai00_output_parser* parser, size_t index) {
  try {
    const char* fn = "ai00_output_parser_warning";
    require(out_text, fn, "out_text");
    require(out_len, fn, "out_len");
    require(parser, fn, "parser");
    const size_t n = parser->finished ? parser->parser->result().warnings.size() : 0;
    if (index >= n) {
      throw ai00::internal::InvalidArgument(std::string(fn) + ": index " + std::to_string(index) +
                                            " is past the " + std::to_string(n) + " warnings");
    }
    const std::string& w = parser->parser->result().warnings[index];
    *out_text = w.c_str();
    *out_len = w.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(parser));
  }
}

AI00_API ai00_status ai00_finish_reason_name(const char** out_name, int32_t finish_reason) {
  try {
    require(out_name, "ai00_finish_reason_name", "out_name");
    *out_name = format::finish_reason_name(
        ai00::internal::abi::finish_reason_of(finish_reason, "ai00_finish_reason_name"));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

}  // extern "C"
