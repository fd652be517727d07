#include "sse_stream.h"

#include <string>

#include "api_error.h"

namespace ai00::serve {
namespace {

bool send_event(httplib::DataSink& sink, const std::string& data) {
  const std::string event = "data: " + data + "\n\n";
  return sink.write(event.data(), event.size());
}

// Runs the turn, sending each delta's chunks; false once the client is gone (the turn is then
// cancelled and nothing more may be written).
bool run_streamed(Turn& turn, ChunkBuilder& chunks, bool include_usage,
                  httplib::DataSink& sink) {
  const TurnResult r = turn.run([&](const ai00::Delta& d) {
    for (const std::string& c : chunks.delta_chunks(d))
      if (!send_event(sink, c)) return false;  // cancels the turn
    return true;
  });
  if (r.finish == ai00::FinishReason::cancelled) return false;
  if (r.finish == ai00::FinishReason::error) {
    // The status line has gone out already: the error travels as an event, as OpenAI does.
    if (!send_event(sink,
                    ApiError(500, "generation failed: " + r.error, "", "server_error").body()))
      return false;
  } else if (!send_event(sink, chunks.finish_chunk(r.finish))) {
    return false;
  }
  if (include_usage && !send_event(sink, chunks.usage_chunk(r.prompt_tokens, r.completion_tokens)))
    return false;
  return send_event(sink, "[DONE]");
}

}  // namespace

void stream_turn(httplib::Response& res, std::shared_ptr<Turn> turn, ChunkBuilder chunks,
                 bool include_usage) {
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [turn, chunks, include_usage](size_t, httplib::DataSink& sink) mutable {
        const std::string role = chunks.role_chunk();
        const bool ok = (role.empty() || send_event(sink, role)) &&
                        run_streamed(*turn, chunks, include_usage, sink);
        if (ok) sink.done();
        return ok;  // false closes the connection
      });
}

}  // namespace ai00::serve
