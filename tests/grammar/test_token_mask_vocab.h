// Test and bench support: loads the RWKV World vocabulary (shared/tokenizer/
// rwkv_vocab_v20230424.txt, lines `ID PYTHON_LITERAL LENGTH`) into token byte strings without
// depending on src/core, and reads the grammar corpus files of tests/data/grammar/corpus.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "grammar/vocab_index.h"

namespace ai00::test {
using namespace ::ai00::internal;  // test helpers of the internal layers

// tokens[id] = bytes; tokens[0] = "" (end of text). Throws std::runtime_error naming the line.
std::vector<std::string> load_rwkv_vocab(const std::string& path);
// The World vocabulary from shared/, indexed once per process (65,536-bit masks).
std::shared_ptr<const grammar::VocabIndex> world_vocab();

// One corpus case: `### name [start=NAME]`, grammar lines, then `+ text` (accept) and
// `- text` (reject) lines; text uses C escapes (\n \t \r \\ \xHH) and may be empty.
struct GrammarCase {
  std::string file;
  int line = 0;
  std::string name;
  std::string start = "start";
  std::string grammar;
  std::vector<std::string> accept, reject;
};
std::vector<GrammarCase> load_corpus(const std::string& dir);
std::string unescape_c(const std::string& s);

}  // namespace ai00::test
