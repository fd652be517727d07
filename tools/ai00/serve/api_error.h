// An error answered to an HTTP client in OpenAI's shape:
//   {"error": {"message": "...", "type": "invalid_request_error", "param": "/messages/0/role",
//              "code": null}}
// `param` is the JSON pointer of the offending request field ("" when no field is at fault, sent
// as null). Every request failure of the server is one of these: handlers throw it, the router
// turns it into the response, and nothing else escapes a handler (docs/server.md "Errors").
#pragma once

#include <stdexcept>
#include <string>

namespace ai00::serve {

class ApiError : public std::runtime_error {
 public:
  ApiError(int http_status, std::string message, std::string param = "",
           std::string type = "invalid_request_error", std::string code = "")
      : std::runtime_error(message),
        http_status_(http_status),
        param_(std::move(param)),
        type_(std::move(type)),
        code_(std::move(code)) {}

  int http_status() const noexcept { return http_status_; }
  const std::string& param() const noexcept { return param_; }
  const std::string& type() const noexcept { return type_; }
  const std::string& code() const noexcept { return code_; }

  // The response body: {"error": {message, type, param, code}}.
  std::string body() const;

 private:
  int http_status_;
  std::string param_;
  std::string type_;
  std::string code_;
};

// 400 for a field: the message starts with the pointer ("/temperature: expected a number").
inline ApiError field_error(const std::string& pointer, const std::string& what) {
  return ApiError(400, pointer + ": " + what, pointer);
}

}  // namespace ai00::serve
