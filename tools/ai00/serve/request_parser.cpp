#include "request_parser.h"

#include "api_error.h"
#include "json_reader.h"
#include "request_fields.h"

namespace ai00::serve {
namespace {

// Fields accepted and ignored: they change nothing the library could do differently.
const std::set<std::string> kIgnoredFields = {"user", "store", "metadata", "service_tier"};

// Fields with no counterpart in the library: a 400 when set to anything but their default.
void refuse_unsupported(ObjectReader& r) {
  r.integer("n", 1, 1);  // one choice per request: any other count is a 400
  if (auto lp = r.boolean("logprobs"); lp && *lp)
    throw field_error(r.at("logprobs"), "log probabilities are not supported");
  if (r.find("top_logprobs"))
    throw field_error(r.at("top_logprobs"), "log probabilities are not supported");
}

void read_common(ObjectReader& r, const ParserSettings& s, GenerationRequest& out) {
  out.model_name = r.string("model").value_or(s.model_name);
  out.stream = r.boolean("stream").value_or(false);
  if (const Json* so = r.find("stream_options")) {
    ObjectReader o(*so, r.at("stream_options"));
    out.include_usage = o.boolean("include_usage").value_or(false);
    o.reject_unknown();
    if (!out.stream)
      throw field_error(r.at("stream_options"), "is only allowed with \"stream\": true");
  }
  read_sampling(r, s, out.options);
  read_stop(r, out.options);
  refuse_unsupported(r);
  r.ignore(kIgnoredFields);
}

}  // namespace

GenerationRequest parse_chat_request(const std::string& body, const ParserSettings& settings) {
  const Json doc = parse_body(body);
  ObjectReader r(doc, "");
  GenerationRequest out;
  out.chat = true;
  out.chat_format = r.string("chat_format").value_or(settings.chat_format);
  read_common(r, settings, out);
  out.messages_json = read_messages(r);
  out.tools_json = read_tools(r);
  out.parallel_tool_calls = r.boolean("parallel_tool_calls").value_or(true);
  read_thinking(r, out);
  read_constraint(r, out);
  r.reject_unknown();
  return out;
}

GenerationRequest parse_completion_request(const std::string& body,
                                           const ParserSettings& settings) {
  const Json doc = parse_body(body);
  ObjectReader r(doc, "");
  GenerationRequest out;
  out.chat = false;
  read_common(r, settings, out);
  const Json& prompt = r.require("prompt");
  if (prompt.is_array() && prompt.size() == 1 && prompt[0].is_string()) {
    out.prompt = prompt[0].get<std::string>();
  } else if (prompt.is_string()) {
    out.prompt = prompt.get<std::string>();
  } else {
    throw field_error(r.at("prompt"), "expected a string (or an array of one string), got " +
                                          json_type_name(prompt));
  }
  if (out.prompt.empty()) throw field_error(r.at("prompt"), "must not be empty");
  if (auto echo = r.boolean("echo"); echo && *echo)
    throw field_error(r.at("echo"), "echo is not supported");
  if (r.find("suffix")) throw field_error(r.at("suffix"), "suffix is not supported");
  if (auto g = r.string("grammar")) {
    out.constraint = {ConstraintKind::kbnf, *g, "/grammar"};
  }
  r.reject_unknown();
  return out;
}

}  // namespace ai00::serve
