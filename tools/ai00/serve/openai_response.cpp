#include "openai_response.h"

#include <chrono>
#include <random>

#include "json_reader.h"

namespace ai00::serve {
namespace {

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string random_hex(size_t n) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) out += digits[rng() % 16];
  return out;
}

Json usage(size_t prompt_tokens, size_t completion_tokens) {
  return {{"prompt_tokens", prompt_tokens},
          {"completion_tokens", completion_tokens},
          {"total_tokens", prompt_tokens + completion_tokens}};
}

Json tool_calls_json(const std::vector<ai00::ToolCall>& calls) {
  Json out = Json::array();
  for (const ai00::ToolCall& c : calls)
    out.push_back({{"id", c.id},
                   {"type", "function"},
                   {"function", {{"name", c.name}, {"arguments", c.arguments_json}}}});
  return out;
}

Json message_json(const ai00::Message& m) {
  Json out = {{"role", "assistant"}};
  // OpenAI sends content null on a reply that is only tool calls.
  out["content"] = (m.content.empty() && !m.tool_calls.empty()) ? Json(nullptr) : Json(m.content);
  if (!m.reasoning.empty()) out["reasoning_content"] = m.reasoning;
  if (!m.tool_calls.empty()) out["tool_calls"] = tool_calls_json(m.tool_calls);
  return out;
}

}  // namespace

ResponseMeta make_meta(bool chat, const std::string& model) {
  ResponseMeta m;
  m.chat = chat;
  m.id = (chat ? "chatcmpl-" : "cmpl-") + random_hex(24);
  m.created = std::chrono::duration_cast<std::chrono::seconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  m.model = model;
  return m;
}

const char* openai_finish_reason(ai00::FinishReason r) {
  switch (r) {
    case ai00::FinishReason::length:
      return "length";
    case ai00::FinishReason::tool_calls:
      return "tool_calls";
    default:
      return "stop";
  }
}

std::string completion_json(const ResponseMeta& meta, const TurnResult& result) {
  Json choice = {{"index", 0}, {"finish_reason", openai_finish_reason(result.finish)}};
  if (meta.chat) {
    choice["message"] = message_json(result.message);
  } else {
    choice["text"] = result.message.content;
    choice["logprobs"] = nullptr;
  }
  const Json out = {{"id", meta.id},
                    {"object", meta.chat ? "chat.completion" : "text_completion"},
                    {"created", meta.created},
                    {"model", meta.model},
                    {"choices", Json::array({choice})},
                    {"usage", usage(result.prompt_tokens, result.completion_tokens)}};
  return dump(out);
}

std::string ChunkBuilder::chunk(const std::string& payload_json, const char* finish) const {
  Json choice = {{"index", 0}, {"finish_reason", finish ? Json(finish) : Json(nullptr)}};
  if (meta_.chat) {
    choice["delta"] = Json::parse(payload_json);
  } else {
    choice["text"] = Json::parse(payload_json);
    choice["logprobs"] = nullptr;
  }
  Json out = {{"id", meta_.id},
              {"object", meta_.chat ? "chat.completion.chunk" : "text_completion"},
              {"created", meta_.created},
              {"model", meta_.model},
              {"choices", Json::array({choice})}};
  if (include_usage_) out["usage"] = nullptr;  // as OpenAI: null on every chunk but the last
  return dump(out);
}

std::string ChunkBuilder::role_chunk() const {
  if (!meta_.chat) return "";
  return chunk(R"({"role":"assistant","content":""})", nullptr);
}

std::string ChunkBuilder::tool_start_chunk(const ai00::Delta& d) const {
  const Json start = {{"index", d.call},
                      {"id", d.id},
                      {"type", "function"},
                      {"function", {{"name", d.name}, {"arguments", ""}}}};
  return chunk(dump(Json{{"tool_calls", Json::array({start})}}), nullptr);
}

std::string ChunkBuilder::tool_arguments_chunk(uint32_t call, const std::string& piece) const {
  const Json args = {{"index", call}, {"function", {{"arguments", piece}}}};
  return chunk(dump(Json{{"tool_calls", Json::array({args})}}), nullptr);
}

std::vector<std::string> ChunkBuilder::delta_chunks(const ai00::Delta& d) {
  std::vector<std::string> out;
  if (!meta_.chat) {
    if (d.kind == ai00::DeltaKind::text && !d.text.empty())
      out.push_back(chunk(dump(d.text), nullptr));
    return out;
  }
  switch (d.kind) {
    case ai00::DeltaKind::text:
      if (!d.text.empty()) out.push_back(chunk(dump(Json{{"content", d.text}}), nullptr));
      break;
    case ai00::DeltaKind::reasoning:
      if (!d.text.empty()) out.push_back(chunk(dump(Json{{"reasoning_content", d.text}}), nullptr));
      break;
    case ai00::DeltaKind::tool_call_start:
      if (previewed_.size() <= d.call) previewed_.resize(d.call + 1, Previewed::no);
      previewed_[d.call] = d.name.empty() ? Previewed::unnamed : Previewed::named;
      out.push_back(tool_start_chunk(d));
      break;
    case ai00::DeltaKind::tool_call_arguments:
      if (!d.text.empty()) out.push_back(tool_arguments_chunk(d.call, d.text));
      break;
    case ai00::DeltaKind::tool_call: {
      // Streamed already: the whole call only closes it (a started call that turned out
      // malformed has no text; its fragments stay sent, as an OpenAI stream cannot take them
      // back).
      if (d.call < previewed_.size() && previewed_[d.call] != Previewed::no) {
        if (d.valid && previewed_[d.call] == Previewed::unnamed) {
          const Json name = {{"index", d.call}, {"function", {{"name", d.name}}}};
          out.push_back(chunk(dump(Json{{"tool_calls", Json::array({name})}}), nullptr));
        }
        previewed_[d.call] = Previewed::no;
        break;
      }
      if (!d.valid) {  // a malformed call is text (ai00::accumulate does the same)
        if (!d.text.empty()) out.push_back(chunk(dump(Json{{"content", d.text}}), nullptr));
        break;
      }
      out.push_back(tool_start_chunk(d));
      out.push_back(tool_arguments_chunk(d.call, d.text));
      break;
    }
    default:  // finish: finish_chunk()
      break;
  }
  return out;
}

std::string ChunkBuilder::finish_chunk(ai00::FinishReason r) const {
  return chunk(meta_.chat ? "{}" : "\"\"", openai_finish_reason(r));
}

std::string ChunkBuilder::usage_chunk(size_t prompt_tokens, size_t completion_tokens) const {
  const Json out = {{"id", meta_.id},
                    {"object", meta_.chat ? "chat.completion.chunk" : "text_completion"},
                    {"created", meta_.created},
                    {"model", meta_.model},
                    {"choices", Json::array()},
                    {"usage", usage(prompt_tokens, completion_tokens)}};
  return dump(out);
}

}  // namespace ai00::serve
