// `ai00 convert --in PATH --out PATH [--type T] [--format gguf|st] [--force] [--vocab PATH]`:
// rewrites a weight file as GGUF or .st in one weight type (ai00_model_convert). Progress goes
// to stderr for files over 16 MiB.
#include <ai00/ai00.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "command.h"

namespace {

ai00_weight_type parse_type(const std::string& t) {
  static const std::pair<const char*, ai00_weight_type> kTypes[] = {
      {"F32", AI00_WEIGHT_F32},   {"F16", AI00_WEIGHT_F16},   {"BF16", AI00_WEIGHT_BF16},
      {"Q8_0", AI00_WEIGHT_Q8_0}, {"Q4_0", AI00_WEIGHT_Q4_0}, {"Q4_1", AI00_WEIGHT_Q4_1},
      {"Q5_0", AI00_WEIGHT_Q5_0}, {"Q5_1", AI00_WEIGHT_Q5_1}};
  for (const auto& [name, value] : kTypes) {
    if (t == name) return value;
  }
  throw ai00::cli::UsageError("--type " + t +
                              ": expected F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0 or Q5_1");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int run_convert(const std::vector<std::string>& argv) {
  ai00::cli::Args args(argv, {"--in", "--out", "--type", "--format", "--vocab"},
                       {"--force", "--quiet"});
  const std::string in = args.require("--in"), out = args.require("--out");
  ai00::ConvertOptions o;
  o.weight_type = parse_type(args.get("--type").value_or("F16"));
  const std::string format =
      args.get("--format")
          .value_or(ends_with(out, ".st") || ends_with(out, ".safetensors") ? "st" : "gguf");
  if (format == "gguf") {
    o.file_format = AI00_FILE_GGUF;
  } else if (format == "st" || format == "safetensors") {
    o.file_format = AI00_FILE_SAFETENSORS;
  } else {
    throw ai00::cli::UsageError("--format " + format + ": expected gguf or st");
  }
  o.overwrite = args.has("--force");
  o.vocab_path = args.get("--vocab").value_or("");
  const bool quiet = args.has("--quiet");
  int last = -1;
  o.progress = [&](uint64_t done, uint64_t total) {
    if (quiet || total < (uint64_t{16} << 20)) return true;
    const int pct = static_cast<int>(done * 100 / total);
    if (pct != last) {
      std::fprintf(stderr, "\rconvert: %3d%% (%llu / %llu MiB)", pct,
                   static_cast<unsigned long long>(done >> 20),
                   static_cast<unsigned long long>(total >> 20));
      if (done == total) std::fputc('\n', stderr);
      last = pct;
    }
    return true;
  };
  ai00::convert_model(in, out, o);
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND("convert",
             "  convert --in PATH --out PATH [--type F32|F16|BF16|Q8_0|Q4_0|Q4_1|Q5_0|Q5_1]\n"
             "          [--format gguf|st] [--force] [--vocab PATH] [--quiet]\n"
             "      rewrite any supported weight file as GGUF (llama.cpp rwkv7 names) or .st\n"
             "      (F32/F16/BF16 only); the format defaults from the extension, the type to F16;\n"
             "      refuses to replace an existing file without --force; progress on stderr",
             run_convert);
