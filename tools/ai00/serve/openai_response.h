// OpenAI response bodies built from a turn: chat.completion and text_completion objects, their
// streamed chunk objects (chat.completion.chunk with choices[0].delta), usage and finish reasons.
// Only JSON text here; sse_stream.h writes the chunks, http_server.cpp the whole responses.
#pragma once

#include <ai00/ai00.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "scheduler.h"

namespace ai00::serve {

// What every object of one response shares.
struct ResponseMeta {
  std::string id;       // "chatcmpl-<hex>" or "cmpl-<hex>"
  int64_t created = 0;  // Unix seconds
  std::string model;
  bool chat = true;  // chat.completion(.chunk) or text_completion
};

ResponseMeta make_meta(bool chat, const std::string& model);

// OpenAI's finish_reason: "stop" (a stop string, end of text, or the grammar completed),
// "length", "tool_calls"; cancelled and error have no OpenAI name and are never sent as one.
const char* openai_finish_reason(ai00::FinishReason r);

// The whole non-streamed response.
std::string completion_json(const ResponseMeta& meta, const TurnResult& result);

// Chunks of a streamed response. Every chunk is one JSON object (without "data: ").
class ChunkBuilder {
 public:
  ChunkBuilder(ResponseMeta meta, bool include_usage)
      : meta_(std::move(meta)), include_usage_(include_usage) {}
  // The first chat chunk: delta {"role": "assistant", "content": ""}; "" for completions.
  std::string role_chunk() const;
  // The chunks one delta turns into (none for a finish or an empty piece). A tool call becomes
  // a chunk with index, id, type and function.name, then chunks with the arguments text: the
  // library's previews (GenerateOptions::stream_tool_calls: tool_call_start, then
  // tool_call_arguments pieces) as they come, and the whole call then only adds the name when
  // the start had none (OpenChatML writes the arguments before the name; OpenAI clients
  // concatenate name fragments); a call without previews in two chunks when it closes.
  std::vector<std::string> delta_chunks(const ai00::Delta& d);
  // The chunk with the finish_reason and an empty delta.
  std::string finish_chunk(ai00::FinishReason r) const;
  // The last chunk with stream_options.include_usage: no choices, the usage.
  std::string usage_chunk(size_t prompt_tokens, size_t completion_tokens) const;

 private:
  std::string chunk(const std::string& delta_or_text_json, const char* finish) const;
  std::string tool_start_chunk(const ai00::Delta& d) const;
  std::string tool_arguments_chunk(uint32_t call, const std::string& piece) const;
  ResponseMeta meta_;
  bool include_usage_;
  // Per call position: its start went out as a preview, and whether that start had a name.
  enum class Previewed : uint8_t { no, named, unnamed };
  std::vector<Previewed> previewed_;
};

}  // namespace ai00::serve
