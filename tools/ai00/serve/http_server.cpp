#include "http_server.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "api_error.h"
#include "json_reader.h"
#include "openai_response.h"
#include "sse_stream.h"

namespace ai00::serve {
namespace {

void send_error(httplib::Response& res, const ApiError& e) {
  res.status = e.http_status();
  res.set_content(e.body(), "application/json");
}

// Runs a handler; whatever it throws becomes an error response (the server never dies on a
// request).
template <typename F>
void guarded(httplib::Response& res, F&& f) {
  try {
    f();
  } catch (const ApiError& e) {
    send_error(res, e);
  } catch (const ai00::Error& e) {
    send_error(res, ApiError(500, e.what(), "", "server_error"));
  } catch (const std::bad_alloc&) {
    send_error(res, ApiError(503, "out of memory", "", "server_error"));
  } catch (const std::exception& e) {
    send_error(res, ApiError(500, e.what(), "", "server_error"));
  }
}

// A status httplib produced itself (404, 413, ...) in OpenAI's shape.
ApiError status_error(int status) {
  switch (status) {
    case 404:
      return ApiError(404, "no such route", "", "invalid_request_error", "not_found");
    case 405:
      return ApiError(405, "method not allowed", "", "invalid_request_error");
    case 413:
      return ApiError(413, "request body over the size limit (--max-body)", "",
                      "invalid_request_error", "body_too_large");
    default:
      return ApiError(status, "HTTP error " + std::to_string(status), "",
                      status >= 500 ? "server_error" : "invalid_request_error");
  }
}

// How often a non-streamed reply writes one byte of JSON's leading whitespace while its turn
// runs. httplib 0.11 tells a handler nothing of a client that left; only a write can: the first
// write after the peer closed still succeeds (it draws the peer's RST), the next fails. So a
// client gone is noticed within two intervals and its generation cancelled; each beat costs 6
// bytes on the wire ("1\r\n \r\n"). It also keeps idle-timeout proxies from cutting a long reply.
constexpr std::chrono::milliseconds kHeartbeat{500};

// Not "application/json" alone: httplib 0.11 gzips exactly that type for a client that accepts
// gzip (the openai client does), and its compressor holds a chunk's bytes back until the end,
// so no heartbeat would reach the socket and a closed one would never be noticed.
constexpr const char* kJsonChunked = "application/json; charset=utf-8";

// Sets `res` up to answer `turn` (which it owns from now on) with one JSON body, sent chunked:
// whitespace heartbeats while the turn runs (a failed one cancels it), then the body. httplib
// sends the 200 and the headers before it calls the provider, so an error found while the turn
// runs is OpenAI's error object in a 200 body (docs/server.md "Cancellation").
void reply_turn(httplib::Response& res, std::shared_ptr<Turn> turn, ResponseMeta meta) {
  auto provider = [turn, meta](size_t, httplib::DataSink& sink) mutable {
    std::string body;
    try {
      TurnTick beat;
      beat.fn = [&sink] { return sink.is_writable() && sink.write(" ", 1); };
      beat.interval = kHeartbeat;
      const TurnResult result = turn->run({}, beat);
      turn.reset();  // free the slot before writing the response
      if (result.finish == ai00::FinishReason::cancelled) return false;  // the client left
      body = result.finish == ai00::FinishReason::error
                 ? ApiError(500, "generation failed: " + result.error, "", "server_error").body()
                 : completion_json(meta, result);
    } catch (const std::bad_alloc&) {
      turn.reset();
      body = ApiError(503, "out of memory", "", "server_error").body();
    } catch (const std::exception& e) {
      turn.reset();
      body = ApiError(500, e.what(), "", "server_error").body();
    }
    if (!sink.write(body.data(), body.size())) return false;
    sink.done();
    return true;
  };
  res.set_chunked_content_provider(kJsonChunked, std::move(provider));
}

}  // namespace

HttpServer::HttpServer(GenerationScheduler& scheduler, ParserSettings settings,
                       ServerOptions options)
    : scheduler_(scheduler), settings_(std::move(settings)), options_(std::move(options)) {
  const unsigned threads = options_.http_threads;
  server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_.set_payload_max_length(options_.max_body_bytes);
  install_routes();
}

bool HttpServer::authorized(const httplib::Request& req, httplib::Response& res) const {
  if (options_.api_key.empty()) return true;
  if (req.get_header_value("Authorization") == "Bearer " + options_.api_key) return true;
  send_error(res, ApiError(401, "invalid or missing API key (Authorization: Bearer KEY)", "",
                           "invalid_request_error", "invalid_api_key"));
  return false;
}

void HttpServer::install_routes() {
  using httplib::Server;
  server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // /health stays open so a supervisor can probe without the key.
    if (req.path == "/health" || authorized(req, res)) return Server::HandlerResponse::Unhandled;
    return Server::HandlerResponse::Handled;
  });
  server_.Get("/health", [this](const httplib::Request&, httplib::Response& res) { health(res); });
  server_.Get("/v1/models",
              [this](const httplib::Request&, httplib::Response& res) { models(res); });
  server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    generate(req, res, true);
  });
  server_.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
    generate(req, res, false);
  });
  server_.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) send_error(res, status_error(res.status));
  });
  // One line per request on stderr (stdout carries only the bound address).
  server_.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    std::fprintf(stderr, "%s %s %d\n", req.method.c_str(), req.path.c_str(), res.status);
  });
  server_.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        send_error(res, ApiError(500, "internal error", "", "server_error"));
      });
}

