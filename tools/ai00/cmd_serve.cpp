// `ai00 serve`: an OpenAI-compatible HTTP server on the public API (docs/server.md). This file
// reads the flags, loads the model and starts serve/http_server.h; SIGINT / SIGTERM stop it.
#include <pthread.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <thread>

#include "command.h"
#include "generate_flags.h"
#include "serve/api_error.h"
#include "serve/http_server.h"
#include "serve/scheduler.h"

namespace ai00::cli {
namespace {

std::string basename_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

serve::ParserSettings parser_settings(const Args& a, serve::GenerationScheduler& scheduler,
                                      const std::string& format) {
  serve::ParserSettings s;
  s.model_name = a.get("--model-name").value_or(basename_of(a.require("--model")));
  s.chat_format = format;
  s.max_tokens_limit = static_cast<uint32_t>(a.get_int("--max-tokens-limit", 4096, 1, UINT32_MAX));
  s.default_max_tokens =
      static_cast<uint32_t>(a.get_int("--max-tokens", 256, 1, s.max_tokens_limit));
  s.default_sampler = sampler_flags(a);
  s.preset = [&scheduler, format](const std::string& name) {
    ai00::SamplerParams p;
    try {
      static_cast<ai00_sampler_params&>(p) = scheduler.make_template(format).sampler_preset(name);
    } catch (const ai00::Error& e) {
      throw serve::field_error("/preset", e.what());
    }
    return p;
  };
  return s;
}

// Blocks SIGINT and SIGTERM in every thread started after it; one thread waits for them.
sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client that left is a failed write, never a signal
  return set;
}

int serve_command(const std::vector<std::string>& args) {
  // The model and sampler flags of `ai00 generate` (the sampler ones are the defaults of every
  // request) plus the server's own; --seed and --stop are per request only.
  std::vector<std::string> flags = {
      "--model",      "--vocab",          "--threads",       "--isa",        "--preset",
      "--sampler",    "--temperature",    "--top-p",         "--top-k",      "--min-p",
      "--presence",   "--frequency",      "--decay",         "--repetition", "--max-tokens",
      "--host",       "--port",           "--config",        "--api-key",    "--format",
      "--parallel",   "--queue",          "--queue-timeout", "--max-body",   "--max-tokens-limit",
      "--model-name", "--prefix-cache-mb"};
  flags.push_back("--activations");  // a model flag, as for generate (load_model_flag)
  const Args a(args, flags, {});
  const std::string format = a.get("--format").value_or("ai00-v1");
  const std::string config = a.get("--config") ? read_text_file(*a.get("--config")) : "";
  serve::SchedulerLimits limits;
  limits.parallel = static_cast<unsigned>(a.get_int("--parallel", 4, 1, 1024));
  limits.queue = static_cast<unsigned>(a.get_int("--queue", 64, 0, 100000));
  limits.queue_timeout =
      std::chrono::milliseconds(a.get_int("--queue-timeout", 120, 1, 86400) * 1000);
  limits.prefix_cache_bytes = static_cast<uint64_t>(a.get_int("--prefix-cache-mb", 256, 0, 1 << 20))
                              << 20;
  serve::ServerOptions o;
  o.host = a.get("--host").value_or("127.0.0.1");
  o.port = static_cast<int>(a.get_int("--port", 8080, 0, 65535));
  o.api_key = a.get("--api-key").value_or("");
  o.max_body_bytes = static_cast<size_t>(a.get_int("--max-body", 4 << 20, 1, 1ll << 32));
  o.http_threads = limits.parallel + limits.queue + 4;

  // Before any thread starts (the model's pool, the scheduler's batch engine): a stop signal
  // delivered to a thread that does not block it would end the process at once.
  const sigset_t stop_signals = block_stop_signals();
  serve::GenerationScheduler scheduler(load_model_flag(a), config, limits);
  scheduler.make_template(format);  // an unknown --format or a bad --config fails now
  serve::HttpServer server(scheduler, parser_settings(a, scheduler, format), o);
  const int port = server.bind();
  std::printf("ai00 serve: listening on http://%s:%d\n", o.host.c_str(), port);
  std::fflush(stdout);
  std::atomic<bool> served{false};
  std::thread stopper([&] {
    const timespec tick{0, 200 * 1000 * 1000};
    while (!served.load()) {
      if (sigtimedwait(&stop_signals, nullptr, &tick) > 0) {
        server.stop();
        return;
      }
    }
  });
  server.serve();
  served.store(true);
  stopper.join();
  return kExitOk;
}

}  // namespace

AI00_COMMAND(
    "serve",
    "  serve --model FILE [--vocab FILE] [--threads N] [--isa NAME] [--activations dot|exact]\n"
    "      [--host 127.0.0.1] [--port 8080 (0: any)]\n"
    "      [--format ai00-v1|goose|openchatml|ai00-v0] [--config prompts.toml] [--api-key KEY]\n"
    "      [--parallel 4] [--queue 64] [--queue-timeout 120] [--max-body 4194304]\n"
    "      [--max-tokens 256] [--max-tokens-limit 4096] [--model-name NAME]\n"
    "      [--prefix-cache-mb 256 (0: off)]\n"
    "      [--preset NAME] [--temperature T] [--top-p P] ... (sampler defaults, as for generate)\n"
    "      OpenAI-compatible HTTP server (docs/server.md); prints the bound address on stdout",
    serve_command);

}  // namespace ai00::cli
