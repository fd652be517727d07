// `ai00 info --model PATH [--isa NAME] [--activations dot|exact]`: loads a model and prints one
// JSON object describing it (format, dimensions, LoRA ranks, weight dtypes, chosen ISA, state
// size, activations: ai00_model_info_json).
#include <ai00/ai00.hpp>
#include <string>
#include <vector>

#include "command.h"
#include "generate_flags.h"

namespace {

int run_info(const std::vector<std::string>& argv) {
  ai00::cli::Args args(argv, {"--model", "--isa", "--activations"}, {});
  ai00::ModelOptions options;
  options.forced_isa = args.get("--isa").value_or("");
  options.activations = ai00::cli::activations_flag(args);
  const ai00::Model model = ai00::Model::load(args.require("--model"), options);
  ai00::cli::write_stdout(model.info_json() + "\n");
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND("info",
             "  info --model PATH [--isa NAME] [--activations dot|exact]\n"
             "      print one JSON object: format, dimensions, LoRA ranks, weight dtypes, ISA,\n"
             "      state size, activations",
             run_info);