void HttpServer::generate(const httplib::Request& req, httplib::Response& res, bool chat) {
  guarded(res, [&] {
    const GenerationRequest request = chat ? parse_chat_request(req.body, settings_)
                                           : parse_completion_request(req.body, settings_);
    std::shared_ptr<Turn> turn = scheduler_.submit(request);
    const ResponseMeta meta = make_meta(chat, request.model_name);
    if (request.stream) {
      stream_turn(res, std::move(turn), ChunkBuilder(meta, request.include_usage),
                  request.include_usage);
      return;
    }
    reply_turn(res, std::move(turn), meta);
  });
}

void HttpServer::health(httplib::Response& res) const {
  const SchedulerStats s = scheduler_.stats();
  Json body = {{"status", "ok"},           {"active_generations", s.active},
               {"queued", s.queued},       {"completed", s.completed},
               {"cancelled", s.cancelled}, {"rejected", s.rejected}};
  const EngineStats e = scheduler_.engine_stats();
  body["batch"] = {{"members", e.members},
                   {"max_members", e.max_members},
                   {"step_calls", e.step_calls},
                   {"steps", e.steps},
                   {"tokens_sampled", e.tokens_sampled},
                   {"prompt_tokens", e.prompt_tokens}};
  if (const auto c = scheduler_.prefix_cache_stats()) {
    body["prefix_cache"] = {
        {"hits", c->hits},       {"misses", c->misses},       {"hit_tokens", c->hit_tokens},
        {"inserts", c->inserts}, {"evictions", c->evictions}, {"entries", c->entries},
        {"bytes", c->bytes},     {"max_bytes", c->max_bytes}, {"spare_bytes", c->spare_bytes}};
  } else {
    body["prefix_cache"] = nullptr;  // --prefix-cache-mb 0
  }
  res.set_content(body.dump(), "application/json");
}

void HttpServer::models(httplib::Response& res) const {
  const Json model = {
      {"id", settings_.model_name}, {"object", "model"}, {"created", 0}, {"owned_by", "ai00"}};
  res.set_content(Json{{"object", "list"}, {"data", Json::array({model})}}.dump(),
                  "application/json");
}

int HttpServer::bind() {
  const int port = options_.port == 0
                       ? server_.bind_to_any_port(options_.host)
                       : (server_.bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0)
    throw std::runtime_error("cannot listen on " + options_.host + ":" +
                             std::to_string(options_.port));
  return port;
}

void HttpServer::serve() { server_.listen_after_bind(); }

}  // namespace ai00::serve
