// `ai00 grammar check`: is the text on stdin in the language of a KBNF grammar?
// Exit 0 + "accepted", exit 1 + "rejected at byte N", exit 2 for a bad grammar or usage.
// With --vocab it also replays the greedy RWKV tokenization token by token: every token must be
// in the mask before it is committed, and end of text (token 0) must be allowed at the end
// (ai00_grammar_check).
#include <ai00/ai00.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace {

namespace cli = ai00::cli;

int run(const std::vector<std::string>& argv) {
  cli::Args args(argv, {"--grammar", "--start", "--vocab"}, {});
  const std::string path = args.require("--grammar");
  std::optional<ai00::Tokenizer> tok;
  if (auto v = args.get("--vocab")) tok = ai00::Tokenizer::load(*v);
  const std::string kbnf = cli::read_text_file(path);
  const ai00::Grammar g = [&] {
    try {
      return ai00::Grammar::compile(kbnf, tok ? &*tok : nullptr,
                                    args.get("--start").value_or("start"));
    } catch (const ai00::Error& e) {
      throw ai00::Error(e.status(), path + ": " + e.what());
    }
  }();
  const ai00_grammar_check_result r = g.check(cli::read_all_stdin());
  switch (r.verdict) {
    case AI00_CHECK_ACCEPTED:
      cli::write_stdout("accepted\n");
      return cli::kExitOk;
    case AI00_CHECK_BYTES:
      cli::write_stdout("rejected at byte " + std::to_string(r.byte_offset) + "\n");
      return cli::kExitRejected;
    case AI00_CHECK_TOKEN:
      cli::write_stdout("rejected by the token-level check: token " +
                        std::to_string(r.token_index) + " (id " + std::to_string(r.token_id) +
                        ", byte " + std::to_string(r.byte_offset) + ") is not in the mask\n");
      return cli::kExitRejected;
    default:
      cli::write_stdout(
          "rejected by the token-level check: end of text (token 0) is not in the final mask\n");
      return cli::kExitRejected;
  }
}

}  // namespace

AI00_COMMAND("grammar check",
             "  grammar check --grammar FILE [--start NAME] [--vocab PATH] < text\n"
             "      exit 0 `accepted` if stdin is in the KBNF grammar's language, exit 1\n"
             "      `rejected at byte N` if not, exit 2 for a bad grammar; --vocab also checks\n"
             "      every token of the greedy tokenization against the token mask",
             run);
