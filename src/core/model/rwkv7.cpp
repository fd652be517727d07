// The RWKV-7 forward pass as a list of named kernel calls. Each step names its counterpart in
// shared/ref/rwkv7_ref.py (class RWKV7: forward_seq, _time_mix_projections, _wkv_scan,
// _time_mix_output, _channel_mix). Rows are tokens: every buffer below is [T][width].
#include "core/model/rwkv7.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/model/model.h"
#include "core/model/state.h"

namespace ai00::internal {
namespace {

constexpr float kLnEps = 1e-5f;    // ln0, ln1, ln2, ln_out
constexpr float kGnEps = 64e-5f;   // ln_x GroupNorm (head_size_divisor 8)
constexpr float kL2Eps = 1e-12f;   // kk normalisation
constexpr int64_t kRowBlock = 64;  // rows of W per matmul task (fixed: thread-count free)
constexpr size_t kDefaultChunk = 64;
// A pass with fewer multiply-adds than this runs on the calling thread: a fork-join costs
// about as much as 30k multiply-adds on one core (docs/model.md "Passes per token").
constexpr double kMinParallelMacs = 131072;

// Scratch for T rows, carved from one allocation. Widths in the comments.
struct Workspace {
  std::vector<float> mem;
  float *x, *xn, *dx;                  // [T][C] residual, normed input, shift difference
  float *xr, *xw, *xk, *xv, *xa, *xg;  // [T][C] token-shift mixes
  float *r, *k, *v, *w, *a, *g;        // [T][C] receptance, key, value, decay, rate, gate
  float *kk, *b, *y, *tmp, *v_first;   // [T][C]
  float *hw, *ha, *hv, *hg;            // [T][Dw], [T][Da], [T][Dv], [T][Dg] LoRA hidden
  float* h;                            // [T][F] FFN hidden
  bool fp32_act = false;               // ForwardOptions::fp32_activations
  // Converted activations of each matrix product of a pass, by job index: [T][cols / 32] int8
  // blocks (matmul_q8) or [T][cols] bf16 (matmul_bf16). Grown on first use.
  std::vector<std::vector<cpu::BlockQ8>> xq;
  std::vector<std::vector<uint16_t>> xs;
  std::vector<float> logits;       // [R][V] head output when several segments ask for logits
  std::vector<const float*> prev;  // [T] shift_mix: the row before each row (a State's shift)
  Workspace(int64_t T, const ModelConfig& c) {
    const size_t C = static_cast<size_t>(c.n_embd), rows = static_cast<size_t>(T);
    float** vecs[] = {&x, &xn, &dx, &xr, &xw, &xk, &xv, &xa, &xg,  &r,
                      &k, &v,  &w,  &a,  &g,  &kk, &b,  &y,  &tmp, &v_first};
    const size_t n_vec = sizeof(vecs) / sizeof(vecs[0]);
    const size_t pad = 16;  // keep every buffer 64-byte aligned relative to the base
    auto slab = [&](int64_t width) {
      return (rows * static_cast<size_t>(width) + pad - 1) / pad * pad;
    };
    const int64_t hidden[] = {c.d_w, c.d_a, std::max<int64_t>(c.d_v, 1), c.d_g, c.ffn_size};
    size_t total = n_vec * slab(c.n_embd) + pad;
    for (int64_t wdt : hidden) total += slab(wdt);
    mem.assign(total, 0.0f);
    float* base = mem.data();
    for (size_t i = 0; i < n_vec; ++i) *vecs[i] = base + i * slab(static_cast<int64_t>(C));
    float* p = base + n_vec * slab(static_cast<int64_t>(C));
    float** hs[] = {&hw, &ha, &hv, &hg, &h};
    for (size_t i = 0; i < 5; ++i) *hs[i] = p, p += slab(hidden[i]);
  }
};

// One segment's share of a pass: rows [row0, row0 + rows) of the workspace belong to `state`.
struct PassSeg {
  State* state;
  int64_t row0, rows;
};

// Everything one pass needs; T rows in total, cut into segments (one State each). Matrix
// products and element-wise steps run over all T rows; the token shift and the WKV scan run per
// segment on its own State.
struct Pass {
  const Model& m;
  const cpu::KernelTable& kt;
  Workspace& ws;
  int64_t T, C, N, H;
  const std::vector<PassSeg>* segs;
};

// Runs body(begin, end) over the fixed items [0, n) (one item per block): on the calling thread
// when the pass is small, else as one fork-join in the Model's arena.
void run_items(const Pass& p, double macs, int64_t n,
               const std::function<void(int64_t, int64_t)>& body) {
  if (macs < kMinParallelMacs) {
    body(0, n);
  } else {
    p.m.parallel_blocks(n, 1, body);
  }
}

// Rows of the row-wise steps per task (layer norms, token shift, mixes, activation conversion).
constexpr int64_t kRowsPerTask = 4;

// body(t0, t1) over the T rows in fixed blocks of kRowsPerTask: in parallel when the step costs
// more than a fork-join (`per_row`: its multiply-add equivalents a row), which at T = 1 and for
// a small batch it does not. At T = 64 these steps, run on the calling thread, left the other
// thread idle for 7 % of a 2-thread prefill (docs/dot-products.md "Where a prefill's time goes").
void run_rows(const Pass& p, double per_row, const std::function<void(int64_t, int64_t)>& body) {
  const int64_t n = (p.T + kRowsPerTask - 1) / kRowsPerTask;
  run_items(p, per_row * static_cast<double>(p.T), n,
            [&](int64_t b, int64_t e) { body(b * kRowsPerTask, std::min(p.T, e * kRowsPerTask)); });
}

// y[T][W.rows] rows [r0, r1) = x[T][W.cols] . W^T with fp32 activations (any weight type).
// Packed rows (Mat::packed_rows) are unpacked into per-thread scratch first, and give the same
// bits as the plain matrix: a (row, token) result does not depend on the row range.
void matmul_rows(const Pass& p, const Mat& W, const float* x, float* y, int64_t r0, int64_t r1) {
  cpu::MatmulArgs a;
  a.w = W.data, a.wtype = W.type, a.w_row_bytes = W.row_bytes, a.cols = W.cols;
  a.x = x, a.x_stride = W.cols, a.y = y, a.y_stride = W.rows, a.T = p.T;
  a.row_begin = r0, a.row_end = r1;
  if (r0 < W.packed_rows) {
    thread_local std::vector<uint8_t> plain;  // [pe - r0][row_bytes]
    const int64_t pe = std::min(r1, W.packed_rows);
    plain.resize(static_cast<size_t>(pe - r0) * W.row_bytes);
    p.kt.unpack_q8(W.type, W.data, W.cols, r0, pe, plain.data());
    cpu::MatmulArgs u = a;
    u.w = plain.data(), u.y = y + r0, u.row_begin = 0, u.row_end = pe - r0;
    p.kt.matmul(u);
    a.row_begin = pe;
    if (pe == r1) return;
  }
  p.kt.matmul(a);
}

// Rows [c0, c1) of a LoRA up-projection W [C][D] (y[t][c] = sum_d x[t][d] W[c][d], x [T][D],
// y [T][C]) through matmul_t (docs/dot-products.md "LoRA up-projections"): a W transposed head by
// head (Mat::t_block) is read as it lies, block by block; a stored one has its rows [c0, c1)
// transposed into per-thread scratch first, which gives the same bits (each output is its own
// chain over d). Quantized LoRAs (rwkv.cpp files) take the row kernel.
void lora_up(const Pass& p, const Mat& W, const float* x, float* y, int64_t c0, int64_t c1) {
  if (!cpu::matmul_t_supports(W.type)) {
    matmul_rows(p, W, x, y, c0, c1);
    return;
  }
  const size_t es = dtype_row_bytes(W.type, 1);
  cpu::MatmulTArgs a;
  a.wtype = W.type, a.D = W.cols, a.x = x, a.x_stride = W.cols, a.y_stride = W.rows, a.T = p.T;
  if (W.t_block > 0) {
    const int64_t n = W.t_block;
    a.w_row_bytes = es * static_cast<size_t>(n);
    for (int64_t b = c0 / n; b * n < c1; ++b) {  // the blocks [c0, c1) touches
      a.w = W.data + static_cast<size_t>(b * W.cols * n) * es, a.y = y + b * n;
      a.col_begin = std::max(c0, b * n) - b * n, a.col_end = std::min(c1, (b + 1) * n) - b * n;
      p.kt.matmul_t(a);
    }
    return;
  }
  thread_local std::vector<uint8_t> t;  // [D][c1 - c0]: rows [c0, c1) as one block
  const int64_t n = c1 - c0;
  t.resize(static_cast<size_t>(W.cols * n) * es);
  transpose_blocks(W.data + static_cast<size_t>(c0) * W.row_bytes, n, W.cols, n, es, t.data());
  a.w = t.data(), a.w_row_bytes = es * static_cast<size_t>(n), a.y = y + c0;
  a.col_begin = 0, a.col_end = n;
  p.kt.matmul_t(a);
}

// How a pass multiplies one matrix: quantized weights take the int8 dot and BF16 weights the
// bf16 dot where the table has it (docs/dot-products.md "Integer and BF16 dot products"), unless
// the caller asked for fp32 activations.
enum class DotPath { fp32, int8, bf16 };

DotPath dot_path(const Pass& p, const Mat& W) {
  if (p.ws.fp32_act) return DotPath::fp32;
  if (cpu::matmul_q8_supports(W.type)) return DotPath::int8;
  if (W.type == DType::BF16 && p.kt.matmul_bf16 != nullptr) return DotPath::bf16;
  return DotPath::fp32;
}

// Sizes job j's converted activations: [T][cols / 32] int8 blocks or [T][cols] bf16.
void size_activations(const Pass& p, size_t j, DotPath path, const Mat& W) {
  if (path == DotPath::int8) {
    if (p.ws.xq.size() <= j) p.ws.xq.resize(j + 1);
    p.ws.xq[j].resize(static_cast<size_t>(p.T * (W.cols / 32)));
  } else if (path == DotPath::bf16) {
    if (p.ws.xs.size() <= j) p.ws.xs.resize(j + 1);
    p.ws.xs[j].resize(static_cast<size_t>(p.T * W.cols));
  }
}

// Converts rows [t0, t1) of job j's activations (sized already). All of a pass's conversions
// finish before its rows are split among threads: every row block then reads the same
// converted x, so the result does not depend on the split.
void convert_activations(const Pass& p, size_t j, DotPath path, const Mat& W, const float* x,
                         int64_t t0, int64_t t1) {
  if (path == DotPath::int8) {
    const int64_t nb = W.cols / 32;
    cpu::BlockQ8* xq = p.ws.xq[j].data();
    for (int64_t t = t0; t < t1; ++t) p.kt.quantize_q8(x + t * W.cols, xq + t * nb, W.cols);
  } else if (path == DotPath::bf16) {
    uint16_t* xs = p.ws.xs[j].data();
    for (int64_t t = t0; t < t1; ++t) p.kt.round_bf16(x + t * W.cols, xs + t * W.cols, W.cols);
  }
}

// Rows [r0, r1) of job j's product along its dot path (activations converted already).
void job_rows(const Pass& p, size_t j, DotPath path, const Mat& W, const float* x, float* y,
              int64_t r0, int64_t r1) {
  if (path == DotPath::int8) {
    cpu::MatmulQ8Args a;
    a.w = W.data, a.wtype = W.type, a.w_row_bytes = W.row_bytes, a.cols = W.cols;
    a.x = p.ws.xq[j].data(), a.x_stride = W.cols / 32, a.y = y, a.y_stride = W.rows, a.T = p.T;
    a.row_begin = r0, a.row_end = r1, a.packed_rows = W.packed_rows;
    p.kt.matmul_q8(a);
  } else if (path == DotPath::bf16) {
    cpu::MatmulBf16Args a;
    a.w = W.data, a.w_row_bytes = W.row_bytes, a.cols = W.cols;
    a.x = p.ws.xs[j].data(), a.x_stride = W.cols;
    a.xf = x, a.xf_stride = W.cols, a.y = y, a.y_stride = W.rows, a.T = p.T;
    a.row_begin = r0, a.row_end = r1;
    p.kt.matmul_bf16(a);
  } else {
    matmul_rows(p, W, x, y, r0, r1);
  }
}

// One matrix product of a pass, y = x . W^T, with `post(r0, r1)` run on each finished block of
// rows by the thread that computed it (the element-wise step that follows the product).
struct MatJob {
  const Mat* W;
  const float* x;
  float* y;
  std::function<void(int64_t, int64_t)> post;
};

// Rows per task of a job on `path` in a pass whose fastest job is on `fastest`. The threads
// take equal counts of tasks (a static partition), so at T > 1, where a product's time is its
// arithmetic, a task on the fp32 path gets a quarter of the rows next to int8 dot products
// (fp32 FMA has a quarter of the vpdpbusd rate per multiply-add) and half next to bf16 dot
// products: the tasks then cost about the same, and a pass that mixes the int8 block matrices
// with a quantized file's F16 LoRA down-projections no longer leaves one thread with all of the
// slow rows (docs/dot-products.md "Where a prefill's time goes"). Decode (T = 1) keeps equal
// blocks. A row's result does not depend on its block, so the split changes no bits.
int64_t block_rows(const Pass& p, DotPath path, DotPath fastest) {
  if (p.T == 1 || path != DotPath::fp32) return kRowBlock;
  if (fastest == DotPath::int8) return kRowBlock / 4;
  if (fastest == DotPath::bf16) return kRowBlock / 2;
  return kRowBlock;
}

// Whether a thread runs its consecutive blocks of one matrix as one kernel call. In decode
// (T = 1) it does: the decode kernels read a call's rows as a few contiguous pieces, each a
// sequential stream the hardware prefetchers follow (docs/decode-speed.md "Decode in pieces"),
// and a call of one 64-row block cut those streams into 13-48 KB runs, each starting cold. One
// call per thread's share: 0.1B on 1 thread, Q8_0 57-67 % of the roofline -> 66-76 %, Q4_0
// 52-59 % -> 65-71 % (docs/decode-speed.md "One call per run of blocks"). Not on the fp32 path
// of packed rows (ForwardOptions::fp32_activations on a packed model), which unpacks a call's
// rows into scratch first: one call could then unpack a whole head. A row's result does not
// depend on its call's rows, so no bit changes.
bool merges(const Pass& p, DotPath path, const Mat& W) {
  return p.T == 1 && (path != DotPath::fp32 || W.packed_rows == 0);
}

// Every job's rows in fixed blocks (block_rows), all in one parallel pass.
void run_pass(const Pass& p, const std::vector<MatJob>& jobs) {
  struct Task {
    size_t job;
    int64_t r0, r1;
  };
  std::vector<Task> tasks;
  std::vector<DotPath> paths(jobs.size());
  DotPath fastest = DotPath::fp32;
  double macs = 0, convert_cols = 0;  // multiply-adds; columns converted a row
  for (size_t j = 0; j < jobs.size(); ++j) {
    const Mat& W = *jobs[j].W;
    paths[j] = dot_path(p, W);
    if (paths[j] == DotPath::int8 || (paths[j] == DotPath::bf16 && fastest == DotPath::fp32)) {
      fastest = paths[j];
    }
    size_activations(p, j, paths[j], W);
    if (paths[j] != DotPath::fp32) convert_cols += static_cast<double>(W.cols);
    macs += static_cast<double>(W.rows) * static_cast<double>(W.cols) * static_cast<double>(p.T);
  }
  run_rows(p, convert_cols, [&](int64_t t0, int64_t t1) {
    for (size_t j = 0; j < jobs.size(); ++j) {
      convert_activations(p, j, paths[j], *jobs[j].W, jobs[j].x, t0, t1);
    }
  });
  for (size_t j = 0; j < jobs.size(); ++j) {
    const int64_t rows = jobs[j].W->rows, step = block_rows(p, paths[j], fastest);
    for (int64_t r = 0; r < rows; r += step) tasks.push_back({j, r, std::min(rows, r + step)});
  }
  run_items(p, macs, static_cast<int64_t>(tasks.size()), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const size_t j = tasks[static_cast<size_t>(i)].job;
      const MatJob& job = jobs[j];
      const int64_t r0 = tasks[static_cast<size_t>(i)].r0;
      int64_t r1 = tasks[static_cast<size_t>(i)].r1;
      while (i + 1 < end && merges(p, paths[j], *job.W) &&
             tasks[static_cast<size_t>(i + 1)].job == j) {
        r1 = tasks[static_cast<size_t>(++i)].r1;
      }
      job_rows(p, j, paths[j], *job.W, job.x, job.y, r0, r1);
      if (job.post) job.post(r0, r1);
    }
  });
}

