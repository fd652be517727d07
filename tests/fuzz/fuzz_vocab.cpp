// Fuzz target: vocabulary files (rwkv_vocab_v20230424.txt lines, ai00_server JSON, GGUF escaped
// token strings) and the tokenizer built from them. The first byte picks the reader.
#include <string>
#include <vector>

#include "base/error.h"
#include "core/tokenizer/tokenizer.h"
#include "core/tokenizer/vocab_parse.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  ai00_fuzz::Bytes in(data, size);
  const uint8_t mode = in.u8() % 3;
  const std::string_view text = in.rest();
  try {
    if (mode == 2) {  // GGUF: one token per line, entry 0 is the control token
      std::vector<std::string> tokens{"<s>"};
      size_t pos = 0;
      while (pos <= text.size() && tokens.size() < 4096) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        tokens.emplace_back(text.substr(pos, nl - pos));
        pos = nl + 1;
      }
      auto tok = ai00::internal::Tokenizer::from_gguf(tokens, {});
      (void)tok->encode(text.substr(0, 64));
    } else {
      auto tok = ai00::internal::Tokenizer::from_vocab_bytes(text, mode ? "fuzz.json" : "fuzz.txt");
      (void)tok->encode(text.substr(0, 64));
    }
  } catch (const ai00::internal::Error&) {
  }
  return 0;
}
