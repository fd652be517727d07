// Model loading: weights -> config -> per-layer weight structs -> kernels -> arena.
#include "core/model/model.h"

#include <sys/mman.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/dequant.h"
#include "base/error.h"
#include "base/limits.h"
#include "core/model/thread_pool.h"
#include "core/tokenizer/tokenizer.h"

namespace ai00::internal {
namespace {

// Fingerprint: every config field, then the fp32 values of the first and last embedding rows
// and of ln_out, so two models with the same shapes but other weights differ, while the same
// weights stored in another format (FP32 .bin, F16 .st, ...) keep their States compatible.
uint64_t compute_fingerprint(const ModelConfig& c, const GlobalWeights& g) {
  int64_t fields[] = {c.n_embd, c.n_layer, c.head_size, c.n_head, c.ffn_size,
                      c.vocab,  c.d_w,     c.d_a,       c.d_v,    c.d_g};
  uint64_t h = fnv1a64(fields, sizeof(fields));
  const TensorView& e = *g.emb;
  const size_t C = static_cast<size_t>(c.n_embd);
  const size_t row_bytes = dtype_row_bytes(e.dtype, c.n_embd);
  std::vector<float> row(C);
  for (int64_t r : {int64_t{0}, c.vocab - 1}) {
    dequantize_row(e.dtype, e.data + row_bytes * static_cast<size_t>(r), c.n_embd, row.data());
    h = fnv1a64(row.data(), C * sizeof(float), h);
  }
  h = fnv1a64(g.ln_out_w, C * sizeof(float), h);
  return h;
}

const cpu::KernelTable* choose_kernels(const std::string& forced_param) {
  std::string forced = forced_param;
  if (forced.empty()) {
    if (const char* env = std::getenv("AI00_FORCE_ISA")) forced = env;
  }
  std::string err;
  const cpu::KernelTable* k = cpu::select_kernels(forced, &err);
  if (k) return k;
  // select_kernels' message already names the ISA; only the error kind is decided here.
  if (err.empty()) err = "cannot use ISA '" + forced + "'";
  size_t n = 0;
  const cpu::KernelTable* const* all = cpu::all_kernel_tables(&n);
  for (size_t i = 0; i < n; ++i) {
    if (forced == all[i]->name) throw UnsupportedError(err);  // compiled in, CPU lacks it
  }
  throw InvalidArgument(err);
}

}  // namespace

Model::~Model() = default;

std::shared_ptr<const Model> Model::load(const std::string& path, const ModelParams& params) {
  if (params.n_threads < 1) {
    throw InvalidArgument("ModelParams.n_threads must be >= 1, got " +
                          std::to_string(params.n_threads));
  }
  if (uint32_t max = limits().max_threads; static_cast<uint64_t>(params.n_threads) > max)
    throw_limit(ErrorKind::invalid_argument, "ModelParams.n_threads",
                std::to_string(params.n_threads) + " threads", "max_threads", max);
  std::shared_ptr<Model> m(new Model());
  m->kernels_ = choose_kernels(params.forced_isa);
  m->weights_ = open_weights(path);
  uint64_t total = 0;  // progress units: bytes of tensor data
  for (const TensorView& t : m->weights_->tensors()) total += t.nbytes;
  if (params.progress) params.progress(0, total);
  m->config_ = derive_config(*m->weights_);
  m->bind_weights();
  m->fingerprint_ = compute_fingerprint(m->config_, m->global_);
  if (params.progress) m->read_pages(params.progress, total);
  if (params.pack_weights) m->pack_weights();  // after the fingerprint: it hashes stored bytes
  m->attach_tokenizer(path, params.vocab_path);
  m->n_threads_ = params.n_threads;
  m->fp32_activations_ = params.fp32_activations;
#ifdef AI00_STD_THREAD_POOL
  if (params.n_threads > 1) m->pool_ = std::make_shared<ThreadPool>(params.n_threads - 1);
#else
  if (params.n_threads > 1) {
    // One slot is reserved for the calling thread, which joins the work in execute().
    m->arena_ = std::make_unique<tbb::task_arena>(params.n_threads, 1);
  }
#endif
  // The last report comes once nothing can fail any more, so (total, total) means "loaded".
  if (params.progress) params.progress(total, total);
  return m;
}

// Reads one byte per page of every tensor, in file order, reporting after each chunk of at
// most kChunk bytes (so a 1 GiB head matrix still moves the bar). The final (total, total) is
// left to load(); reports here stop short of it.
void Model::read_pages(const std::function<void(uint64_t, uint64_t)>& progress,
                       uint64_t total) const {
  constexpr size_t kPage = 4096, kChunk = size_t{16} << 20;
  uint64_t done = 0;
  volatile uint8_t sink = 0;  // keeps the reads from being optimised away
  for (const TensorView& t : weights_->tensors()) {
    for (size_t begin = 0; begin < t.nbytes; begin += kChunk) {
      const size_t end = std::min(t.nbytes, begin + kChunk);
      uint8_t acc = 0;
      for (size_t i = begin; i < end; i += kPage) acc ^= t.data[i];
      acc ^= t.data[end - 1];
      sink = sink ^ acc;
      done += end - begin;
      if (done < total) progress(done, total);
    }
  }
}

// The tokenizer, first found wins: the GGUF vocabulary, ModelParams::vocab_path, the World vocab
// file beside the model, a byte-level vocabulary for a 256-token model; else none.
void Model::attach_tokenizer(const std::string& model_path, const std::string& vocab_path) {
  std::string source;
  if (!weights_->gguf_tokens.empty()) {
    tokenizer_ = Tokenizer::from_gguf(weights_->gguf_tokens, weights_->gguf_token_types,
                                      weights_->path, weights_->gguf_token_offsets);
    source = model_path + " (tokenizer.ggml.tokens)";
  } else if (!vocab_path.empty()) {
    tokenizer_ = Tokenizer::from_vocab_file(vocab_path);
    source = vocab_path;
  } else {
    const size_t slash = model_path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "" : model_path.substr(0, slash + 1);
    const std::string beside = dir + "rwkv_vocab_v20230424.txt";
    if (std::FILE* f = std::fopen(beside.c_str(), "rb")) {
      std::fclose(f);
      tokenizer_ = Tokenizer::from_vocab_file(beside);
      source = beside;
    } else if (config_.vocab == 256) {
      tokenizer_ = Tokenizer::byte_level(256);
    }
  }
  if (tokenizer_ && static_cast<int64_t>(tokenizer_->vocab_size()) > config_.vocab) {
    throw MismatchError(source + ": vocabulary of " + std::to_string(tokenizer_->vocab_size()) +
                        " tokens does not fit the model's " + std::to_string(config_.vocab) +
                        " embedding rows");
  }
}

// Converts a small float tensor (vector or r_k) of exactly n elements to an owned fp32 copy.
const float* Model::vec_f32(const std::string& name, int64_t n) {
  const TensorView& t = weights_->get(name);
  if (t.numel() != n) {
    throw ModelFileError(weights_->path + ": tensor " + name + " has shape " + t.shape_string() +
                         ", expected " + std::to_string(n) + " elements");
  }
  if (t.dtype != DType::F32 && t.dtype != DType::F16 && t.dtype != DType::BF16) {
    throw ModelFileError(weights_->path + ": tensor " + name + " has dtype " + dtype_name(t.dtype) +
                         ", expected F32, F16 or BF16");
  }
  auto store = std::make_unique<std::vector<float>>(static_cast<size_t>(n));
  dequantize_row(t.dtype, t.data, n, store->data());
  const float* p = store->data();
  f32_store_.push_back(std::move(store));
  return p;
}

Mat Model::mat(const std::string& name, int64_t rows, int64_t cols) const {
  const TensorView& t = weights_->get(name);
  if (t.shape.size() != 2 || t.shape[0] != rows || t.shape[1] != cols) {
    throw ModelFileError(weights_->path + ": tensor " + name + " has shape " + t.shape_string() +
                         ", expected (" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  }
  Mat m;
  m.data = t.data;
  m.type = t.dtype;
  m.rows = rows;
  m.cols = cols;
  m.row_bytes = dtype_row_bytes(t.dtype, cols);
  if (m.row_bytes * static_cast<size_t>(rows) > t.nbytes) {
    throw ModelFileError(weights_->path + ": tensor " + name + " holds " +
                         std::to_string(t.nbytes) + " bytes, shape " + t.shape_string() +
                         " needs " + std::to_string(m.row_bytes * rows));
  }
  return m;
}

void Model::bind_weights() {
  const ModelConfig& c = config_;
  const int64_t C = c.n_embd, F = c.ffn_size, V = c.vocab;
  global_.emb = &weights_->get("emb.weight");
  mat("emb.weight", V, C);  // shape and size check only; rows are dequantized in embed()
  global_.ln0_w = vec_f32("blocks.0.ln0.weight", C);
  global_.ln0_b = vec_f32("blocks.0.ln0.bias", C);
  global_.ln_out_w = vec_f32("ln_out.weight", C);
  global_.ln_out_b = vec_f32("ln_out.bias", C);
  global_.head = mat("head.weight", V, C);
  layers_.resize(static_cast<size_t>(c.n_layer));
  for (int64_t l = 0; l < c.n_layer; ++l) {
    LayerWeights& w = layers_[static_cast<size_t>(l)];
    auto v = [&](const char* s) { return vec_f32(block_tensor(l, s), C); };
    auto m = [&](const char* s, int64_t r, int64_t k) { return mat(block_tensor(l, s), r, k); };
    w.ln1_w = v("ln1.weight"), w.ln1_b = v("ln1.bias");
    w.ln2_w = v("ln2.weight"), w.ln2_b = v("ln2.bias");
    w.x_r = v("att.x_r"), w.x_w = v("att.x_w"), w.x_k = v("att.x_k");
    w.x_v = v("att.x_v"), w.x_a = v("att.x_a"), w.x_g = v("att.x_g");
    w.w0 = v("att.w0"), w.a0 = v("att.a0");
    w.k_k = v("att.k_k"), w.k_a = v("att.k_a"), w.r_k = v("att.r_k");
    w.ln_x_w = v("att.ln_x.weight"), w.ln_x_b = v("att.ln_x.bias");
    w.ffn_x_k = v("ffn.x_k");
    w.w1 = m("att.w1", c.d_w, C), w.w2 = m("att.w2", C, c.d_w);
    w.a1 = m("att.a1", c.d_a, C), w.a2 = m("att.a2", C, c.d_a);
    w.g1 = m("att.g1", c.d_g, C), w.g2 = m("att.g2", C, c.d_g);
    if (l > 0) {  // block 0 has no value residual (docs/model.md "Block 0")
      w.v0 = v("att.v0");
      w.v1 = m("att.v1", c.d_v, C), w.v2 = m("att.v2", C, c.d_v);
    }
    w.receptance = m("att.receptance.weight", C, C);
    w.key = m("att.key.weight", C, C);
    w.value = m("att.value.weight", C, C);
    w.output = m("att.output.weight", C, C);
    w.ffn_key = m("ffn.key.weight", F, C);
    w.ffn_value = m("ffn.value.weight", C, F);
  }
}

namespace {

// Sets the protection of the pages holding [p, p + n).
bool protect_pages(const uint8_t* p, size_t n, int prot) {
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n + page - 1) / page * page;
  return ::mprotect(reinterpret_cast<void*>(begin), end - begin, prot) == 0;
}

}  // namespace

void transpose_blocks(const uint8_t* src, int64_t rows, int64_t cols, int64_t n, size_t es,
                      uint8_t* dst) {
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = src + static_cast<size_t>(r * cols) * es;
    uint8_t* block = dst + static_cast<size_t>((r / n) * cols * n + r % n) * es;
    for (int64_t c = 0; c < cols; ++c) {
      std::memcpy(block + static_cast<size_t>(c * n) * es, row + static_cast<size_t>(c) * es, es);
    }
  }
}