// f(y_t + r0, r1 - r0) for every row t of a [T][stride] buffer: a post step on columns [r0, r1).
template <typename F>
void each_row(const Pass& p, float* y, int64_t stride, int64_t r0, int64_t r1, F f) {
  for (int64_t t = 0; t < p.T; ++t) f(y + t * stride + r0, r1 - r0);
}

// LayerNorm of rows [t0, t1) of C.
void norm_rows(const Pass& p, const float* x, float* y, const float* wt, const float* bias,
               float eps, int64_t t0, int64_t t1) {
  cpu::NormArgs a;
  a.x = x + t0 * p.C, a.y = y + t0 * p.C, a.weight = wt, a.bias = bias, a.rows = t1 - t0;
  a.n = p.C, a.group_size = 0, a.eps = eps;
  p.kt.norm(a);
}

// One token-shift mix: out = xn + (xn[t-1] - xn[t]) * mix.
struct Mix {
  const float* mix;  // [C]
  float* out;        // [T][C]
};

// The start of a block's time mix or channel mix, row by row: xn = layer_norm(x, ln);
// dx[t] = xn[t-1] - xn[t], where xn[-1] of each segment is its State's shift (att_shift or
// ffn_shift of layer l, chosen by `shift_of`); every mix; then each shift = its segment's last
// xn row (the state update), once every row has read it.
template <typename ShiftOf>
void shift_mix(const Pass& p, const float* ln_w, const float* ln_b, ShiftOf shift_of,
               std::initializer_list<Mix> mixes) {
  Workspace& s = p.ws;
  const int64_t C = p.C;
  run_rows(p, 3.0 * static_cast<double>(C),
           [&](int64_t t0, int64_t t1) { norm_rows(p, s.x, s.xn, ln_w, ln_b, kLnEps, t0, t1); });
  std::vector<const float*>& prev = s.prev;
  prev.resize(static_cast<size_t>(p.T));
  for (const PassSeg& sg : *p.segs) {
    for (int64_t t = sg.row0; t < sg.row0 + sg.rows; ++t) {
      prev[static_cast<size_t>(t)] = t == sg.row0 ? shift_of(*sg.state) : s.xn + (t - 1) * C;
    }
  }
  const double per_row = static_cast<double>((1 + mixes.size()) * static_cast<size_t>(C));
  run_rows(p, per_row, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const float *xn = s.xn + t * C, *before = prev[static_cast<size_t>(t)];
      float* dx = s.dx + t * C;
      for (int64_t c = 0; c < C; ++c) dx[c] = before[c] - xn[c];
      for (const Mix& m : mixes) p.kt.lerp(xn, dx, m.mix, m.out + t * C, C);
    }
  });
  for (const PassSeg& sg : *p.segs) {
    std::memcpy(shift_of(*sg.state), s.xn + (sg.row0 + sg.rows - 1) * C,
                static_cast<size_t>(C) * sizeof(float));
  }
}

