#include "format_flags.h"

#include <string>

namespace ai00::cli {

ai00::ChatTemplate template_flag(const Args& args) {
  const std::string name = args.require("--format");
  if (auto path = args.get("--config")) {
    const std::string toml = read_text_file(*path);
    try {
      return ai00::ChatTemplate::with_config(name, toml);
    } catch (const ai00::Error& e) {
      // "ai00_chat_template_new_with_config: config:3:7: ..." -> "<path>:3:7: ...".
      const std::string what = e.what();
      const std::string fn = "ai00_chat_template_new_with_config: ";
      std::string rest = what.compare(0, fn.size(), fn) == 0 ? what.substr(fn.size()) : what;
      if (rest.compare(0, 7, "config:") == 0) rest = *path + rest.substr(6);
      throw UsageError(rest);
    }
  }
  try {
    return ai00::ChatTemplate(name);
  } catch (const ai00::Error& e) {
    // "ai00_chat_template_new: unknown chat format ..." -> the part a user needs.
    const std::string what = e.what();
    const std::string fn = "ai00_chat_template_new: ";
    throw UsageError(what.compare(0, fn.size(), fn) == 0 ? what.substr(fn.size()) : what);
  }
}

std::string tools_flag(const Args& args) {
  auto path = args.get("--tools");
  return path ? read_text_file(*path) : std::string();
}

ai00_thinking thinking_flag(const Args& args) {
  const std::string name = args.get("--thinking").value_or("off");
  if (name == "off") return AI00_THINKING_OFF;
  if (name == "on") return AI00_THINKING_ON;
  if (name == "a-bit") return AI00_THINKING_A_BIT;
  if (name == "a-lot") return AI00_THINKING_A_LOT;
  throw UsageError("--thinking must be off, on, a-bit or a-lot, got '" + name + "'");
}

}  // namespace ai00::cli
