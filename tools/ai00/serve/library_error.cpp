#include "library_error.h"

namespace ai00::serve {
namespace {

// The pointer that follows `marker` in `what` ("conversation: /0/role: ..." -> "/0/role").
std::string pointer_after(const std::string& what, const std::string& marker) {
  const size_t at = what.find(marker + ": /");
  if (at == std::string::npos) return "";
  const size_t begin = at + marker.size() + 2;
  const size_t end = what.find(": ", begin);
  return what.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

bool is_input_error(ai00_status s) {
  return s == AI00_ERR_FORMAT || s == AI00_ERR_GRAMMAR || s == AI00_ERR_UNSUPPORTED ||
         s == AI00_ERR_INVALID_ARGUMENT || s == AI00_ERR_MISMATCH;
}

}  // namespace

ApiError library_error(const ai00::Error& e, const std::string& fallback_param) {
  const std::string what = e.what();
  // Parameter structs are filled by the server from checked fields: a complaint about them is
  // the server's fault, not the request's.
  const bool params_fault = what.find("ai00_sampler_params") != std::string::npos ||
                            what.find("ai00_generate_params") != std::string::npos;
  if (!is_input_error(e.status()) || params_fault)
    return ApiError(500, what, "", "server_error", ai00_status_string(e.status()));
  std::string param = fallback_param;
  if (auto p = pointer_after(what, "conversation"); !p.empty())
    param = "/messages" + p;
  else if (auto t = pointer_after(what, "tools_json"); !t.empty())
    param = "/tools" + t;
  else if (what.find("tools: ") != std::string::npos && fallback_param == "/messages")
    param = "/tools";
  const std::string message = param.empty() ? what : param + ": " + what;
  return ApiError(400, message, param);
}

}  // namespace ai00::serve