// [b, b + n) asked for into L2 (a hint: no fault, no effect on results).
void prefetch_bytes(const uint8_t* b, size_t n) {
  for (size_t o = 0; o < n; o += 64) __builtin_prefetch(b + o, 0, 2);
  if (n > 0) __builtin_prefetch(b + n - 1, 0, 2);  // the last line when b is not line-aligned
}

// Rows [r0, r1) of W asked for into L2; of a W transposed in blocks (Mat::t_block), the whole
// blocks holding them (contiguous: W.row_bytes per row either way).
void prefetch_rows(const Mat& W, int64_t r0, int64_t r1) {
  if (W.data == nullptr || r0 >= r1) return;
  if (W.t_block > 0) {
    r0 = r0 / W.t_block * W.t_block;
    r1 = std::min(W.rows, (r1 + W.t_block - 1) / W.t_block * W.t_block);
  }
  const uint8_t* b = W.data + static_cast<size_t>(r0) * W.row_bytes;
  prefetch_bytes(b, static_cast<size_t>(r1 - r0) * W.row_bytes);
}

// Heads [h0, h1) of a head task: their 64-row slices of the LoRA up-projections, asked for
// before they are used (their WKV states: StatePump, below). Each slice is a few KB, too short
// for the hardware prefetchers and for the matvec's own prefetch (one tile of rows ahead), so
// without this the up-projections ran at a third of the read bandwidth and every WKV state
// came from L3 at full latency (docs/decode-speed.md "Where a decode token's time goes").
void prefetch_lora_slices(const Pass& p, const LayerWeights& w, int64_t h0, int64_t h1) {
  for (const Mat* m : {&w.w2, &w.a2, &w.g2, &w.v2}) prefetch_rows(*m, h0 * p.N, h1 * p.N);
}

