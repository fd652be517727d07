// Fuzz target: KBNF text -> parse -> compile (automata within the limits) -> Earley matcher.
// Input: grammar text, then optionally a NUL byte and bytes fed to the matcher one step at a
// time with rollbacks. Any input gives a grammar or a GrammarError; never a crash or a hang.
#include <string>

#include "base/error.h"
#include "fuzz_common.h"
#include "grammar/kbnf_parser.h"
#include "grammar/matcher.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  std::string_view all(reinterpret_cast<const char*>(data), size);
  size_t nul = all.find('\0');
  std::string_view kbnf = all.substr(0, nul);
  std::string_view text = nul == std::string_view::npos ? std::string_view() : all.substr(nul + 1);
  using namespace ai00::internal::grammar;
  auto parsed = parse_kbnf(kbnf);
  if (!parsed.ok()) return 0;
  try {
    CompiledGrammar g = CompiledGrammar::compile(parsed.value(), nullptr);
    Matcher m(g);
    for (size_t i = 0; i < text.size() && i < 256; ++i) {
      if (!m.accept_bytes(text.substr(i, 1))) break;
      if (text[i] == '\x7f' && m.num_steps() > 0) m.rollback(1);
    }
    (void)m.is_complete();
    (void)m.forced_bytes();
  } catch (const ai00::internal::Error&) {
  }
  return 0;
}