// Rearranges, in place, every matrix the forward multiplies through matmul_q8 (pass 1's
// projections and LoRA down-projections, the FFN, the head) into the table's packed layout
// (docs/dot-products.md "Packed weights in the model"), and transposes the F32/F16/BF16 LoRA
// up-projections w2/a2/g2/v2 head by head for matmul_t (Mat::t_block; docs/dot-products.md "LoRA
// up-projections"). A matrix in the read-only private file mapping gets its pages made writable
// for the change and read-only again after: copy-on-write turns exactly those pages into private
// anonymous pages of the same size (resident memory unchanged; the file's pages stay in the page
// cache, no longer mapped here). One that cannot be made writable stays as stored.
void Model::pack_weights() {
  const MappedFile* f = weights_->file.get();
  // Runs change(data) on m's bytes made writable; false when they cannot be.
  auto rewrite = [f](const Mat& m, const std::function<void(uint8_t*)>& change) {
    const size_t n = m.row_bytes * static_cast<size_t>(m.rows);
    const bool mapped = f != nullptr && f->is_mapped() && m.data >= f->data() &&
                        m.data + n <= f->data() + f->size();
    if (mapped && !protect_pages(m.data, n, PROT_READ | PROT_WRITE)) return false;
    change(const_cast<uint8_t*>(m.data));  // the mapping's private pages or owned bytes
    if (mapped) protect_pages(m.data, n, PROT_READ);
    return true;
  };
  const int64_t n = config_.head_size;
  std::map<const uint8_t*, int64_t> transposed;  // data -> t_block (a tensor is transposed once)
  for (LayerWeights& w : layers_) {
    for (Mat* m : {&w.w2, &w.a2, &w.g2, &w.v2}) {
      if (m->data == nullptr || !cpu::matmul_t_supports(m->type) || m->rows % n != 0) continue;
      if (auto it = transposed.find(m->data); it != transposed.end()) {
        m->t_block = it->second;
        continue;
      }
      const size_t es = dtype_row_bytes(m->type, 1);
      auto in_place = [&](uint8_t* d) {
        const std::vector<uint8_t> stored(d, d + m->row_bytes * static_cast<size_t>(m->rows));
        transpose_blocks(stored.data(), m->rows, m->cols, n, es, d);
      };
      if (rewrite(*m, in_place)) {
        m->t_block = n;
      }
      transposed[m->data] = m->t_block;
    }
  }
  const auto pack = kernels_->pack_q8;
  if (pack == nullptr) return;
  std::vector<Mat*> mats = {&global_.head};
  for (LayerWeights& w : layers_) {
    for (Mat* m : {&w.receptance, &w.key, &w.value, &w.output, &w.ffn_key, &w.ffn_value, &w.w1,
                   &w.a1, &w.g1, &w.v1}) {
      mats.push_back(m);
    }
  }
  std::map<const uint8_t*, int64_t> packed;  // data -> packed_rows (a tensor is packed once)
  for (Mat* m : mats) {
    if (m->data == nullptr || !cpu::matmul_q8_supports(m->type)) continue;
    if (auto it = packed.find(m->data); it != packed.end()) {
      m->packed_rows = it->second;
      continue;
    }
    rewrite(*m, [&](uint8_t* d) { m->packed_rows = pack(m->type, d, d, m->rows, m->cols); });
    packed[m->data] = m->packed_rows;
  }
}

