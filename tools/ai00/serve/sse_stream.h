// Server-sent events for a streamed completion: "data: <chunk JSON>\n\n" per chunk, then
// "data: [DONE]\n\n", through httplib's chunked content provider. The provider runs the turn on
// the HTTP worker thread (it writes the deltas the scheduler's engine thread decodes); a write
// that fails (the client went away) makes the delta sink return false, which cancels the
// generation at the engine's next step (docs/server.md "Cancellation").
#pragma once

#include <httplib.h>

#include <memory>

#include "openai_response.h"
#include "scheduler.h"

namespace ai00::serve {

// Sets `res` up to stream `turn` (which it owns from now on) as OpenAI chunks.
void stream_turn(httplib::Response& res, std::shared_ptr<Turn> turn, ChunkBuilder chunks,
                 bool include_usage);

}  // namespace ai00::serve
