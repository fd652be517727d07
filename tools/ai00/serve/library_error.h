// A library failure (ai00::Error) as the ApiError a client gets: the caller's input at fault
// (AI00_ERR_FORMAT, _GRAMMAR, _UNSUPPORTED, _INVALID_ARGUMENT, _MISMATCH) is a 400 whose param is
// the request's JSON pointer: "conversation: /0/role: ..." becomes /messages/0/role and
// "tools_json: /1/parameters: ..." /tools/1/parameters; anything else, and a complaint about
// the parameter structs the server filled itself, is a 500.
#pragma once

#include <ai00/ai00.hpp>
#include <string>

#include "api_error.h"

namespace ai00::serve {

ApiError library_error(const ai00::Error& e, const std::string& fallback_param);

}  // namespace ai00::serve
