// rwkv.cpp `.bin` loader (docs/weight-files.md "rwkv.cpp .bin"): a 24-byte header, then records
// `n_dims, name_len, type, ne[n_dims], name, data` until the end of the file, no padding.
// Names are BlinkDL's; x_rwkvag is fused; LoRAs are already in Linear orientation.
#include <set>

#include "core/weights/weights_internal.h"

namespace ai00::internal::weights_detail {

namespace {

constexpr uint32_t kBinMagic = 0x67676d66u;

// rwkv.cpp type ids (they differ from ggml's: Q5_0 is 7 here, 6 in ggml).
bool bin_dtype(uint32_t id, DType* out) {
  switch (id) {
    case 0:
      *out = DType::F32;
      return true;
    case 1:
      *out = DType::F16;
      return true;
    case 2:
      *out = DType::Q4_0;
      return true;
    case 3:
      *out = DType::Q4_1;
      return true;
    case 7:
      *out = DType::Q5_0;
      return true;
    case 8:
      *out = DType::Q5_1;
      return true;
    case 9:
      *out = DType::Q8_0;
      return true;
    default:
      return false;
  }
}


TensorView read_record(Reader& r, uint32_t version) {
  const uint64_t start = r.pos();
  r.set_tensor("");
  const uint32_t n_dims = r.u32("tensor record n_dims");
  const uint32_t name_len = r.u32("tensor record name_len");
  const uint32_t type = r.u32("tensor record type");
  if (n_dims < 1 || n_dims > 3) {
    r.fail_at(start, "tensor record has n_dims " + std::to_string(n_dims) + " (expected 1..3)");
  }
  if (name_len < 1 || name_len > 4096) {
    r.fail_at(start, "tensor record has name length " + std::to_string(name_len));
  }
  uint64_t ne[3] = {0, 0, 0};
  for (uint32_t i = 0; i < n_dims; ++i) ne[i] = r.u32("tensor record dimensions");
  TensorView t;
  t.stored_name = r.str(name_len, "tensor name");
  t.name = t.stored_name;
  r.set_tensor(t.stored_name);
  if (!bin_dtype(type, &t.dtype)) {
    r.fail_at(start, "unknown rwkv.cpp data type " + std::to_string(type) +
                         " (known: 0 FP32, 1 FP16, 2 Q4_0, 3 Q4_1, 7 Q5_0, 8 Q5_1, 9 Q8_0)");
  }
  if (dtype_is_quantized(t.dtype) && version < 101) {
    r.fail_at(start, std::string("quantized type ") + dtype_name(t.dtype) +
                         " in a version-100 file (old block layout; re-quantize with version 101)");
  }
  for (uint32_t i = n_dims; i-- > 0;) t.shape.push_back(static_cast<int64_t>(ne[i]));
  const uint64_t nbytes = tensor_bytes(t.dtype, t.shape, r.path(), t.stored_name, start);
  t.file_offset = r.pos();
  t.data = r.bytes(nbytes, "tensor data");
  t.nbytes = static_cast<size_t>(nbytes);
  return t;
}

}  // namespace

void load_rwkv_cpp_bin(WeightFile& wf) {
  const MappedFile& f = *wf.file;
  Reader r(f.data(), f.size(), wf.path);
  if (r.u32("magic") != kBinMagic) r.fail_at(0, "not an rwkv.cpp file (bad magic)");
  const uint32_t version = r.u32("version");
  if (version != 100 && version != 101) {
    r.fail_at(4, "unsupported rwkv.cpp file version " + std::to_string(version) +
                     " (expected 100 or 101)");
  }
  const uint32_t n_vocab = r.u32("n_vocab");
  const uint32_t n_embd = r.u32("n_embed");
  const uint32_t n_layer = r.u32("n_layer");
  const uint32_t data_type = r.u32("data_type");
  DType main_type;
  if (!bin_dtype(data_type, &main_type)) {
    r.fail_at(20, "unknown rwkv.cpp data type " + std::to_string(data_type) + " in header");
  }
  if (n_vocab == 0 || n_embd == 0 || n_layer == 0) {
    r.fail_at(8, "header has zero n_vocab, n_embed or n_layer");
  }
  std::vector<TensorView> stored;
  std::set<std::string> seen;
  while (r.remaining() > 0) {
    const uint64_t start = r.pos();
    TensorView t = read_record(r, version);
    if (!seen.insert(t.stored_name).second) r.fail_at(start, "duplicate tensor name");
    stored.push_back(std::move(t));
  }
  if (stored.empty()) r.fail_at(24, "file has no tensors");
  wf.metadata["rwkv_cpp.version"] = std::to_string(version);
  wf.metadata["rwkv_cpp.n_vocab"] = std::to_string(n_vocab);
  wf.metadata["rwkv_cpp.n_embed"] = std::to_string(n_embd);
  wf.metadata["rwkv_cpp.n_layer"] = std::to_string(n_layer);
  wf.metadata["rwkv_cpp.data_type"] = dtype_name(main_type);
  finalize_tensors(wf, std::move(stored), LoraLayout::detect);
}

}  // namespace ai00::internal::weights_detail
