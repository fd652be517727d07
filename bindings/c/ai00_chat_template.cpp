// ChatTemplate handle of the C ABI: a chat format by name, rendering conversations given as
// JSON text into prompts kept in the handle (docs/chat-formats.md "Message model", "Formats").
#include <cstddef>
#include <string>
#include <vector>

#include "abi_template.h"
#include "format/json.h"
#include "format/message.h"

namespace ai00::internal::abi {

format::RenderOptions render_options(const ai00_render_options* o, const char* fn) {
  format::RenderOptions r;
  if (o == nullptr) return r;
  // The fields up to assistant_name_len are the first published struct; later ones are read
  // only when the caller's struct_size holds them.
  constexpr size_t kV1Size = offsetof(ai00_render_options, reflect);
  check_struct_size(o->struct_size, kV1Size, sizeof(ai00_render_options), fn,
                    "ai00_render_options");
  const auto has = [&](size_t offset, size_t size) { return o->struct_size >= offset + size; };
  if (has(offsetof(ai00_render_options, reflect), sizeof o->reflect)) r.reflect = o->reflect != 0;
  if (has(offsetof(ai00_render_options, introspect), sizeof o->introspect))
    r.introspect = o->introspect != 0;
  if (has(offsetof(ai00_render_options, prepend_token0), sizeof o->prepend_token0)) {
    if (o->prepend_token0 < -1 || o->prepend_token0 > 1)
      throw InvalidArgument(std::string(fn) + ": ai00_render_options.prepend_token0 = " +
                            std::to_string(o->prepend_token0) + " is not -1, 0 or 1");
    if (o->prepend_token0 >= 0) r.prepend_token0 = o->prepend_token0 == 1;
  }
  r.add_generation_prompt = o->add_generation_prompt != 0;
  switch (o->thinking) {
    case AI00_THINKING_OFF:
      r.thinking = format::Thinking::off;
      break;
    case AI00_THINKING_ON:
      r.thinking = format::Thinking::on;
      break;
    case AI00_THINKING_A_BIT:
      r.thinking = format::Thinking::a_bit;
      break;
    case AI00_THINKING_A_LOT:
      r.thinking = format::Thinking::a_lot;
      break;
    default:
      throw InvalidArgument(std::string(fn) + ": ai00_render_options.thinking = " +
                            std::to_string(o->thinking) + " is not an ai00_thinking");
  }
  std::string_view tools = text_arg(o->tools_json, o->tools_json_len, fn, "tools_json");
  if (!tools.empty()) r.tools = unwrap(format::parse_tools(tools), "tools_json");
  if (o->assistant_name != nullptr) {
    r.assistant_name =
        std::string(text_arg(o->assistant_name, o->assistant_name_len, fn, "assistant_name"));
  }
  return r;
}

}  // namespace ai00::internal::abi

namespace {
using ai00::internal::abi::require;
namespace format = ai00::internal::format;
namespace json = ai00::internal::json;

// The render and its constrained-decoding hints, indented by 2
// (ai00_chat_template_last_render_json).
std::string describe(const format::RenderResult& r) {
  json::Value stops(json::Array{});
  for (const auto& s : r.stop_sequences) stops.push_back(s);
  json::Value tools(json::Array{});
  for (const auto& t : r.constraints.tools) tools.push_back(format::to_json(t));
  const auto& c = r.constraints;
  json::Value hints(json::Object{});
  const bool calls = !c.tools.empty() && !c.syntax.tool_calls.trigger.empty();
  hints.set("tool_syntax", calls ? c.syntax.tool_calls.label : std::string("none"));
  hints.set("tool_trigger", calls ? c.syntax.tool_calls.trigger : std::string());
  hints.set("thinking_open_in_prompt", c.thinking_open_in_prompt);
  hints.set("think_open_marker", c.syntax.thinking.open);
  hints.set("think_close_marker", c.syntax.thinking.close);
  hints.set("thinking_open_completion",
            c.thinking_open_in_prompt ? c.syntax.thinking.forced_open_completion : std::string());
  hints.set("tools", tools);
  json::Value out(json::Object{});
  out.set("prompt", r.prompt);
  out.set("stop_sequences", stops);
  out.set("stop_on_token0", r.stop_on_token0);
  out.set("prepend_token0", r.prepend_token0);
  out.set("constraints", hints);
  return json::write(out, json::WriteStyle{2, false, true, false});
}

ai00::internal::abi::ErrorSlot* slot_of(const ai00_chat_template* t) {
  return t ? &t->error : nullptr;
}
}  // namespace

