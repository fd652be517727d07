// Fuzz target: the RWKV World tokenizer (../shared/tokenizer/rwkv_vocab_v20230424.txt).
// encode() takes any bytes and decode(encode(x)) == x; decoding arbitrary ids (in and out of
// range) and the streaming decoder never crash, and the streaming decoder hands out valid UTF-8.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/utf8.h"
#include "core/tokenizer/tokenizer.h"
#include "fuzz_common.h"

namespace {
std::shared_ptr<const ai00::internal::Tokenizer> world() {
  static auto t = ai00::internal::Tokenizer::from_vocab_file(ai00_fuzz::shared_dir() +
                                                             "/tokenizer/rwkv_vocab_v20230424.txt");
  return t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ai00_fuzz::small_limits();
  auto tok = world();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<uint32_t> ids = tok->encode(text);
  if (tok->decode(ids) != text) std::abort();  // the round trip is exact
  // The same bytes read as ids (some past the vocabulary).
  ai00::internal::StreamDecoder dec(tok);
  std::string out;
  for (size_t i = 0; i + 2 <= size; i += 2) {
    uint32_t id = data[i] | uint32_t(data[i + 1]) << 8;
    try {
      dec.push(id, out);
    } catch (const ai00::internal::InvalidArgument&) {
      if (id < tok->vocab_size()) std::abort();  // only unknown ids are refused
    }
  }
  dec.flush(out);
  if (!ai00::internal::utf8::is_valid(out)) std::abort();
  return 0;
}
