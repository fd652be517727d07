// Flags shared by the subcommands that take a chat format: --tools FILE and --thinking LEVEL.
#pragma once

#include <vector>

#include "command.h"
#include "format/format.h"
#include "format/message.h"

namespace ai00::cli {

namespace format = ai00::internal::format;

// The tools of `--tools FILE` (a JSON array of tool descriptions); empty without the flag.
// Throws FormatError naming the file and the JSON pointer.
std::vector<format::ToolDesc> load_tools_flag(const Args& args);

// `--thinking off|on|a-bit|a-lot` (default off); UsageError for any other value.
format::Thinking thinking_flag(const Args& args);

}  // namespace ai00::cli
