// Deltas of the C ABI: the C++ MessageDelta flattened into tagged ai00_delta records whose
// strings live in the handle (generator or output parser) until the next call on it.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "ai00/ai00.h"
#include "format/delta.h"

namespace ai00::internal::abi {

// One ai00_delta with owned strings.
struct Flat {
  int32_t kind = AI00_DELTA_TEXT;
  uint32_t call = 0;
  int32_t finish = AI00_FINISH_NONE;
  std::string text, id, name;
  bool valid = true;
};

// FinishReason <-> ai00_finish_reason. finish_reason_of throws InvalidArgument (naming
// `function`) for a value that is no ai00_finish_reason or is AI00_FINISH_NONE.
int32_t finish_code(format::FinishReason r);
format::FinishReason finish_reason_of(int32_t code, const char* function);

// Reasoning, then content text, then tool calls, then the finish: the order a reader of the
// one-field deltas the parsers emit would see them in. Non-text parts are never streamed.
void flatten(const format::MessageDelta& d, std::deque<Flat>& out);

// Points *out at f's strings (valid while f is), writing a whole ai00_delta (for callbacks).
void fill(const Flat& f, ai00_delta* out);
// The same into a caller's struct: writes only out->struct_size bytes, which must lie between
// the first published size and this library's (else InvalidArgument naming `function`), so a
// caller built against an older header never has bytes written past its struct.
void fill_caller(const Flat& f, ai00_delta* out, const char* function);

// sizeof(ai00_delta) of the first published header.
constexpr size_t kDeltaV1Size = sizeof(ai00_delta);

}  // namespace ai00::internal::abi
