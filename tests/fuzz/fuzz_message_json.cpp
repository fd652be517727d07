// Fuzz target: message JSON (a conversation or a tool list) -> messages -> every chat format's
// render. The first byte picks conversation or tools. Errors carry a JSON pointer or offset.
#include <string>

#include "base/error.h"
#include "format/format.h"
#include "format/json.h"
#include "format/message.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  using namespace ai00::internal;
  ai00_fuzz::Bytes in(data, size);
  const uint8_t mode = in.u8();
  std::string_view text = in.rest();
  if (mode & 1) {
    auto tools = format::parse_tools(text);
    if (tools.ok())
      for (const auto& t : tools.value()) (void)json::write(format::to_json(t));
    return 0;
  }
  auto conv = format::parse_conversation(text);
  if (!conv.ok()) return 0;
  (void)json::write(format::to_json(conv.value()));
  for (const std::string& name : format::format_names()) {
    auto f = format::make_format(name);
    if (!f.ok()) continue;
    format::RenderOptions o;
    o.thinking = (mode & 2) ? format::Thinking::on : format::Thinking::off;
    o.add_generation_prompt = (mode & 4) == 0;
    try {
      (void)f.value()->render(conv.value(), o);
    } catch (const Error&) {
    }
  }
  return 0;
}