// The WKV state lines of head h of every segment (16 KB a State at N 64), asked for a share at
// a time between the steps of an earlier head (head_step), so that their read overlaps that
// head's work. Asked for all at once, the lines of 8 or 32 States (128 or 512 KB) filled the
// miss buffers and the thread waited on its own prefetches: 4-5 % of a batched step of 8 or 32
// States, on top of the WKV scans still waiting for lines (docs/batching.md "Where a batched
// step's time goes"). h outside [0, H): nothing.
class StatePump {
 public:
  StatePump(const Pass& p, int64_t l, int64_t h)
      : p_(p), l_(l), h_(h), per_(p.N * p.N * static_cast<int64_t>(sizeof(float)) / 64) {
    if (h >= 0 && h < p.H) total_ = per_ * static_cast<int64_t>(p.segs->size());
  }
  // Asks for the next of `parts` equal shares of the lines (segment by segment, in order).
  void pump(int64_t parts) {
    int64_t n = std::min(total_ - asked_, (total_ + parts - 1) / parts);
    asked_ += n;
    while (n > 0) {
      const PassSeg& sg = (*p_.segs)[seg_];
      const char* S = reinterpret_cast<const char*>(sg.state->wkv(l_) + h_ * p_.N * p_.N);
      const int64_t k = std::min(n, per_ - line_);
      for (int64_t i = line_; i < line_ + k; ++i) __builtin_prefetch(S + 64 * i, 1, 2);
      n -= k, line_ += k;
      if (line_ == per_) ++seg_, line_ = 0;
    }
  }
  void rest() { pump(1); }

