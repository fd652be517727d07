// The HTTP side of `ai00 serve`: routes, the API key, the body size limit and error responses
// in OpenAI's shape, on cpp-httplib (Debian's libcpp-httplib-dev). Generation goes through the
// GenerationScheduler; this file only turns HTTP requests into its calls and its results into
// responses.
//
// Routes: GET /health, GET /v1/models, POST /v1/chat/completions, POST /v1/completions.
// Threads: httplib's thread pool, sized so every request the scheduler may hold (running or
// queued) has a thread, plus a few for /health and refusals (docs/server.md "Threads").
#pragma once

#include <httplib.h>

#include <string>

#include "request_parser.h"
#include "scheduler.h"

namespace ai00::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;      // 0: any free port (the bound one is printed)
  std::string api_key;  // "" = no authentication
  size_t max_body_bytes = 4u << 20;
  unsigned http_threads = 8;  // httplib worker threads
};

class HttpServer {
 public:
  HttpServer(GenerationScheduler& scheduler, ParserSettings settings, ServerOptions options);
  // Binds the socket; returns the port (the free one chosen for port 0). Throws on failure.
  int bind();
  // Serves until stop(); blocks.
  void serve();
  // Any thread: ends serve().
  void stop() { server_.stop(); }

 private:
  void install_routes();
  bool authorized(const httplib::Request& req, httplib::Response& res) const;
  void generate(const httplib::Request& req, httplib::Response& res, bool chat);
  void health(httplib::Response& res) const;
  void models(httplib::Response& res) const;

  GenerationScheduler& scheduler_;
  ParserSettings settings_;
  ServerOptions options_;
  httplib::Server server_;
};

}  // namespace ai00::serve
