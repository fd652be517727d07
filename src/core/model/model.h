// Model: an RWKV-7 model loaded for inference (docs/model.md, docs/weight-files.md).
//
// A Model owns the WeightFile (memory-mapped, large matrices used in place in their stored dtype;
// the int8-path ones and the float LoRA up-projections rearranged in place at load with
// ModelParams::pack_weights),
// the ModelConfig derived from tensor shapes, plain structs of weight pointers per layer, small
// vectors converted once to fp32, the kernel table chosen at load, a tbb::task_arena of
// `n_threads` threads, and (when one is found) the tokenizer.
//
// Ownership and threading: a Model is immutable after load(); every method is const and any
// number of threads may use one Model at the same time (each with its own State). It is handed
// out as std::shared_ptr<const Model>; States do not point to it (they carry a fingerprint).
// Parallel work runs inside the Model's own arena, never through a global_control; work is split
// into fixed blocks (matmul rows, WKV heads), so results do not depend on the thread count.
//
// Errors: load() throws IoError / ModelFileError (from the weight loaders and the checks here),
// InvalidArgument (bad params: n_threads < 1, unknown ISA name) or UnsupportedError (an ISA the
// CPU cannot run).
#pragma once

#include <tbb/task_arena.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/model/model_config.h"
#include "core/weights/weights.h"
#include "cpu_kernels/kernels.h"

namespace ai00::internal {
class ThreadPool;
}  // namespace ai00::internal

namespace ai00::internal {

class Tokenizer;

struct ModelParams {
  int n_threads = 1;       // threads of the Model's arena; 1 = run on the caller's thread
  std::string forced_isa;  // "" = AI00_FORCE_ISA environment variable, else the best ISA
  std::string vocab_path;  // RWKV World vocabulary to attach when the file carries none
  // Load progress in bytes of tensor data: called with (0, total) once the file is parsed,
  // after each chunk of tensor pages is read, and with (total, total) once the Model is
  // complete; `done` never decreases. May throw (e.g. Error{cancelled}) to stop the load, which
  // then releases everything. When set, load() reads every tensor's pages once, so the disk
  // time is spent (and shown) in the load instead of in the first forward pass.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Rearranges the matrices that go through the int8 path (Q4_0/Q4_1/Q5_0/Q5_1/Q8_0 weights of
  // the projections, the LoRA down-projections, the FFN and the head) into the kernel table's
  // row-interleaved layout (kernels.h pack_q8) at load, where the table has one (avx512_vnni,
  // avx512_bf16, avx2, avx2_vnni, neon64_dotprod): same memory, 1.7 to 3x the int8 GEMM
  // throughput (docs/dot-products.md "Packed weights in the model"); and stores the F32/F16/BF16
  // LoRA up-projections (w2, a2, g2, v2) transposed, on every table (docs/dot-products.md "LoRA
  // up-projections"). Off: the stored bytes stay as they are, e.g. for convert_model, which
  // reads the raw tensors. Results do not depend on it (fp32 activations included).
  bool pack_weights = true;
  // Keeps activations fp32 in every matrix product of every forward on this Model (forward(),
  // forward_batch, scoring, generators, batches), as ForwardOptions::fp32_activations does per
  // call: the exact path, for callers who need the reference's greedy tokens. Off: int8 / bf16
  // dot products where the weights allow (docs/dot-products.md "Integer and BF16 dot products").
  bool fp32_activations = false;
};

// A weight matrix in Linear orientation: y[r] = sum_c W[r][c] * x[c]. Points into the mapped
// file (or WeightFile-owned storage), in its stored type.
struct Mat {
  const uint8_t* data = nullptr;
  DType type = DType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  size_t row_bytes = 0;
  // Rows [0, packed_rows) are in the kernel table's packed layout (kernels.h pack_q8; a
  // multiple of 16); 0 = every row as stored. Only matmul_q8 reads packed rows directly.
  int64_t packed_rows = 0;
  // > 0: stored transposed in blocks of t_block rows, [rows / t_block][cols][t_block]: element
  // (r, c) at ((r / t_block) * cols + c) * t_block + r % t_block elements (row_bytes still gives
  // one logical row's bytes). The LoRA up-projections of a Model loaded with
  // ModelParams::pack_weights, one block per head, so a head's weights stay one contiguous
  // stream. Only matmul_t reads it (kernels.h MatmulTArgs). 0 = rows as stored.
  int64_t t_block = 0;
};

// src [rows][cols] elements of `es` bytes -> dst [rows / n][cols][n], the Mat::t_block = n
// layout (rows a multiple of n; dst must not overlap src).
void transpose_blocks(const uint8_t* src, int64_t rows, int64_t cols, int64_t n, size_t es,
                      uint8_t* dst);

// Per-block weights. Vectors are fp32 copies owned by the Model; matrices are views.
struct LayerWeights {
  const float* ln1_w = nullptr;    // [C]
  const float* ln1_b = nullptr;    // [C]
  const float* ln2_w = nullptr;    // [C]
  const float* ln2_b = nullptr;    // [C]
  const float* x_r = nullptr;      // [C] token-shift mix factors
  const float* x_w = nullptr;      // [C]
  const float* x_k = nullptr;      // [C]
  const float* x_v = nullptr;      // [C]
  const float* x_a = nullptr;      // [C]
  const float* x_g = nullptr;      // [C]
  const float* w0 = nullptr;       // [C] decay bias
  const float* a0 = nullptr;       // [C] in-context-rate bias
  const float* v0 = nullptr;       // [C] value-residual bias (blocks >= 1; nullptr in block 0)
  const float* k_k = nullptr;      // [C]
  const float* k_a = nullptr;      // [C]
  const float* r_k = nullptr;      // [H, N] bonus weights, flattened to [C]
  const float* ln_x_w = nullptr;   // [C] GroupNorm affine
  const float* ln_x_b = nullptr;   // [C]
  const float* ffn_x_k = nullptr;  // [C]
  Mat w1;                          // [Dw, C] decay LoRA down
  Mat w2;                          // [C, Dw] decay LoRA up
  Mat a1;                          // [Da, C]
  Mat a2;                          // [C, Da]
  Mat v1;                          // [Dv, C] (blocks >= 1)
  Mat v2;                          // [C, Dv] (blocks >= 1)
  Mat g1;                          // [Dg, C]
  Mat g2;                          // [C, Dg]
  Mat receptance;                  // [C, C]
  Mat key;                         // [C, C]
  Mat value;                       // [C, C]
  Mat output;                      // [C, C]
  Mat ffn_key;                     // [F, C]
  Mat ffn_value;                   // [C, F]
};

struct GlobalWeights {
  const TensorView* emb = nullptr;  // (V, C) embedding rows, stored dtype (dequantized per row)
  const float* ln0_w = nullptr;     // [C]
  const float* ln0_b = nullptr;     // [C]
  const float* ln_out_w = nullptr;  // [C]
  const float* ln_out_b = nullptr;  // [C]
  Mat head;                         // [V, C]
};

class Model {
 public:
  // Opens `path` (any supported weight format), derives the config, checks every tensor and
  // chooses the kernels. See the header comment for errors.
  static std::shared_ptr<const Model> load(const std::string& path, const ModelParams& params = {});

  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  const ModelConfig& config() const { return config_; }
  // The tensors as loaded. With ModelParams::pack_weights the bytes of the packed matrices
  // (Mat::packed_rows > 0) and of the transposed ones (Mat::t_block > 0) are rearranged: read
  // them through the Mats, not as stored tensors.
  const WeightFile& weights() const { return *weights_; }
  const cpu::KernelTable& kernels() const { return *kernels_; }
  const LayerWeights& layer(int64_t l) const { return layers_[static_cast<size_t>(l)]; }
  const GlobalWeights& global() const { return global_; }
  int n_threads() const { return n_threads_; }
  // ModelParams::fp32_activations as loaded: every forward on this Model keeps fp32 activations.
  bool fp32_activations() const { return fp32_activations_; }
  // Hash of the config and of a few tensors' bytes; States and serialized States carry it.
  uint64_t fingerprint() const { return fingerprint_; }
  // The tokenizer, from the first source found: the GGUF vocabulary, ModelParams::vocab_path,
  // `rwkv_vocab_v20230424.txt` beside the model file, a byte-level vocabulary when the model has
  // 256 tokens; nullptr when none applies. A vocabulary larger than the model's is a
  // MismatchError at load.
  const Tokenizer* tokenizer() const { return tokenizer_.get(); }
  std::shared_ptr<const Tokenizer> tokenizer_shared() const { return tokenizer_; }

