// Flags shared by the subcommands that take a chat format: --format NAME, --tools FILE and
// --thinking LEVEL.
#pragma once

#include <ai00/ai00.hpp>
#include <string>
#include <utility>

#include "command.h"

namespace ai00::cli {

// The chat template of `--format NAME` (required), configured by `--config FILE` (TOML,
// docs/chat-formats.md "Configuration") when given; an unknown name is a UsageError listing the
// known ones, a bad configuration one naming FILE:LINE:COLUMN.
ai00::ChatTemplate template_flag(const Args& args);

// The text of `--tools FILE` (a JSON array of tool descriptions); "" without the flag.
std::string tools_flag(const Args& args);

// `--thinking off|on|a-bit|a-lot` (default off); UsageError for any other value.
ai00_thinking thinking_flag(const Args& args);

// Runs `f`; a library error about the tool list ("tools_json: /0/name: ...") is rethrown naming
// the --tools file instead, as the user wrote it.
template <typename F>
auto naming_tools_file(const Args& args, F&& f) -> decltype(f()) {
  try {
    return std::forward<F>(f)();
  } catch (const ai00::Error& e) {
    const std::string what = e.what();
    const std::string prefix = "tools_json";
    const auto path = args.get("--tools");
    if (!path || what.compare(0, prefix.size(), prefix) != 0) throw;
    throw ai00::Error(e.status(), *path + what.substr(prefix.size()));
  }
}

}  // namespace ai00::cli
