// `ai00 render`: conversation JSON on stdin → chat-format prompt on stdout (src/format).
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

// With --json: the prompt, the stop sequences and the constrained-decoding hints.
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
  return json::write(out, json::WriteStyle{2, false, true, false}) + "\n";
}

int run_render(const std::vector<std::string>& argv) {
  cli::Args args(argv, {"--format", "--tools", "--thinking", "--assistant-name"},
                 {"--no-generation-prompt", "--json"});
  auto fmt = format::make_format(args.require("--format"));
  if (!fmt) throw cli::UsageError(fmt.error().message);
  format::RenderOptions opts;
  opts.tools = cli::load_tools_flag(args);
  opts.thinking = cli::thinking_flag(args);
  opts.add_generation_prompt = !args.has("--no-generation-prompt");
  opts.assistant_name = args.get("--assistant-name");
  auto conv = format::parse_conversation(cli::read_all_stdin());
  if (!conv) throw FormatError("conversation " + conv.error().message);
  auto r = fmt.value()->render(conv.value(), opts);
  if (!r) throw Error(r.error().kind, r.error().message);
  cli::write_stdout(args.has("--json") ? describe(r.value()) : r.value().prompt);
  return cli::kExitOk;
}

}  // namespace

AI00_COMMAND("render",
             "  render --format (ai00-v1|ai00-v0|goose|openchatml) [--tools FILE]\n"
             "         [--thinking off|on|a-bit|a-lot] [--no-generation-prompt]\n"
             "         [--assistant-name NAME] [--json]\n"
             "      reads a conversation (JSON array of messages) on stdin and writes the prompt;\n"
             "      --json writes {prompt, stop_sequences, constraints} instead",
             run_render);