  // out[C] = LayerNorm(emb[token]; ln0). token must be < vocab (checked by the caller).
  void embed(uint32_t token, float* out) const;

  // Runs f inside the Model's arena (inline when n_threads == 1).
  void execute(const std::function<void()>& f) const;
  // Calls body(begin, end) over the fixed blocks [0, n) split every `block` items, in parallel
  // when called inside execute() with n_threads > 1. Each call gets a run of whole consecutive
  // blocks (all of them on one thread; a thread's share with n_threads > 1), so `body` must give
  // every item the same result whatever run it is in. Block boundaries depend only on n and
  // block, never on the thread count; the runs do.
  void parallel_blocks(int64_t n, int64_t block,
                       const std::function<void(int64_t, int64_t)>& body) const;
  // Fork-joins so far: parallel_blocks calls that handed blocks to other threads (the arena's,
  // or the ThreadSanitizer build's pool; calls that ran inline, with one thread or one block,
  // are not counted). Tests and benchmarks read it to count the parallel passes of a token.
  uint64_t fork_join_count() const { return fork_joins_.load(std::memory_order_relaxed); }

 private:
  Model() = default;
  void bind_weights();
  void pack_weights();
  const float* vec_f32(const std::string& name, int64_t n);
  Mat mat(const std::string& name, int64_t rows, int64_t cols) const;
  void attach_tokenizer(const std::string& model_path, const std::string& vocab_path);
  void read_pages(const std::function<void(uint64_t, uint64_t)>& progress, uint64_t total) const;

  std::unique_ptr<WeightFile> weights_;
  ModelConfig config_;
  const cpu::KernelTable* kernels_ = nullptr;
  std::vector<LayerWeights> layers_;
  GlobalWeights global_;
  std::vector<std::unique_ptr<std::vector<float>>> f32_store_;  // converted vectors
  int n_threads_ = 1;
  bool fp32_activations_ = false;
  uint64_t fingerprint_ = 0;
  std::unique_ptr<tbb::task_arena> arena_;
  mutable std::atomic<uint64_t> fork_joins_{0};
  std::shared_ptr<ThreadPool> pool_;  // instead of arena_ in ThreadSanitizer builds
  std::shared_ptr<const Tokenizer> tokenizer_;
};

}  // namespace ai00::internal