 private:
  const Pass& p_;
  int64_t l_, h_, per_, total_ = 0, asked_ = 0;
  size_t seg_ = 0;    // segment being asked for
  int64_t line_ = 0;  // its next line
};

// Everything of time mix that is per head, for head h over the T rows (docs/model.md "Time
// mix", "WKV-7"): the LoRA up-projections of the head's channels with their activations,
// kk and the key update, the value residual, the WKV scan, GroupNorm, bonus and gate. Between
// its steps `pump` asks for a later head's states: a share after each LoRA up-projection and
// each segment's scan, the rest at the end.
void head_step(const Pass& p, const LayerWeights& w, int64_t l, int64_t h, StatePump& pump) {
  Workspace& s = p.ws;
  const cpu::KernelTable& k = p.kt;
  const int64_t N = p.N, C = p.C, c0 = h * N, c1 = c0 + N;
  const int64_t shares = 4 + static_cast<int64_t>(p.segs->size());
  // w = exp(-0.606531 * sigmoid(w0 + tanh(xw @ w1) @ w2))
  lora_up(p, w.w2, s.hw, s.w, c0, c1);
  pump.pump(shares);
  each_row(p, s.w, C, c0, c1, [&](float* y, int64_t n) {
    k.add(y, w.w0 + c0, y, n);
    k.decay(y, y, n);
  });
  // a = sigmoid(a0 + (xa @ a1) @ a2)
  lora_up(p, w.a2, s.ha, s.a, c0, c1);
  pump.pump(shares);
  each_row(p, s.a, C, c0, c1, [&](float* y, int64_t n) {
    k.add(y, w.a0 + c0, y, n);
    k.sigmoid(y, y, n);
  });
  lora_up(p, w.g2, s.hg, s.g, c0, c1);  // g = sigmoid(xg @ g1) @ g2
  pump.pump(shares);
  if (l == 0) {  // v_first = v
    for (int64_t t = 0; t < p.T; ++t) {
      std::memcpy(s.v_first + t * C + c0, s.v + t * C + c0, static_cast<size_t>(N) * sizeof(float));
    }
  } else {  // v += (v_first - v) * sigmoid(v0 + (xv @ v1) @ v2)
    lora_up(p, w.v2, s.hv, s.tmp, c0, c1);
    pump.pump(shares);
    for (int64_t t = 0; t < p.T; ++t) {
      float* gate = s.tmp + t * C + c0;
      k.add(gate, w.v0 + c0, gate, N);
      k.sigmoid(gate, gate, N);
      float* v = s.v + t * C + c0;
      const float* vf = s.v_first + t * C + c0;
      for (int64_t i = 0; i < N; ++i) v[i] += (vf[i] - v[i]) * gate[i];
    }
  }
  // kk = normalize(k * k_k); k *= 1 + (a - 1) * k_a; WKV arguments b = kk * a, a_arg = -kk.
  for (int64_t t = 0; t < p.T; ++t) {
    const int64_t o = t * C + c0;
    float *kk = s.kk + o, *kt = s.k + o, *b = s.b + o;
    const float* a = s.a + o;
    k.mul(kt, w.k_k + c0, kk, N);
    const float inv = 1.0f / std::max(std::sqrt(k.dot(kk, kk, N)), kL2Eps);
    for (int64_t j = 0; j < N; ++j) {
      kk[j] *= inv;
      kt[j] = kt[j] * (1.0f + (a[j] - 1.0f) * w.k_a[c0 + j]);
      b[j] = kk[j] * a[j];
      kk[j] = -kk[j];
    }
  }
  for (const PassSeg& sg : *p.segs) {  // the sequential part: per segment, its rows in order
    const int64_t o = sg.row0 * C;
    cpu::Wkv7Args wa;
    wa.state = sg.state->wkv(l), wa.r = s.r + o, wa.w = s.w + o, wa.k = s.k + o;
    wa.v = s.v + o, wa.a = s.kk + o, wa.b = s.b + o, wa.y = s.y + o;
    wa.T = sg.rows, wa.C = C, wa.N = N, wa.head_begin = h, wa.head_end = h + 1;
    k.wkv7(wa);
    pump.pump(shares);
  }
  for (int64_t t = 0; t < p.T; ++t) {
    const int64_t o = t * C + c0;
    cpu::NormArgs na;  // GroupNorm of this head (eps 64e-5) and the ln_x affine of its channels
    na.x = s.y + o, na.y = s.y + o, na.weight = w.ln_x_w + c0, na.bias = w.ln_x_b + c0;
    na.rows = 1, na.n = N, na.group_size = 0, na.eps = kGnEps;
    k.norm(na);
    float sum = 0.0f;  // bonus: y += (sum_j r[j] * k[j] * r_k[h][j]) * v
    for (int64_t j = 0; j < N; ++j) sum += s.r[o + j] * s.k[o + j] * w.r_k[c0 + j];
    for (int64_t i = 0; i < N; ++i) s.y[o + i] += sum * s.v[o + i];
    k.mul(s.y + o, s.g + o, s.y + o, N);  // y * g
  }
  pump.rest();
}

