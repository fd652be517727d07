#include "request_fields.h"

#include <climits>

#include "api_error.h"

namespace ai00::serve {

void read_sampling(ObjectReader& r, const ParserSettings& s, ai00::GenerateOptions& out) {
  ai00::SamplerParams p = s.default_sampler;
  if (auto preset = r.string("preset")) p = s.preset(*preset);
  // Ranges are the library's (ai00.h "Sampler"), which contain OpenAI's.
  auto set = [&](const char* key, float& field, double lo, double hi) {
    if (auto v = r.number(key, lo, hi)) field = static_cast<float>(*v);
  };
  set("temperature", p.temperature, 0, 1000);
  set("top_p", p.top_p, 0, 1);
  set("min_p", p.min_p, 0, 1);
  set("presence_penalty", p.presence_penalty, -10, 10);
  set("frequency_penalty", p.frequency_penalty, -10, 10);
  set("repetition_penalty", p.repetition_penalty, 0.01, 100);
  set("penalty_decay", p.penalty_decay, 0, 1);
  if (auto k = r.integer("top_k", 0, UINT32_MAX)) p.top_k = static_cast<uint32_t>(*k);
  if (r.find("logit_bias"))
    throw field_error(r.at("logit_bias"),
                      "is not supported (OpenAI token ids do not name this model's tokens)");
  out.sampler = p;
  if (auto seed = r.integer("seed", LLONG_MIN, LLONG_MAX)) out.seed = static_cast<uint64_t>(*seed);
  auto a = r.integer("max_tokens", 1, s.max_tokens_limit);
  auto b = r.integer("max_completion_tokens", 1, s.max_tokens_limit);
  if (a && b && *a != *b)
    throw field_error(r.at("max_completion_tokens"), "differs from /max_tokens");
  out.max_tokens = static_cast<uint32_t>(a ? *a : b ? *b : s.default_max_tokens);
}

void read_stop(ObjectReader& r, ai00::GenerateOptions& out) {
  const Json* stop = r.find("stop");
  if (stop == nullptr) return;
  auto add = [&](const Json& v, const std::string& at) {
    if (!v.is_string()) throw field_error(at, "expected a string, got " + json_type_name(v));
    if (v.get<std::string>().empty()) throw field_error(at, "must not be empty");
    out.stop_sequences.push_back(v.get<std::string>());
  };
  if (stop->is_array()) {
    if (stop->size() > 16) throw field_error(r.at("stop"), "at most 16 stop strings");
    for (size_t i = 0; i < stop->size(); ++i) add((*stop)[i], pointer_join(r.at("stop"), i));
  } else {
    add(*stop, r.at("stop"));
  }
}

std::string read_messages(ObjectReader& r) {
  const Json& messages = r.require("messages");
  if (!messages.is_array() || messages.empty())
    throw field_error(r.at("messages"), "expected a non-empty array of messages");
  Json out = Json::array();
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string at = pointer_join(r.at("messages"), i);
    Json m = messages[i];
    ObjectReader mr(m, at);
    const auto role = mr.string("role");
    if (!role) throw field_error(pointer_join(at, "role"), "is required");
    // OpenAI's newer name for the system role.
    if (*role == "developer") m["role"] = "system";
    // Everything else (content string or parts, tool_calls with string arguments, tool_call_id,
    // name, reasoning) is the library's message model, which names the pointer of any error.
    out.push_back(std::move(m));
  }
  return out.dump();
}

namespace {

Json read_one_tool(const Json& tool, const std::string& at) {
  ObjectReader t(tool, at);
  Json out = Json::object();
  if (auto type = t.string("type")) {
    // OpenAI: {"type": "function", "function": {name, description, parameters, strict}}
    if (*type != "function")
      throw field_error(t.at("type"), "only \"function\" tools are supported");
    ObjectReader f(t.require("function"), t.at("function"));
    out["name"] = f.string("name").value_or("");
    if (auto d = f.string("description")) out["description"] = *d;
    if (const Json* p = f.find("parameters")) out["parameters"] = *p;
    f.boolean("strict");
    if (out["name"] == "") throw field_error(f.at("name"), "is required");
    f.reject_unknown();
  } else {
    // Seed 003: {"name", "description", "input_schema"}.
    out["name"] = t.string("name").value_or("");
    if (auto d = t.string("description")) out["description"] = *d;
    const Json* p = t.find("input_schema");
    if (p == nullptr) p = t.find("parameters");
    if (p) out["parameters"] = *p;
    if (out["name"] == "") throw field_error(t.at("name"), "is required");
  }
  t.reject_unknown();
  return out;
}

}  // namespace

std::string read_tools(ObjectReader& r) {
  const Json* tools = r.find("tools");
  if (tools == nullptr) return "";
  if (!tools->is_array())
    throw field_error(r.at("tools"), "expected an array, got " + json_type_name(*tools));
  if (tools->empty()) return "";
  Json out = Json::array();
  for (size_t i = 0; i < tools->size(); ++i)
    out.push_back(read_one_tool((*tools)[i], pointer_join(r.at("tools"), i)));
  return out.dump();
}

void read_thinking(ObjectReader& r, GenerationRequest& out) {
  if (const Json* t = r.find("thinking")) {
    if (t->is_boolean()) {
      out.thinking = t->get<bool>() ? AI00_THINKING_ON : AI00_THINKING_OFF;
    } else if (t->is_string() && *t == "off") {
      out.thinking = AI00_THINKING_OFF;
    } else if (t->is_string() && *t == "on") {
      out.thinking = AI00_THINKING_ON;
    } else if (t->is_string() && *t == "a-bit") {
      out.thinking = AI00_THINKING_A_BIT;
    } else if (t->is_string() && *t == "a-lot") {
      out.thinking = AI00_THINKING_A_LOT;
    } else {
      throw field_error(
          r.at("thinking"),
          "expected true, false, \"off\", \"on\", \"a-bit\" or \"a-lot\", got " + t->dump());
    }
  }
  if (auto e = r.string("reasoning_effort")) {
    if (r.find("thinking"))
      throw field_error(r.at("reasoning_effort"), "conflicts with /thinking; give one");
    if (*e == "low" || *e == "minimal")
      out.thinking = AI00_THINKING_A_BIT;
    else if (*e == "medium")
      out.thinking = AI00_THINKING_ON;
    else if (*e == "high")
      out.thinking = AI00_THINKING_A_LOT;
    else
      throw field_error(
          r.at("reasoning_effort"),
          "expected \"minimal\", \"low\", \"medium\" or \"high\", got \"" + *e + "\"");
  }
}

}  // namespace ai00::serve