extern "C" {

AI00_API ai00_status ai00_render_options_default(ai00_render_options* out_options) {
  try {
    require(out_options, "ai00_render_options_default", "out_options");
    ai00_render_options d{};
    d.struct_size = sizeof(ai00_render_options);
    d.add_generation_prompt = 1;
    d.thinking = AI00_THINKING_OFF;
    d.prepend_token0 = -1;
    ai00::internal::abi::write_default(out_options, d, offsetof(ai00_render_options, reflect));
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_chat_template_new(ai00_chat_template** out_template, const char* name,
                                            size_t name_len) {
  try {
    require(out_template, "ai00_chat_template_new", "out_template");
    require(name, "ai00_chat_template_new", "name");
    std::string_view n =
        ai00::internal::abi::text_arg(name, name_len, "ai00_chat_template_new", "name");
    auto t = std::make_unique<ai00_chat_template>();
    t->format = ai00::internal::abi::unwrap(ai00::internal::format::make_format(n),
                                            "ai00_chat_template_new");
    *out_template = t.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_chat_template_new_with_config(ai00_chat_template** out_template,
                                                        const char* name, size_t name_len,
                                                        const char* config_toml,
                                                        size_t config_len) {
  try {
    const char* fn = "ai00_chat_template_new_with_config";
    require(out_template, fn, "out_template");
    require(name, fn, "name");
    require(config_toml, fn, "config_toml");
    std::string_view n = ai00::internal::abi::text_arg(name, name_len, fn, "name");
    std::string_view toml =
        ai00::internal::abi::text_arg(config_toml, config_len, fn, "config_toml");
    auto t = std::make_unique<ai00_chat_template>();
    t->config = ai00::internal::abi::unwrap(format::parse_prompts_config(toml, "config"), fn);
    t->format = ai00::internal::abi::unwrap(format::make_format(n, t->config), fn);
    *out_template = t.release();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_chat_template_sampler_preset(ai00_sampler_params* out_params,
                                                       const ai00_chat_template* tmpl,
                                                       const char* name, size_t name_len) {
  try {
    const char* fn = "ai00_chat_template_sampler_preset";
    require(out_params, fn, "out_params");
    require(tmpl, fn, "tmpl");
    require(name, fn, "name");
    std::string_view n = ai00::internal::abi::text_arg(name, name_len, fn, "name");
    const format::ConfigPreset* p = tmpl->config.preset(n);
    if (p == nullptr) {
      std::string known;
      for (const auto& q : tmpl->config.presets) known += (known.empty() ? "" : ", ") + q.name;
      throw ai00::internal::InvalidArgument(std::string(fn) + ": unknown preset \"" +
                                            std::string(n) + "\" (known: " + known + ")");
    }
    ai00_sampler_params s{};
    const ai00_status st = ai00_sampler_params_default(&s);
    if (st != AI00_OK) return st;
    s.temperature = p->temperature;
    s.top_p = p->top_p;
    s.top_k = static_cast<uint32_t>(p->top_k);
    s.presence_penalty = p->presence_penalty;
    s.frequency_penalty = p->frequency_penalty;
    s.penalty_decay = p->penalty_decay;
    *out_params = s;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(tmpl));
  }
}

AI00_API ai00_status ai00_chat_template_render_fim(const char** out_prompt, size_t* out_len,
                                                   ai00_chat_template* tmpl, const char* prefix,
                                                   size_t prefix_len, const char* suffix,
                                                   size_t suffix_len) {
  try {
    const char* fn = "ai00_chat_template_render_fim";
    require(out_prompt, fn, "out_prompt");
    require(out_len, fn, "out_len");
    require(tmpl, fn, "tmpl");
    require(prefix, fn, "prefix");
    require(suffix, fn, "suffix");
    auto p = ai00::internal::abi::text_arg(prefix, prefix_len, fn, "prefix");
    auto q = ai00::internal::abi::text_arg(suffix, suffix_len, fn, "suffix");
    tmpl->raw_prompt = ai00::internal::abi::unwrap(tmpl->format->render_fim(p, q), "render_fim");
    *out_prompt = tmpl->raw_prompt.c_str();
    *out_len = tmpl->raw_prompt.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(tmpl));
  }
}

AI00_API ai00_status ai00_chat_template_render_files(const char** out_prompt, size_t* out_len,
                                                     ai00_chat_template* tmpl,
                                                     const char* const* files,
                                                     const size_t* file_lens, size_t n_files,
                                                     int32_t leading_separator) {
  try {
    const char* fn = "ai00_chat_template_render_files";
    require(out_prompt, fn, "out_prompt");
    require(out_len, fn, "out_len");
    require(tmpl, fn, "tmpl");
    if (n_files > 0) {
      require(files, fn, "files");
      require(file_lens, fn, "file_lens");
    }
    std::vector<std::string> texts;
    for (size_t k = 0; k < n_files; ++k) {
      const std::string field = "files[" + std::to_string(k) + "]";
      require(files[k], fn, field.c_str());
      texts.emplace_back(ai00::internal::abi::text_arg(files[k], file_lens[k], fn, field.c_str()));
    }
    tmpl->raw_prompt = ai00::internal::abi::unwrap(
        tmpl->format->render_files(texts, leading_separator != 0), "render_files");
    *out_prompt = tmpl->raw_prompt.c_str();
    *out_len = tmpl->raw_prompt.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(tmpl));
  }
}

AI00_API ai00_status ai00_chat_template_parse_transcript(const char** out_json, size_t* out_len,
                                                         ai00_chat_template* tmpl, const char* text,
                                                         size_t text_len) {
  try {
    const char* fn = "ai00_chat_template_parse_transcript";
    require(out_json, fn, "out_json");
    require(out_len, fn, "out_len");
    require(tmpl, fn, "tmpl");
    require(text, fn, "text");
    auto t = ai00::internal::abi::text_arg(text, text_len, fn, "text");
    auto conv = ai00::internal::abi::unwrap(tmpl->format->parse_transcript(t), "transcript");
    tmpl->transcript_json = json::write(format::to_json(conv));
    *out_json = tmpl->transcript_json.c_str();
    *out_len = tmpl->transcript_json.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(tmpl));
  }
}

AI00_API ai00_status ai00_chat_template_free(ai00_chat_template* tmpl) {
  try {
    delete tmpl;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API const char* ai00_chat_template_last_error(const ai00_chat_template* tmpl) {
  try {
    return tmpl ? tmpl->error.get() : "";
  } catch (...) {
    return "";
  }
}

AI00_API ai00_status ai00_chat_template_render(const char** out_prompt, size_t* out_len,
                                               ai00_chat_template* tmpl,
                                               const char* conversation_json,
                                               size_t conversation_len,
                                               const ai00_render_options* options) {
  try {
    const char* fn = "ai00_chat_template_render";
    require(out_prompt, fn, "out_prompt");
    require(out_len, fn, "out_len");
    require(tmpl, fn, "tmpl");
    require(conversation_json, fn, "conversation_json");
    std::string_view json =
        ai00::internal::abi::text_arg(conversation_json, conversation_len, fn, "conversation_json");
    auto conversation = ai00::internal::abi::unwrap(
        ai00::internal::format::parse_conversation(json), "conversation");
    ai00::internal::format::RenderOptions ro = ai00::internal::abi::render_options(options, fn);
    tmpl->last = ai00::internal::abi::unwrap(tmpl->format->render(conversation, ro), "render");
    tmpl->rendered = true;
    *out_prompt = tmpl->last.prompt.c_str();
    *out_len = tmpl->last.prompt.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(tmpl));
  }
}

AI00_API ai00_status ai00_chat_template_stop_count(size_t* out_count,
                                                   const ai00_chat_template* tmpl) {
  try {
    require(out_count, "ai00_chat_template_stop_count", "out_count");
    require(tmpl, "ai00_chat_template_stop_count", "tmpl");
    *out_count = tmpl->last.stop_sequences.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(tmpl));
  }
}

AI00_API ai00_status ai00_chat_template_stop(const char** out_text, size_t* out_len,
                                             const ai00_chat_template* tmpl, size_t index) {
  try {
    const char* fn = "ai00_chat_template_stop";
    require(out_text, fn, "out_text");
    require(out_len, fn, "out_len");
    require(tmpl, fn, "tmpl");
    const auto& stops = tmpl->last.stop_sequences;
    if (index >= stops.size()) {
      throw ai00::internal::InvalidArgument(std::string(fn) + ": index " + std::to_string(index) +
                                            " is past the " + std::to_string(stops.size()) +
                                            " stop strings of the last render");
    }
    *out_text = stops[index].c_str();
    *out_len = stops[index].size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(tmpl));
  }
}

AI00_API ai00_status ai00_chat_template_last_render_json(const char** out_json, size_t* out_len,
                                                         ai00_chat_template* tmpl) {
  try {
    const char* fn = "ai00_chat_template_last_render_json";
    require(out_json, fn, "out_json");
    require(out_len, fn, "out_len");
    require(tmpl, fn, "tmpl");
    if (!tmpl->rendered) {
      throw ai00::internal::InvalidArgument(std::string(fn) +
                                            ": the template has not rendered anything yet");
    }
    tmpl->last_json = describe(tmpl->last);
    *out_json = tmpl->last_json.c_str();
    *out_len = tmpl->last_json.size();
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot_of(tmpl));
  }
}

}  // extern "C"
