// `ai00 render`: conversation JSON on stdin → chat-format prompt on stdout.
#include <ai00/ai00.hpp>
#include <string>
#include <vector>

#include "command.h"
#include "format_flags.h"

namespace {

namespace cli = ai00::cli;

int run_render(const std::vector<std::string>& argv) {
  cli::Args args(argv, {"--format", "--tools", "--thinking", "--assistant-name"},
                 {"--no-generation-prompt", "--json"});
  ai00::ChatTemplate tmpl = cli::template_flag(args);
  ai00::RenderOptions opts;
  opts.tools_json = cli::tools_flag(args);
  opts.thinking = cli::thinking_flag(args);
  opts.add_generation_prompt = !args.has("--no-generation-prompt");
  opts.assistant_name = args.get("--assistant-name").value_or("");
  const std::string conversation = cli::read_all_stdin();
  const ai00::Rendered r =
      cli::naming_tools_file(args, [&] { return tmpl.render_json(conversation, opts); });
  // With --json: the prompt, the stop sequences and the constrained-decoding hints.
  cli::write_stdout(args.has("--json") ? tmpl.last_render_json() + "\n" : r.prompt);
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
