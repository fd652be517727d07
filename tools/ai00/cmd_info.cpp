// `ai00 info --model PATH [--isa NAME]`: loads a model and prints one JSON object describing it
// (format, dimensions, LoRA ranks, weight dtypes, chosen ISA, state size).
#include <fmt/format.h>

#include <map>
#include <string>

#include "command.h"
#include "core/model/model.h"
#include "core/tokenizer/tokenizer.h"
#include "core/weights/weights.h"

using namespace ai00::internal;  // NOLINT: interim, until the command uses the public API
namespace cli = ai00::cli;

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

int run_info(const std::vector<std::string>& argv) {
  ai00::cli::Args args(argv, {"--model", "--isa"}, {});
  ai00::internal::ModelParams params;
  params.forced_isa = args.get("--isa").value_or("");
  auto model = ai00::internal::Model::load(args.require("--model"), params);
  const ai00::internal::ModelConfig& c = model->config();
  std::map<std::string, int> dtypes;
  uint64_t weight_bytes = 0;
  for (const ai00::internal::TensorView& t : model->weights().tensors()) {
    ++dtypes[ai00::internal::dtype_name(t.dtype)];
    weight_bytes += t.nbytes;
  }
  std::string dt;
  for (const auto& [name, count] : dtypes) {
    dt += fmt::format("{}{}: {}", dt.empty() ? "" : ", ", json_string(name), count);
  }
  const ai00::internal::Tokenizer* tok = model->tokenizer();
  std::string out = fmt::format(
      "{{\"path\": {}, \"format\": {}, \"n_embd\": {}, \"n_layer\": {}, \"n_head\": {}, "
      "\"head_size\": {}, \"ffn_size\": {}, \"vocab_size\": {}, "
      "\"lora_ranks\": {{\"w\": {}, \"a\": {}, \"v\": {}, \"g\": {}}}, "
      "\"dtypes\": {{{}}}, \"weight_bytes\": {}, \"isa\": {}, \"state_floats\": {}, "
      "\"state_bytes\": {}, \"tokenizer_vocab\": {}}}\n",
      json_string(model->weights().path),
      json_string(ai00::internal::weight_format_name(model->weights().format)), c.n_embd, c.n_layer, c.n_head,
      c.head_size, c.ffn_size, c.vocab, c.d_w, c.d_a, c.d_v, c.d_g, dt, weight_bytes,
      json_string(model->kernels().name), c.state_floats(), c.state_floats() * 4,
      tok ? std::to_string(tok->vocab_size()) : std::string("null"));
  ai00::cli::write_stdout(out);
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND("info",
             "  info --model PATH [--isa NAME]\n"
             "      print one JSON object: format, dimensions, LoRA ranks, weight dtypes, ISA,\n"
             "      state size",
             run_info);