void Model::embed(uint32_t token, float* out) const {
  const TensorView& e = *global_.emb;
  const int64_t C = config_.n_embd;
  size_t row_bytes = dtype_row_bytes(e.dtype, C);
  dequantize_row(e.dtype, e.data + row_bytes * token, C, out);
  cpu::NormArgs a;
  a.x = out, a.y = out, a.weight = global_.ln0_w, a.bias = global_.ln0_b;
  a.rows = 1, a.n = C, a.eps = 1e-5f;
  kernels_->norm(a);
}

void Model::execute(const std::function<void()>& f) const {
  if (arena_) {
    arena_->execute(f);
  } else {
    f();
  }
}

void Model::parallel_blocks(int64_t n, int64_t block,
                            const std::function<void(int64_t, int64_t)>& body) const {
  if (n <= 0) return;
  const int64_t n_blocks = (n + block - 1) / block;
  auto run = [&](int64_t b) { body(b * block, std::min(n, (b + 1) * block)); };
  if (pool_ && n_blocks > 1) {  // the ThreadSanitizer build's pool: the same fork-join
    fork_joins_.fetch_add(1, std::memory_order_relaxed);
    pool_->run(n_blocks, run);
    return;
  }
  if (!arena_ || n_blocks == 1) {
    body(0, n);
    return;
  }
  fork_joins_.fetch_add(1, std::memory_order_relaxed);
  tbb::parallel_for(
      tbb::blocked_range<int64_t>(0, n_blocks, 1),
      [&](const tbb::blocked_range<int64_t>& r) {
        body(r.begin() * block, std::min(n, r.end() * block));
      },
      tbb::static_partitioner());
}

}  // namespace ai00::internal