// Time-mix of block l on the T rows of ws.x (docs/model.md "Time mix"): three passes.
void time_mix(const Pass& p, const LayerWeights& w, int64_t l) {
  Workspace& s = p.ws;
  const cpu::KernelTable& k = p.kt;
  // xn = layer_norm(x, ln1), xx = x_prev - xn, xr = xn + xx * x_r, and so on.
  shift_mix(
      p, w.ln1_w, w.ln1_b, [l](State& st) { return st.att_shift(l); },
      {{w.x_r, s.xr}, {w.x_w, s.xw}, {w.x_k, s.xk}, {w.x_v, s.xv}, {w.x_a, s.xa}, {w.x_g, s.xg}});
  // Pass 1: r, k, v and the LoRA down-projections with their activations.
  std::vector<MatJob> jobs = {
      {&w.receptance, s.xr, s.r, nullptr},
      {&w.key, s.xk, s.k, nullptr},
      {&w.value, s.xv, s.v, nullptr},
      {&w.w1, s.xw, s.hw,
       [&](int64_t r0, int64_t r1) {
         each_row(p, s.hw, w.w1.rows, r0, r1, [&](float* y, int64_t n) { k.tanh(y, y, n); });
       }},
      {&w.a1, s.xa, s.ha, nullptr},
      {&w.g1, s.xg, s.hg,
       [&](int64_t r0, int64_t r1) {
         each_row(p, s.hg, w.g1.rows, r0, r1, [&](float* y, int64_t n) { k.sigmoid(y, y, n); });
       }},
  };
  if (l > 0) jobs.push_back({&w.v1, s.xv, s.hv, nullptr});
  run_pass(p, jobs);
  // Pass 2: per head, LoRA up-projections, keys, value residual, WKV, GroupNorm, bonus, gate.
  const double lora = static_cast<double>(w.w2.cols + w.a2.cols + w.g2.cols + w.v2.cols);
  const double head_macs = static_cast<double>(p.T) * (static_cast<double>(p.C) * lora +
                                                       4.0 * static_cast<double>(p.H * p.N * p.N));
  run_items(p, head_macs, p.H, [&](int64_t begin, int64_t end) {
    for (int64_t h = begin; h < end; ++h) {
      // Heads 0 to 2 first, then each head asks for the LoRA slices of the one two ahead and,
      // while it runs, for that head's states (the next tasks run on the same thread: the
      // static partition gives each thread a run of heads).
      if (h == 0) {
        prefetch_lora_slices(p, w, 0, std::min(p.H, int64_t{3}));
        for (int64_t a = 0; a < std::min(p.H, int64_t{3}); ++a) StatePump(p, l, a).rest();
      } else {
        prefetch_lora_slices(p, w, std::min(p.H, h + 2), std::min(p.H, h + 3));
      }
      StatePump pump(p, l, h == 0 ? -1 : h + 2);
      head_step(p, w, l, h, pump);
    }
  });
  // Pass 3: x = x + (y * g) @ Wo.T
  run_pass(p, {{&w.output, s.y, s.tmp, [&](int64_t r0, int64_t r1) {
                  for (int64_t t = 0; t < p.T; ++t) {
                    const int64_t o = t * p.C + r0;
                    k.add(s.x + o, s.tmp + o, s.x + o, r1 - r0);
                  }
                }}});
}

