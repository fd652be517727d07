// `ai00 tokenize` / `ai00 detokenize` (--vocab PATH | --model PATH): RWKV World tokenizer on
// stdin/stdout. tokenize reads raw bytes (any bytes, not only UTF-8) and prints a JSON array of
// ids; detokenize reads a JSON array of ids and writes the raw bytes (stopping at id 0).
// With --model the Model's own tokenizer is used (GGUF vocabulary, a vocab file beside the model,
// or byte-level for a 256-token model — see ai00_tokenizer_from_model).
#include <ai00/ai00.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.h"

namespace {

using ai00::cli::UsageError;

ai00::Tokenizer load_tokenizer(const std::vector<std::string>& argv) {
  ai00::cli::Args args(argv, {"--vocab", "--model"}, {});
  const auto vocab = args.get("--vocab");
  const auto model_path = args.get("--model");
  if (vocab.has_value() == model_path.has_value())
    throw UsageError("give exactly one of --vocab and --model");
  if (vocab) return ai00::Tokenizer::load(*vocab);
  const ai00::Model model = ai00::Model::load(*model_path);
  if (model.info().n_tokens == 0) {
    throw std::runtime_error(
        *model_path + ": the model carries no tokenizer and none was found beside it; use --vocab");
  }
  return ai00::Tokenizer::of(model);
}

// Parses `[id, id, ...]` (JSON array of non-negative integers < 2^32); errors name the byte offset.
std::vector<uint32_t> parse_id_array(const std::string& s) {
  size_t i = 0;
  auto skip_ws = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  };
  auto fail = [&](const std::string& what) -> std::vector<uint32_t> {
    throw std::runtime_error("<stdin>: byte offset " + std::to_string(i) + ": " + what);
  };
  std::vector<uint32_t> ids;
  skip_ws();
  if (i >= s.size() || s[i] != '[') return fail("expected a JSON array of token ids");
  ++i;
  skip_ws();
  if (i < s.size() && s[i] == ']') {
    ++i;
  } else {
    while (true) {
      skip_ws();
      if (i >= s.size() || s[i] < '0' || s[i] > '9')
        return fail("expected a token id (a non-negative integer)");
      uint64_t v = 0;
      const size_t start = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        v = v * 10 + uint64_t(s[i++] - '0');
        if (v > 0xFFFFFFFFull) {
          i = start;
          return fail("token id too large");
        }
      }
      ids.push_back(static_cast<uint32_t>(v));
      skip_ws();
      if (i < s.size() && s[i] == ',') {
        ++i;
        continue;
      }
      if (i < s.size() && s[i] == ']') {
        ++i;
        break;
      }
      return fail("expected ',' or ']'");
    }
  }
  skip_ws();
  if (i != s.size()) return fail("unexpected text after the array");
  return ids;
}

int run_tokenize(const std::vector<std::string>& argv) {
  const auto tok = load_tokenizer(argv);
  const std::vector<uint32_t> ids = tok.encode(ai00::cli::read_all_stdin());
  std::string out = "[";
  for (size_t k = 0; k < ids.size(); ++k) {
    if (k) out += ", ";
    out += std::to_string(ids[k]);
  }
  out += "]\n";
  ai00::cli::write_stdout(out);
  return ai00::cli::kExitOk;
}

int run_detokenize(const std::vector<std::string>& argv) {
  const auto tok = load_tokenizer(argv);
  const std::vector<uint32_t> ids = parse_id_array(ai00::cli::read_all_stdin());
  ai00::cli::write_stdout(tok.decode(ids));
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND("tokenize",
             "  tokenize (--vocab PATH | --model PATH)\n"
             "      read raw bytes on stdin, print a JSON array of RWKV World token ids",
             run_tokenize);
AI00_COMMAND("detokenize",
             "  detokenize (--vocab PATH | --model PATH)\n"
             "      read a JSON array of token ids on stdin, write the raw bytes (stops at id 0)",
             run_detokenize);
