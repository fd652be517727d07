// `ai00 render`: conversation JSON on stdin → chat-format prompt on stdout.
#include <ai00/ai00.hpp>
#include <string>
#include <vector>

#include "command.h"
#include "format_flags.h"

namespace {

namespace cli = ai00::cli;

int run_render(const std::vector<std::string>& argv) {
  cli::Args args(argv,
                 {"--format", "--tools", "--thinking", "--assistant-name", "--config",
                  "--fim-prefix", "--fim-suffix"},
                 {"--no-generation-prompt", "--json", "--reflect", "--introspect", "--token0",
                  "--no-token0", "--files", "--leading-separator"},
                 /*max_positional=*/4096);
  if (!args.has("--files") && !args.positional().empty())
    throw cli::UsageError("unexpected argument '" + args.positional().front() + "'");
  ai00::ChatTemplate tmpl = cli::template_flag(args);
  // Raw prompts: fill-in-the-middle (prefix and suffix files) or a multi-file sequence (the
  // files named after the flags).
  if (args.has("--fim-prefix") || args.has("--fim-suffix")) {
    const std::string prefix = cli::read_text_file(args.require("--fim-prefix"));
    const std::string suffix = cli::read_text_file(args.require("--fim-suffix"));
    cli::write_stdout(tmpl.render_fim(prefix, suffix));
    return cli::kExitOk;
  }
  if (args.has("--files")) {
    std::vector<std::string> files;
    for (const auto& path : args.positional()) files.push_back(cli::read_text_file(path));
    if (files.empty()) throw cli::UsageError("--files needs at least one file after the flags");
    cli::write_stdout(tmpl.render_files(files, args.has("--leading-separator")));
    return cli::kExitOk;
  }
  ai00::RenderOptions opts;
  opts.tools_json = cli::tools_flag(args);
  opts.thinking = cli::thinking_flag(args);
  opts.add_generation_prompt = !args.has("--no-generation-prompt");
  opts.assistant_name = args.get("--assistant-name").value_or("");
  opts.reflect = args.has("--reflect");
  opts.introspect = args.has("--introspect");
  if (args.has("--token0")) opts.prepend_token0 = 1;
  if (args.has("--no-token0")) opts.prepend_token0 = 0;
  const std::string conversation = cli::read_all_stdin();
  const ai00::Rendered r =
      cli::naming_tools_file(args, [&] { return tmpl.render_json(conversation, opts); });
  // With --json: the prompt, the stop sequences and the constrained-decoding hints.
  cli::write_stdout(args.has("--json") ? tmpl.last_render_json() + "\n" : r.prompt);
  return cli::kExitOk;
}

}  // namespace

AI00_COMMAND("render",
             "  render --format (ai00-v1|ai00-v0|goose|openchatml) [--config FILE] [--tools FILE]\n"
             "         [--thinking off|on|a-bit|a-lot] [--no-generation-prompt]\n"
             "         [--assistant-name NAME] [--reflect] [--introspect] [--token0|--no-token0]\n"
             "         [--json]\n"
             "      reads a conversation (JSON array of messages) on stdin and writes the prompt;\n"
             "      --json writes {prompt, stop_sequences, prepend_token0, constraints} instead\n"
             "  render --format openchatml --fim-prefix FILE --fim-suffix FILE\n"
             "  render --format openchatml --files [--leading-separator] FILE...\n"
             "      fill-in-the-middle and multi-file prompts (seed 002)",
             run_render);
