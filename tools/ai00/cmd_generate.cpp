// `ai00 generate`: one raw-text turn, streamed to stdout as it is generated. Optional grammar
// (KBNF, or a JSON Schema when the file ends in .json), and a State read from / written to a
// file so a generation can continue later. Uses only the public C++ API.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "generate_flags.h"

namespace {

int run_generate(const std::vector<std::string>& argv) {
  std::vector<std::string> values = ai00::cli::sampler_value_flags();
  for (const char* f : {"--prompt", "--grammar", "--state-in", "--state-out", "--config"})
    values.push_back(f);
  ai00::cli::Args args(argv, values, {"--ban-eos", "--quiet", "--show-sampler"});
  // --config is read for its sampling presets ([presets.NAME]) only: a raw turn has no format.
  std::optional<ai00::ChatTemplate> config;
  if (auto c = args.get("--config"))
    config.emplace(ai00::ChatTemplate::with_config("ai00-v1", ai00::cli::read_text_file(*c)));
  ai00::GenerateOptions options = ai00::cli::generate_options(args, config ? &*config : nullptr);
  ai00::Model model = ai00::cli::load_model_flag(args);
  if (auto g = args.get("--grammar")) {
    std::string text = ai00::cli::read_text_file(*g);
    bool schema = g->size() >= 5 && g->compare(g->size() - 5, 5, ".json") == 0;
    options.grammar =
        schema ? ai00::Grammar::json_schema(model, text) : ai00::Grammar::kbnf(model, text);
  }
  ai00::State state = args.get("--state-in")
                          ? ai00::State::load_file(model, *args.get("--state-in"))
                          : ai00::State(model);
  ai00::Generator gen = ai00::Generator::raw(model, state, args.require("--prompt"), options);
  ai00::FinishReason reason = gen.run([](const ai00::Delta& d) {
    if (d.kind == ai00::DeltaKind::text) {
      std::fwrite(d.text.data(), 1, d.text.size(), stdout);
      std::fflush(stdout);
    }
    return true;
  });
  std::printf("\n");
  if (!args.has("--quiet")) {
    std::fprintf(stderr, "[%zu tokens, finish %s]\n", gen.tokens().size(),
                 ai00::cli::finish_name(reason));
  }
  if (reason == ai00::FinishReason::error) throw std::runtime_error(gen.error_message());
  if (auto out = args.get("--state-out")) state.save_file(*out);
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND(
    "generate",
    "ai00 generate --model M [--vocab V] --prompt TEXT [--preset chat|math|creative|ai00]\n"
    "    [--config FILE (its [presets.NAME] for --preset)] [--show-sampler]\n"
    "    [--sampler nucleus|typical|mirostat|greedy] [--temperature T] [--top-p P]\n"
    "    [--top-k K] [--min-p P] [--presence X] [--frequency X] [--decay D]\n"
    "    [--repetition R] [--ban-eos] [--seed N] [--max-tokens N] [--stop S]\n"
    "    [--threads N] [--isa NAME] [--activations dot|exact (default dot; exact: fp32)]\n"
    "    [--grammar FILE(.kbnf|.json)] [--state-in FILE] [--state-out FILE] [--quiet]\n"
    "  Streams the continuation of TEXT to stdout (token counts and finish to stderr).\n"
    "  Sampler flags override the preset's fields.",
    run_generate);