// Channel-mix of block l (docs/model.md "Channel mix"; rwkv7_ref.py _channel_mix): two passes.
void channel_mix(const Pass& p, const LayerWeights& w, int64_t l) {
  Workspace& s = p.ws;
  const cpu::KernelTable& k = p.kt;
  // xn2 = layer_norm(x, ln2), kx = xn2 + (x_prev2 - xn2) * ffn_x_k
  shift_mix(p, w.ln2_w, w.ln2_b, [l](State& st) { return st.ffn_shift(l); }, {{w.ffn_x_k, s.xk}});
  const int64_t F = w.ffn_key.rows;
  run_pass(p, {{&w.ffn_key, s.xk, s.h, [&](int64_t r0, int64_t r1) {  // h = relu(kx @ K.T)^2
                  each_row(p, s.h, F, r0, r1, [&](float* y, int64_t n) { k.relu_sq(y, y, n); });
                }}});
  run_pass(p, {{&w.ffn_value, s.h, s.tmp, [&](int64_t r0, int64_t r1) {  // x += h @ V.T
                  for (int64_t t = 0; t < p.T; ++t) {
                    const int64_t o = t * p.C + r0;
                    k.add(s.x + o, s.tmp + o, s.x + o, r1 - r0);
                  }
                }}});
}

// A segment's rows in one pass: tokens [begin, begin + rows) of batch segment `seg`.
struct PassItem {
  size_t seg;
  size_t begin, rows;
};

// Logits of the rows asked for: each item's last row, or all its rows with all_logits. The
// asked rows are normed into ws.xn side by side and go through one head product; the result is
// written in place when the destinations follow each other in memory (one item, or a caller
// that laid its segments' logits out back to back, as option scoring and bench_batch do), else
// into ws.logits and copied out per item.
void pass_logits(const Pass& p, const std::vector<BatchSegment>& segs,
                 const std::vector<PassItem>& items) {
  const int64_t C = p.C, V = p.m.config().vocab;
  std::vector<std::pair<float*, int64_t>> outs;  // (destination, rows) per asking item
  int64_t R = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const BatchSegment& sg = segs[items[i].seg];
    const PassItem& it = items[i];
    if (sg.logits == nullptr) continue;
    const int64_t row0 = (*p.segs)[i].row0, rows = static_cast<int64_t>(it.rows);
    if (sg.all_logits) {
      std::memcpy(p.ws.tmp + R * C, p.ws.x + row0 * C, sizeof(float) * rows * C);
      outs.emplace_back(sg.logits + it.begin * static_cast<size_t>(V), rows);
      R += rows;
    } else if (it.begin + it.rows == sg.n) {
      std::memcpy(p.ws.tmp + R * C, p.ws.x + (row0 + rows - 1) * C, sizeof(float) * C);
      outs.emplace_back(sg.logits, 1);
      R += 1;
    }
  }
  if (R == 0) return;
  Pass out = p;
  out.T = R;
  const GlobalWeights& g = p.m.global();
  norm_rows(out, p.ws.tmp, p.ws.xn, g.ln_out_w, g.ln_out_b, kLnEps, 0, R);  // layer_norm(x, ln_out)
  bool back_to_back = true;
  for (size_t i = 1; i < outs.size(); ++i) {
    back_to_back = back_to_back && outs[i].first == outs[i - 1].first + outs[i - 1].second * V;
  }
  if (back_to_back) {
    run_pass(out, {{&g.head, p.ws.xn, outs[0].first, nullptr}});  // @ head.T
    return;
  }
  p.ws.logits.resize(static_cast<size_t>(R * V));
  run_pass(out, {{&g.head, p.ws.xn, p.ws.logits.data(), nullptr}});
  const float* src = p.ws.logits.data();
  for (const auto& [dst, rows] : outs) {
    std::memcpy(dst, src, sizeof(float) * static_cast<size_t>(rows * V));
    src += rows * V;
  }
}

// One pass over the items' rows (at most `chunk` in total); writes the logits asked for.
void forward_pass(const Model& m, const std::vector<BatchSegment>& segs,
                  const std::vector<PassItem>& items, Workspace& ws) {
  const ModelConfig& c = m.config();
  std::vector<PassSeg> ps;
  int64_t T = 0;
  for (const PassItem& it : items) {
    const BatchSegment& sg = segs[it.seg];
    for (size_t t = 0; t < it.rows; ++t) {  // layer_norm(emb, ln0)
      m.embed(sg.tokens[it.begin + t], ws.x + (T + static_cast<int64_t>(t)) * c.n_embd);
    }
    ps.push_back({sg.state, T, static_cast<int64_t>(it.rows)});
    T += static_cast<int64_t>(it.rows);
  }
  Pass p{m, m.kernels(), ws, T, c.n_embd, c.head_size, c.n_head, &ps};
  for (int64_t l = 0; l < c.n_layer; ++l) {
    time_mix(p, m.layer(l), l);
    channel_mix(p, m.layer(l), l);
  }
  pass_logits(p, segs, items);
}

