// `ai00 parse`: raw model output on stdin → {"message": …, "finish_reason": …} (src/format).
#include <cstdio>
#include <string>
#include <vector>

#include "base/error.h"
#include "command.h"
#include "format/format.h"
#include "format/json.h"
#include "format/message.h"
#include "format_flags.h"

namespace {

using namespace ai00::internal;
namespace cli = ai00::cli;

json::Value delta_json(const format::MessageDelta& d) {
  json::Value o(json::Object{});
  std::string text;
  for (const auto& p : d.contents) text += p.text;
  if (!text.empty()) o.set("text", text);
  if (!d.reasoning.empty()) o.set("reasoning", d.reasoning);
  for (const auto& c : d.tool_calls)
    o.set("tool_call",
          json::Value(json::Object{{"call", json::Value(static_cast<long long>(c.call))},
                                   {"id", json::Value(c.id)},
                                   {"name", json::Value(c.name)},
                                   {"arguments", json::Value(c.arguments)}}));
  if (d.finish_reason) o.set("finish_reason", format::finish_reason_name(*d.finish_reason));
  return o;
}

int run_parse(const std::vector<std::string>& argv) {
  cli::Args args(argv, {"--format", "--tools", "--thinking", "--seed", "--chunk"}, {"--deltas"});
  auto fmt = format::make_format(args.require("--format"));
  if (!fmt) throw cli::UsageError(fmt.error().message);
  const format::Thinking level = cli::thinking_flag(args);
  format::ParseOptions popts;
  popts.tools = cli::load_tools_flag(args);
  popts.id_seed = static_cast<uint64_t>(args.get_int("--seed", 0));
  const long long chunk = args.get_int("--chunk", 0);
  if (chunk < 0) throw cli::UsageError("--chunk must be 0 (all at once) or a byte count");
  // Whether the prompt left a thinking block open is the format's business: ask its renderer.
  format::RenderOptions ropts;
  ropts.thinking = level;
  ropts.tools = popts.tools;
  auto probe = fmt.value()->render({}, ropts);
  if (!probe) throw Error(probe.error().kind, probe.error().message);
  popts.thinking_open = probe.value().constraints.thinking_open_in_prompt;

  const std::string input = cli::read_all_stdin();
  auto parser = fmt.value()->make_parser(popts);
  std::vector<format::MessageDelta> deltas;
  const size_t step = chunk > 0 ? static_cast<size_t>(chunk) : std::max<size_t>(input.size(), 1);
  for (size_t at = 0; at < input.size(); at += step) {
    auto d = parser->feed(std::string_view(input).substr(at, step));
    deltas.insert(deltas.end(), d.begin(), d.end());
  }
  auto last = parser->finish(format::FinishReason::stop);
  deltas.insert(deltas.end(), last.begin(), last.end());
  const auto& result = parser->result();
  for (const auto& w : result.warnings)
    std::fprintf(stderr, "ai00 parse: warning: %s\n", w.c_str());
  std::string out;
  if (args.has("--deltas"))
    for (const auto& d : deltas) out += json::write(delta_json(d)) + "\n";
  json::Value doc(json::Object{});
  doc.set("message", format::to_json(result.message));
  doc.set("finish_reason", format::finish_reason_name(result.finish_reason));
  out += json::write(doc) + "\n";
  cli::write_stdout(out);
  return cli::kExitOk;
}

}  // namespace

AI00_COMMAND(
    "parse",
    "  parse --format (ai00-v1|ai00-v0|goose|openchatml) [--tools FILE]\n"
    "        [--thinking off|on|a-bit|a-lot] [--seed N] [--chunk BYTES] [--deltas]\n"
    "      reads raw model output on stdin and prints {\"message\": …, \"finish_reason\": …};\n"
    "      --deltas also prints each streamed delta as one JSON line first",
    run_parse);
