#include "format_flags.h"

#include <string>
#include <utility>

#include "base/error.h"

using namespace ai00::internal;  // NOLINT: interim, until the command uses the public API
namespace cli = ai00::cli;

namespace ai00::cli {

std::vector<format::ToolDesc> load_tools_flag(const Args& args) {
  auto path = args.get("--tools");
  if (!path) return {};
  auto tools = format::parse_tools(read_text_file(*path));
  if (!tools) throw FormatError(*path + ": " + tools.error().message);
  return std::move(tools).value();
}

format::Thinking thinking_flag(const Args& args) {
  auto name = args.get("--thinking").value_or("off");
  auto t = format::thinking_from_name(name);
  if (!t) throw UsageError("--thinking must be off, on, a-bit or a-lot, got '" + name + "'");
  return *t;
}

}  // namespace ai00::cli