void check_tokens(const Model& m, const uint32_t* tokens, size_t n) {
  if (tokens == nullptr || n == 0) throw InvalidArgument("forward: empty token list");
  const uint64_t V = static_cast<uint64_t>(m.config().vocab);
  for (size_t i = 0; i < n; ++i) {
    if (tokens[i] >= V) {
      throw InvalidArgument("forward: token id " + std::to_string(tokens[i]) + " at position " +
                            std::to_string(i) + " is out of range (vocab size " +
                            std::to_string(V) + ")");
    }
  }
}

// Everything checked before any State is touched (the header lists the errors).
void check_batch(const Model& m, const std::vector<BatchSegment>& segs) {
  if (segs.empty()) throw InvalidArgument("forward_batch: empty segment list");
  const uint64_t V = static_cast<uint64_t>(m.config().vocab);
  for (size_t s = 0; s < segs.size(); ++s) {
    const BatchSegment& sg = segs[s];
    const std::string where = "forward_batch: segment " + std::to_string(s);
    if (sg.state == nullptr) throw InvalidArgument(where + ": null state");
    if (sg.tokens == nullptr || sg.n == 0) throw InvalidArgument(where + ": empty token list");
    try {
      sg.state->check_model(m);
    } catch (const MismatchError& e) {
      throw MismatchError(where + ": " + e.what());
    }
    for (size_t j = 0; j < s; ++j) {
      if (segs[j].state == sg.state) {
        throw InvalidArgument(where + ": the same state as segment " + std::to_string(j));
      }
    }
    for (size_t i = 0; i < sg.n; ++i) {
      if (sg.tokens[i] >= V) {
        throw InvalidArgument(where + ": token id " + std::to_string(sg.tokens[i]) +
                              " at position " + std::to_string(i) +
                              " is out of range (vocab size " + std::to_string(V) + ")");
      }
    }
  }
}

// The next pass: up to `chunk` rows, taken from the segments in order, each continuing where
// the previous pass left it (done[s] tokens fed so far).
std::vector<PassItem> next_pass(const std::vector<BatchSegment>& segs, std::vector<size_t>& done,
                                size_t chunk) {
  std::vector<PassItem> items;
  size_t used = 0;
  for (size_t s = 0; s < segs.size() && used < chunk; ++s) {
    const size_t rows = std::min(segs[s].n - done[s], chunk - used);
    if (rows == 0) continue;
    items.push_back({s, done[s], rows});
    done[s] += rows;
    used += rows;
  }
  return items;
}

}  // namespace

void forward_batch(const Model& model, const std::vector<BatchSegment>& segments,
                   const ForwardOptions& options) {
  check_batch(model, segments);
  const size_t chunk = options.chunk == 0 ? kDefaultChunk : options.chunk;
  size_t total = 0;
  for (const BatchSegment& sg : segments) total += sg.n;
  Workspace ws(static_cast<int64_t>(std::min(total, chunk)), model.config());
  // The one place the activation type is resolved: the call's option or the Model's load
  // choice (ModelParams::fp32_activations), so every forward path on such a Model is exact.
  ws.fp32_act = options.fp32_activations || model.fp32_activations();
  std::vector<size_t> done(segments.size(), 0);
  model.execute([&] {
    for (size_t fed = 0; fed < total;) {
      const std::vector<PassItem> items = next_pass(segments, done, chunk);
      forward_pass(model, segments, items, ws);
      for (const PassItem& it : items) fed += it.rows;
    }
  });
}

void forward(const Model& model, State& state, const uint32_t* tokens, size_t n, float* logits,
             const ForwardOptions& options) {
  check_tokens(model, tokens, n);  // the single-State messages, without a segment index
  state.check_model(model);
  forward_batch(model, {{&state, tokens, n, logits, options.all_logits}}, options);
}

std::vector<WeightSpan> decode_weight_spans(const Model& model) {
  std::vector<WeightSpan> spans;
  auto add = [&](const Mat& w) {
    spans.push_back({w.data, w.row_bytes * static_cast<size_t>(w.rows)});
  };
  add(model.global().head);
  const TensorView& e = *model.global().emb;
  spans.push_back({e.data, e.nbytes / static_cast<size_t>(model.config().vocab)});
  for (int64_t l = 0; l < model.config().n_layer; ++l) {
    const LayerWeights& w = model.layer(l);
    for (const Mat* m : {&w.w1, &w.w2, &w.a1, &w.a2, &w.v1, &w.v2, &w.g1, &w.g2, &w.receptance,
                         &w.key, &w.value, &w.output, &w.ffn_key, &w.ffn_value}) {
      add(*m);
    }
  }
  return spans;
}

size_t decode_weight_bytes(const Model& model) {
  size_t total = 0;
  for (const WeightSpan& s : decode_weight_spans(model)) total += s.bytes;
  return total;
}

}  // namespace ai00::internal