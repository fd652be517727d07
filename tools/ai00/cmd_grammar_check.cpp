// `ai00 grammar check`: is the text on stdin in the language of a KBNF grammar (src/grammar)?
// Exit 0 + "accepted", exit 1 + "rejected at byte N", exit 2 for a bad grammar or usage.
// With --vocab it also replays the greedy RWKV tokenization token by token: every token must be
// in the mask before it is committed, and end of text (token 0) must be allowed at the end.
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "command.h"
#include "core/tokenizer/tokenizer.h"
#include "grammar/matcher.h"

namespace {

using namespace ai00::internal;
namespace cli = ai00::cli;

bool in_mask(const std::vector<uint64_t>& m, uint32_t id) { return (m[id >> 6] >> (id & 63)) & 1; }

std::shared_ptr<const grammar::VocabIndex> load_vocab(const std::string& path,
                                                      std::shared_ptr<const Tokenizer>& tok) {
  tok = Tokenizer::from_vocab_file(path);
  std::vector<std::string> tokens(tok->vocab_size());
  for (uint32_t id = 1; id < tokens.size(); ++id) tokens[id] = std::string(tok->token_bytes(id));
  return grammar::VocabIndex::build(std::move(tokens));
}

// Token-level replay; returns an empty string when it passes, else what failed.
std::string token_check(grammar::Matcher m, const Tokenizer& tok, const std::string& text) {
  std::vector<uint32_t> ids = tok.encode(text);
  size_t offset = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!in_mask(m.mask(), ids[i]) || !m.accept_token(ids[i]))
      return "token " + std::to_string(i) + " (id " + std::to_string(ids[i]) + ", byte " +
             std::to_string(offset) + ") is not in the mask";
    offset += tok.token_bytes(ids[i]).size();
  }
  if (!in_mask(m.mask(), 0)) return "end of text (token 0) is not in the final mask";
  return "";
}

int run(const std::vector<std::string>& argv) {
  cli::Args args(argv, {"--grammar", "--start", "--vocab"}, {});
  std::string path = args.require("--grammar");
  grammar::ParseOptions po;
  po.start = args.get("--start").value_or("start");
  std::shared_ptr<const Tokenizer> tok;
  std::shared_ptr<const grammar::VocabIndex> vocab;
  if (auto v = args.get("--vocab")) vocab = load_vocab(*v, tok);
  std::string kbnf = cli::read_text_file(path);
  auto parsed = grammar::parse_kbnf(kbnf, po);
  if (!parsed.ok()) throw GrammarError(path + ": " + parsed.error().message);
  grammar::CompiledGrammar g = [&] {
    try {
      return grammar::CompiledGrammar::compile(parsed.value(), vocab);
    } catch (const GrammarError& e) {
      throw GrammarError(path + ": " + e.what());
    }
  }();
  std::string text = cli::read_all_stdin();
  grammar::Matcher m(g);
  size_t n = m.valid_prefix_length(text);
  if (n < text.size() || !m.accept_bytes(text) || !m.is_complete()) {
    cli::write_stdout("rejected at byte " + std::to_string(n) + "\n");
    return cli::kExitRejected;
  }
  if (tok) {
    m.reset();
    std::string failure = token_check(m, *tok, text);
    if (!failure.empty()) {
      cli::write_stdout("rejected by the token-level check: " + failure + "\n");
      return cli::kExitRejected;
    }
  }
  cli::write_stdout("accepted\n");
  return cli::kExitOk;
}

}  // namespace

AI00_COMMAND("grammar check",
             "  grammar check --grammar FILE [--start NAME] [--vocab PATH] < text\n"
             "      exit 0 `accepted` if stdin is in the KBNF grammar's language, exit 1\n"
             "      `rejected at byte N` if not, exit 2 for a bad grammar; --vocab also checks\n"
             "      every token of the greedy tokenization against the token mask",
             run);
