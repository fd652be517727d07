// Fuzz target: each chat format's incremental output parser fed in random chunks. Byte 0 picks
// the format and options, the next 8 bytes the chunk sizes; the rest is the model's output.
// The parser never throws; the message from the chunked feed equals the one from a single feed
// (chunk boundaries may split code points, markers and stop strings anywhere).
#include <cstdlib>
#include <string>

#include "format/format.h"
#include "format/json.h"
#include "format/message.h"
#include "fuzz_common.h"

namespace {
std::string run(const ai00::internal::format::ChatFormat& f,
                const ai00::internal::format::ParseOptions& o, std::string_view text,
                const uint8_t* chunks, size_t n_chunks) {
  auto p = f.make_parser(o);
  size_t pos = 0, k = 0;
  while (pos < text.size()) {
    size_t len = n_chunks ? 1 + chunks[k++ % n_chunks] % 16 : text.size();
    len = std::min(len, text.size() - pos);
    p->feed(text.substr(pos, len));
    pos += len;
  }
  p->finish();
  return ai00::internal::json::write(ai00::internal::format::to_json(p->result().message));
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  using namespace ai00::internal;
  if (size < 9) return 0;
  const auto names = format::format_names();
  auto f = format::make_format(names[data[0] % names.size()]);
  if (!f.ok()) return 0;
  format::ParseOptions o;
  o.thinking_open = (data[0] >> 4) & 1;
  if ((data[0] >> 5) & 1) o.extra_stops.push_back("\n\n");
  std::string_view text(reinterpret_cast<const char*>(data + 9), size - 9);
  std::string chunked = run(*f.value(), o, text, data + 1, 8);
  std::string whole = run(*f.value(), o, text, nullptr, 0);
  if (chunked != whole) std::abort();
  return 0;
}
