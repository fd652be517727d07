// Flattening MessageDeltas into ai00_delta records (abi_delta.h).
#include "abi_delta.h"

#include <cstring>

#include "abi_internal.h"
#include "base/error.h"

namespace ai00::internal::abi {

int32_t finish_code(format::FinishReason r) {
  switch (r) {
    case format::FinishReason::stop:
      return AI00_FINISH_STOP;
    case format::FinishReason::length:
      return AI00_FINISH_LENGTH;
    case format::FinishReason::tool_calls:
      return AI00_FINISH_TOOL_CALLS;
    case format::FinishReason::cancelled:
      return AI00_FINISH_CANCELLED;
    case format::FinishReason::grammar_done:
      return AI00_FINISH_GRAMMAR_DONE;
    case format::FinishReason::error:
      return AI00_FINISH_ERROR;
  }
  return AI00_FINISH_ERROR;
}

format::FinishReason finish_reason_of(int32_t code, const char* function) {
  for (auto r : {format::FinishReason::stop, format::FinishReason::length,
                 format::FinishReason::tool_calls, format::FinishReason::cancelled,
                 format::FinishReason::grammar_done, format::FinishReason::error}) {
    if (finish_code(r) == code) return r;
  }
  throw InvalidArgument(std::string(function) + ": finish_reason = " + std::to_string(code) +
                        " is not an ai00_finish_reason");
}

void flatten(const format::MessageDelta& d, std::deque<Flat>& out) {
  if (!d.reasoning.empty())
    out.push_back(Flat{AI00_DELTA_REASONING, 0, AI00_FINISH_NONE, d.reasoning, {}, {}, true});
  for (const auto& p : d.contents) {
    if (p.type == format::PartType::text && !p.text.empty())
      out.push_back(Flat{AI00_DELTA_TEXT, 0, AI00_FINISH_NONE, p.text, {}, {}, true});
  }
  for (const auto& c : d.tool_calls) {
    const auto call = static_cast<uint32_t>(c.call);
    switch (c.preview) {
      case format::ToolCallDelta::Preview::start:
        out.push_back(
            Flat{AI00_DELTA_TOOL_CALL_START, call, AI00_FINISH_NONE, {}, c.id, c.name, true});
        break;
      case format::ToolCallDelta::Preview::arguments:
        out.push_back(Flat{
            AI00_DELTA_TOOL_CALL_ARGUMENTS, call, AI00_FINISH_NONE, c.arguments, {}, {}, true});
        break;
      case format::ToolCallDelta::Preview::abandoned:
        out.push_back(Flat{AI00_DELTA_TOOL_CALL, call, AI00_FINISH_NONE, {}, {}, {}, false});
        break;
      case format::ToolCallDelta::Preview::none:
        out.push_back(Flat{AI00_DELTA_TOOL_CALL, call, AI00_FINISH_NONE,
                           c.valid ? c.arguments : c.raw, c.id, c.name, c.valid});
        break;
    }
  }
  if (d.finish_reason)
    out.push_back(Flat{AI00_DELTA_FINISH, 0, finish_code(*d.finish_reason), {}, {}, {}, true});
}

void fill(const Flat& f, ai00_delta* out) {
  *out = ai00_delta{};
  out->struct_size = sizeof(ai00_delta);
  out->kind = f.kind;
  out->call = f.call;
  out->finish_reason = f.finish;
  out->text = f.text.c_str();
  out->text_len = f.text.size();
  out->id = f.id.c_str();
  out->id_len = f.id.size();
  out->name = f.name.c_str();
  out->name_len = f.name.size();
  out->valid = f.valid ? 1 : 0;
}

void fill_caller(const Flat& f, ai00_delta* out, const char* function) {
  const uint32_t size = out->struct_size;
  check_struct_size(size, kDeltaV1Size, sizeof(ai00_delta), function, "ai00_delta");
  ai00_delta full;
  fill(f, &full);
  std::memcpy(out, &full, size);
  out->struct_size = size;
}

}  // namespace ai00::internal::abi
