#include "api_error.h"

#include "json_reader.h"

namespace ai00::serve {

std::string ApiError::body() const {
  const Json error = {{"message", what()},
                      {"type", type_},
                      {"param", param_.empty() ? Json(nullptr) : Json(param_)},
                      {"code", code_.empty() ? Json(nullptr) : Json(code_)}};
  return Json{{"error", error}}.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ai00::serve
