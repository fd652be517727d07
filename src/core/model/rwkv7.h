// The RWKV-7 forward pass (docs/model.md "RWKV-7 math", "Forward").
//
// forward() runs T tokens through the model, advancing `state`. All activations and the state
// are fp32; weights are read in their stored type by the kernels. The T tokens are processed as
// a sequence: every projection is one matmul over the T x C activations and only the WKV
// recurrence is sequential over tokens, so one call with T tokens, T calls with one token and
// chunked calls give the same results up to float rounding.
//
// Threading: uses the Model's arena (fixed row blocks per matmul, heads for WKV), so results do
// not depend on ModelParams::n_threads. Any number of threads may call forward() on one Model
// at once, each with its own State. Scratch memory is allocated per call (never in the Model).
//
// Errors (checked before any state is touched): InvalidArgument for a null or empty token list
// or a token id >= vocab (the message names the id and its position); MismatchError for a State
// of another model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ai00::internal {

class Model;
class State;

struct ForwardOptions {
  bool all_logits = false;  // forward() only: logits for every token ([n][V]), not the last ([V])
  size_t chunk = 0;  // rows (tokens of all segments) per internal pass (bounds scratch); 0 = 64
  // Q4_0/Q4_1/Q5_0/Q5_1/Q8_0 weights multiply activations quantized per 32-block to int8
  // (logits within 0.1 of fp32 activations), BF16 weights (where the kernel table has a BF16
  // dot) activations rounded once to bf16 (the same rule); true keeps fp32 activations for
  // every type, the exact path the reference comparisons use (docs/dot-products.md "Integer and
  // BF16 dot products"). A Model loaded with ModelParams::fp32_activations is exact whatever this
  // says (the two are OR-ed in forward_batch).
  bool fp32_activations = false;
};

// logits: nullptr (prefill only, no head matmul), or [n][V] floats with all_logits, else [V].
void forward(const Model& model, State& state, const uint32_t* tokens, size_t n, float* logits,
             const ForwardOptions& options = {});

// One State's share of a forward_batch: n tokens fed to `state` in order. logits: nullptr
// (prefill only), [n][V] with all_logits, else [V] (after the last token).
struct BatchSegment {
  State* state = nullptr;
  const uint32_t* tokens = nullptr;
  size_t n = 0;
  float* logits = nullptr;
  bool all_logits = false;
};

// Advances every segment's State by its tokens in shared passes (docs/batching.md): a pass
// takes up to options.chunk rows in total, from the segments in order (a segment's remaining
// tokens continue in the next pass), and every matrix product runs over all the pass's rows at
// once, so the weights are read once per pass instead of once per State. The token shift, the
// WKV scan and v_first are per segment on its own State. Every (row, token) result of a kernel
// is independent of the number of rows and of their tiling (src/cpu_kernels/kernels.h), so each
// State and its logits are bitwise what forward() on that State alone gives, whatever the
// other segments and the chunk (options.all_logits is ignored: each segment says).
//
// Errors, all checked before any State is touched: InvalidArgument for an empty segment list,
// a null state, an empty token list, a token id >= vocab (naming the segment, the id and its
// position) and the same State in two segments; MismatchError for a State of another model
// (naming the segment). Threads: as forward().
void forward_batch(const Model& model, const std::vector<BatchSegment>& segments,
                   const ForwardOptions& options = {});

// The weights one decode step (T = 1, last-token logits) reads, in the layout and memory the
// kernels read them from: every matrix once (rows x row_bytes), plus one embedding row (the
// first). The benchmarks' roofline: bench_speed_table reads these very bytes as fast as it can
// to get the read bandwidth a decode of this model could reach (bench/read_probe.h).
struct WeightSpan {
  const uint8_t* data = nullptr;
  size_t bytes = 0;
};
std::vector<WeightSpan> decode_weight_spans(const Model& model);
// The sum of decode_weight_spans' bytes.
size_t decode_weight_bytes(const Model& model);

}  // namespace ai00::internal
