// `ai00 logits`: runs token ids through a model and writes the raw logits (little-endian
// float32) of the last token, or of every token with --all.
#include <ai00/ai00.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.h"
#include "generate_flags.h"

namespace {

// "34,105,110" -> {34, 105, 110}; anything else is a usage error naming the bad item.
std::vector<uint32_t> parse_tokens(const std::string& s) {
  std::vector<uint32_t> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = s.substr(pos, comma - pos);
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || item[0] == '-' || *end != '\0' || errno != 0 || v > 0xffffffffull) {
      throw ai00::cli::UsageError("--tokens: bad token id '" + item + "' at item " +
                                  std::to_string(out.size()));
    }
    out.push_back(static_cast<uint32_t>(v));
    pos = comma + 1;
  }
  return out;
}

// A serialized State (magic AI00STAT, ai00_state_save_file) or an ai00 `.state` file
// (safetensors, a state-tuned initial state).
// Every error names the file (--state-file).
ai00::State load_state(const ai00::Model& model, const std::string& path) {
  char magic[8] = {};
  std::ifstream f(path, std::ios::binary);
  const bool serialized =
      f && f.read(magic, sizeof magic) && std::memcmp(magic, "AI00STAT", 8) == 0;
  try {
    return serialized ? ai00::State::load_file(model, path)
                      : ai00::State::load_initial(model, path);
  } catch (const ai00::Error& e) {
    const std::string what = e.what();
    if (what.rfind(path, 0) == 0) throw;  // already starts with the file name
    throw ai00::Error(e.status(), "--state-file " + path + ": " + what);
  }
}

void write_file(const std::string& path, const std::vector<float>& v) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
  const size_t n = std::fwrite(v.data(), sizeof(float), v.size(), f);
  const bool ok = n == v.size() && std::fclose(f) == 0;
  if (!ok) throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
}

int run_logits(const std::vector<std::string>& argv) {
  ai00::cli::Args args(
      argv, {"--model", "--tokens", "--state-file", "--threads", "--isa", "--out", "--activations"},
      {"--all"});
  ai00::ModelOptions options;
  options.n_threads = static_cast<int32_t>(args.get_int("--threads", 1, 1, INT32_MAX));
  options.forced_isa = args.get("--isa").value_or("");
  options.activations = ai00::cli::activations_flag(args);
  const std::vector<uint32_t> tokens = parse_tokens(args.require("--tokens"));
  const std::string out_path = args.require("--out");
  const ai00::Model model = ai00::Model::load(args.require("--model"), options);
  ai00::State state =
      args.get("--state-file") ? load_state(model, *args.get("--state-file")) : ai00::State(model);
  const std::vector<float> logits = args.has("--all") ? state.eval_all(tokens) : state.eval(tokens);
  write_file(out_path, logits);  // little-endian hosts only
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND("logits",
             "  logits --model PATH --tokens ID,ID,... --out FILE [--state-file FILE] [--all]\n"
             "         [--threads N] [--isa NAME] [--activations dot|exact]\n"
             "      write the float32 logits of the last token (every token with --all) to FILE",
             run_logits);
