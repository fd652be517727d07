// `ai00 logits`: runs token ids through a model and writes the raw logits (little-endian
// float32) of the last token, or of every token with --all.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/mapped_file.h"
#include "command.h"
#include "core/model/model.h"
#include "core/model/rwkv7.h"
#include "core/model/state.h"
#include "core/model/state_file.h"

using namespace ai00::internal;  // NOLINT: interim, until the command uses the public API
namespace cli = ai00::cli;

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

// A serialized State (magic AI00STAT) or an ai00 `.state` file (safetensors).
ai00::internal::State load_state(const ai00::internal::Model& model, const std::string& path) {
  ai00::internal::MappedFile f = ai00::internal::MappedFile::open(path);
  if (f.size() >= 8 && std::memcmp(f.data(), "AI00STAT", 8) == 0) {
    return ai00::internal::State::deserialize(model, f.data(), f.size());
  }
  return ai00::internal::load_ai00_state_bytes(model, f.data(), f.size(), path);
}

void write_file(const std::string& path, const std::vector<float>& v) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw ai00::internal::IoError(path + ": cannot open for writing: " + std::strerror(errno));
  const size_t n = std::fwrite(v.data(), sizeof(float), v.size(), f);
  const bool ok = n == v.size() && std::fclose(f) == 0;
  if (!ok) throw ai00::internal::IoError(path + ": write failed: " + std::strerror(errno));
}

int run_logits(const std::vector<std::string>& argv) {
  ai00::cli::Args args(argv, {"--model", "--tokens", "--state-file", "--threads", "--isa", "--out"},
                       {"--all"});
  ai00::internal::ModelParams params;
  params.n_threads = static_cast<int>(args.get_int("--threads", 1));
  params.forced_isa = args.get("--isa").value_or("");
  const std::vector<uint32_t> tokens = parse_tokens(args.require("--tokens"));
  const std::string out_path = args.require("--out");
  auto model = ai00::internal::Model::load(args.require("--model"), params);
  ai00::internal::State state = args.get("--state-file") ? load_state(*model, *args.get("--state-file"))
                                               : ai00::internal::State(*model);
  ai00::internal::ForwardOptions opt;
  opt.all_logits = args.has("--all");
  const size_t rows = opt.all_logits ? tokens.size() : 1;
  std::vector<float> logits(rows * static_cast<size_t>(model->config().vocab));
  ai00::internal::forward(*model, state, tokens.data(), tokens.size(), logits.data(), opt);
  write_file(out_path, logits);  // little-endian hosts only (docs/layers.md)
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND("logits",
             "  logits --model PATH --tokens ID,ID,... --out FILE [--state-file FILE] [--all]\n"
             "         [--threads N] [--isa NAME]\n"
             "      write the float32 logits of the last token (every token with --all) to FILE",
             run_logits);
