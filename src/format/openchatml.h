// OpenChatML v0.1 (seed 002): "<|im_start|>role[ name=N]\ncontent\n<|im_end|>" messages joined
// by "\n", between the model's own BOS and EOS.
//
// * [BOS]/[EOS] are the base model's tokens: OpenChatMLOptions::bos/eos hold their text ("" for
//   RWKV, whose EOS is token 0: RenderResult::stop_on_token0). EOS follows the last <|im_end|>
//   of a finished conversation; a generation prompt ends in "\n<|im_start|>assistant\n".
// * Thought flags: with thinking on, "<|reason|>" (and "<|reflect|>", "<|introspect|>" when
//   enabled in the options) are appended to the system message (one is created if needed).
//   The parser turns "<|start_reason|>…<|end_reason|>" into `reasoning`; reflect and
//   introspect blocks are appended to `reasoning` with their markers (and the newline after
//   them) kept, so their kind survives and a re-render reproduces the bytes.
// * Tools: "\n<|function_list|>\n" and one {"type":"function","function":{…}} per tool, 2-space
//   JSON, after the system text. Calls: "<|function_call|>\n" + {"arguments": …, "name": …} on
//   one line, one per line after the content; the parser reads /name and /arguments of each
//   call's JSON, whatever the key order. Results: a tool message "<|function_output|>\n" +
//   {"name": …, "content": value} (2-space JSON) for a value part, or the text verbatim.
// * Marker policy: reject (render_util.h). User, assistant and tool text may not contain any
//   "<|…|>" token of seed 002 section 2; system text may not contain <|im_start|> or <|im_end|>
//   (it may quote the tool syntax, as seed 002 section 8.5 does). Names may not contain
//   whitespace (seed 002 section 3).
// * Fill-in-the-middle and multi-file sequences are raw-prompt builders, not chat.
//
// Threading: the format is immutable; parsers are per stream.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/format.h"

namespace ai00::internal::format {

struct OpenChatMLOptions {
  std::string bos;          // text of [BOS]; "" for RWKV
  std::string eos;          // text of [EOS]; "" for RWKV (token 0 ends the turn)
  bool reflect = false;     // with thinking on, also ask for <|start_reflect|> blocks
  bool introspect = false;  // with thinking on, also ask for <|start_introspect|> blocks
  // Seed 002 section 3 writes "\n" before <|im_end|>; some of its examples do not.
  bool newline_before_im_end = true;
};

std::shared_ptr<const ChatFormat> make_openchatml(const OpenChatMLOptions& options = {});

// "<|function_list|>\n" and one {"type":"function","function":{…}} per tool (section 8.1).
std::string openchatml_function_list(const std::vector<ToolDesc>& tools);

// "<|fim_prefix|>" prefix "<|fim_middle|><|fim_suffix|>" suffix (seed 002 section 6 order).
std::string openchatml_fim(std::string_view prefix, std::string_view suffix);
// A finished FIM sequence: "<|fim_prefix|>P<|fim_middle|>M<|fim_suffix|>S" (section 9).
std::string openchatml_fim_completion(std::string_view prefix, std::string_view middle,
                                      std::string_view suffix);
// Files joined by "\n<|file_separator|>\n"; with `leading_separator` the sequence also starts
// with "<|file_separator|>\n" (section 9, example 3).
std::string openchatml_multi_file(const std::vector<std::string>& files,
                                  bool leading_separator = false);

}  // namespace ai00::internal::format
