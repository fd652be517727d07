#include "base/error.h"

namespace ai00::internal::detail {

void throw_check_failed(const char* file, int line, const char* cond, const std::string& message) {
  std::string text =
      std::string(file) + ":" + std::to_string(line) + ": check `" + cond + "` failed";
  if (!message.empty()) text += ": " + message;
  throw InternalError(text);
}

}  // namespace ai00::internal::detail
