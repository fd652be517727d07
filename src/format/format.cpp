// The format factory and the small shared definitions of format.h.
#include "format/format.h"

#include <fmt/format.h>

#include "base/rng.h"
#include "format/ai00_v0.h"
#include "format/ai00_v1.h"
#include "format/goose.h"
#include "format/openchatml.h"

namespace ai00::internal::format {

const char* thinking_name(Thinking t) {
  switch (t) {
    case Thinking::off:
      return "off";
    case Thinking::on:
      return "on";
    case Thinking::a_bit:
      return "a-bit";
    case Thinking::a_lot:
      return "a-lot";
  }
  return "off";
}

std::optional<Thinking> thinking_from_name(std::string_view name) {
  for (auto t : {Thinking::off, Thinking::on, Thinking::a_bit, Thinking::a_lot})
    if (name == thinking_name(t)) return t;
  return std::nullopt;
}

std::vector<std::string> format_names() { return {"ai00-v1", "ai00-v0", "goose", "openchatml"}; }

Result<std::shared_ptr<const ChatFormat>> make_format(std::string_view name) {
  if (name == "ai00-v1") return make_ai00_v1();
  if (name == "ai00-v0") return make_ai00_v0();
  if (name == "goose") return make_goose();
  if (name == "openchatml") return make_openchatml();
  return make_error(
      ErrorKind::invalid_argument,
      fmt::format("unknown chat format \"{}\" (known: {})", name, fmt::join(format_names(), ", ")));
}

Result<std::string> ChatFormat::render_fim(std::string_view, std::string_view) const {
  return make_error(ErrorKind::unsupported,
                    fmt::format("{} has no fill-in-the-middle syntax (openchatml has)", name()));
}

Result<std::string> ChatFormat::render_files(const std::vector<std::string>&, bool) const {
  return make_error(ErrorKind::unsupported,
                    fmt::format("{} has no multi-file syntax (openchatml has)", name()));
}

Result<std::vector<Message>> ChatFormat::parse_transcript(std::string_view) const {
  return make_error(ErrorKind::unsupported,
                    fmt::format("{} has no transcript parser (openchatml has)", name()));
}

std::string tool_call_id(uint64_t seed, size_t position) {
  // splitmix64 of the seed and the position: a fixed, documented mix, independent of the
  // sampling RNG so that ids never change which tokens are drawn.
  const uint64_t z = splitmix64_at(seed, static_cast<uint64_t>(position));
  return fmt::format("call_{:08x}", static_cast<uint32_t>(z));
}

}  // namespace ai00::internal::format
