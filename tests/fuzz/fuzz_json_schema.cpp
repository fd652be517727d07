// Fuzz target: JSON Schema text -> KBNF -> compiled grammar. Any schema gives a grammar or a
// GrammarError naming its JSON pointer; a generated grammar always parses.
#include <cstdlib>

#include "base/error.h"
#include "fuzz_common.h"
#include "grammar/json_schema.h"
#include "grammar/kbnf_parser.h"
#include "grammar/matcher.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  using namespace ai00::internal::grammar;
  std::string_view schema(reinterpret_cast<const char*>(data), size);
  auto r = json_schema_to_kbnf(schema);
  if (!r.ok()) return 0;
  auto parsed = parse_kbnf(r.value().kbnf);
  if (!parsed.ok()) std::abort();  // the writer produced KBNF its own parser refuses
  try {
    CompiledGrammar g = CompiledGrammar::compile(parsed.value(), nullptr);
    Matcher m(g);
    (void)m.forced_bytes();
  } catch (const ai00::internal::Error&) {
  }
  return 0;
}
