// GGUF v2/v3 loader for llama.cpp's `rwkv7` architecture (docs/weight-files.md "GGUF"): header,
// key/value metadata, tensor infos, aligned data area. Tensor names are mapped to BlinkDL names,
// ggml `ne` (fastest first) is reversed into PyTorch order, the flattened r_k is reshaped to
// (H, N) with `rwkv7.wkv.head_size`, and the fused lerp and block-0 dummies are handled by
// finalize_tensors.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "base/strings.h"
#include "core/weights/weights_internal.h"

namespace ai00::internal::weights_detail {

namespace {

enum GgufType : uint32_t {
  kU8 = 0,
  kI8,
  kU16,
  kI16,
  kU32,
  kI32,
  kF32,
  kBool,
  kString,
  kArray,
  kU64,
  kI64,
  kF64
};

bool ggml_dtype(uint32_t id, DType* out) {
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
    case 6:
      *out = DType::Q5_0;
      return true;
    case 7:
      *out = DType::Q5_1;
      return true;
    case 8:
      *out = DType::Q8_0;
      return true;
    case 14:
      *out = DType::Q6_K;
      return true;
    case 30:
      *out = DType::BF16;
      return true;
    default:
      return false;
  }
}

size_t scalar_size(uint32_t type) {
  switch (type) {
    case kU8:
    case kI8:
    case kBool:
      return 1;
    case kU16:
    case kI16:
      return 2;
    case kU32:
    case kI32:
    case kF32:
      return 4;
    case kU64:
    case kI64:
    case kF64:
      return 8;
    default:
      return 0;
  }
}

std::string gguf_string(Reader& r) {
  const uint64_t len = r.u64("string length");
  return r.str(len, "string bytes");
}

// Reads one scalar of `type` and renders it as text; *as_int receives integer values.
std::string read_scalar(Reader& r, uint32_t type, int64_t* as_int) {
  char buf[64];
  int64_t i = 0;
  switch (type) {
    case kU8:
      i = r.u8("u8");
      break;
    case kI8:
      i = static_cast<int8_t>(r.u8("i8"));
      break;
    case kU16:
      i = r.u16("u16");
      break;
    case kI16:
      i = static_cast<int16_t>(r.u16("i16"));
      break;
    case kU32:
      i = r.u32("u32");
      break;
    case kI32:
      i = static_cast<int32_t>(r.u32("i32"));
      break;
    case kU64: {
      uint64_t u = r.u64("u64");
      if (as_int) *as_int = static_cast<int64_t>(u);
      return std::to_string(u);
    }
    case kI64:
      i = static_cast<int64_t>(r.u64("i64"));
      break;
    case kBool:
      return r.u8("bool") ? "true" : "false";
    case kF32: {
      uint32_t u = r.u32("f32");
      float f;
      std::memcpy(&f, &u, 4);
      std::snprintf(buf, sizeof(buf), "%.9g", f);
      return buf;
    }
    case kF64: {
      uint64_t u = r.u64("f64");
      double d;
      std::memcpy(&d, &u, 8);
      std::snprintf(buf, sizeof(buf), "%.17g", d);
      return buf;
    }
    case kString:
      return gguf_string(r);
    default:
      r.fail_here("unknown GGUF metadata value type " + std::to_string(type));
  }
  if (as_int) *as_int = i;
  return std::to_string(i);
}

// Arrays: the two tokenizer arrays are kept, every other array is skipped (bounds-checked).
void read_array(Reader& r, WeightFile& wf, const std::string& key) {
  const uint32_t elem = r.u32("array element type");
  const uint64_t count = r.u64("array length");
  if (elem == kArray) r.fail_here("nested GGUF arrays are not supported (key " + key + ")");
  const size_t es = scalar_size(elem);
  if (elem != kString && es == 0) {
    r.fail_here("unknown GGUF array element type " + std::to_string(elem) + " (key " + key + ")");
  }
  // Every element takes at least 1 byte (8 for a string length): reject absurd counts early.
  uint64_t min_bytes = 0;
  if (!checked_mul(count, elem == kString ? 8 : es, &min_bytes) || min_bytes > r.remaining()) {
    r.fail_here("array '" + key + "' of " + std::to_string(count) +
                " elements runs past the end of the file");
  }
  const bool tokens = key == "tokenizer.ggml.tokens" && elem == kString;
  const bool types = key == "tokenizer.ggml.token_type" && elem != kString;
  if (tokens) wf.gguf_tokens.reserve(count);
  if (types) wf.gguf_token_types.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    int64_t v = 0;
    if (tokens) wf.gguf_token_offsets.push_back(r.pos() + 8);  // after the u64 length
    std::string s = read_scalar(r, elem, &v);
    if (tokens) wf.gguf_tokens.push_back(std::move(s));
    if (types) wf.gguf_token_types.push_back(static_cast<int32_t>(v));
  }
}

void read_metadata(Reader& r, WeightFile& wf, uint64_t kv_count) {
  for (uint64_t i = 0; i < kv_count; ++i) {
    std::string key = gguf_string(r);
    const uint32_t type = r.u32("metadata value type");
    if (type == kArray) {
      read_array(r, wf, key);
    } else {
      wf.metadata[key] = read_scalar(r, type, nullptr);
    }
  }
}

const std::map<std::string, std::string>& block_names() {
  static const std::map<std::string, std::string> m = {
      {"attn_norm.weight", "ln1.weight"},
      {"attn_norm.bias", "ln1.bias"},
      {"attn_norm_2.weight", "ln2.weight"},
      {"attn_norm_2.bias", "ln2.bias"},
      {"time_mix_lerp_fused.weight", "att.x_rwkvag"},
      {"time_mix_w0.weight", "att.w0"},
      {"time_mix_w1.weight", "att.w1"},
      {"time_mix_w2.weight", "att.w2"},
      {"time_mix_a0.weight", "att.a0"},
      {"time_mix_a1.weight", "att.a1"},
      {"time_mix_a2.weight", "att.a2"},
      {"time_mix_v0.weight", "att.v0"},
      {"time_mix_v1.weight", "att.v1"},
      {"time_mix_v2.weight", "att.v2"},
      {"time_mix_g1.weight", "att.g1"},
      {"time_mix_g2.weight", "att.g2"},
      {"time_mix_k_k.weight", "att.k_k"},
      {"time_mix_k_a.weight", "att.k_a"},
      {"time_mix_r_k.weight", "att.r_k"},
      {"time_mix_receptance.weight", "att.receptance.weight"},
      {"time_mix_key.weight", "att.key.weight"},
      {"time_mix_value.weight", "att.value.weight"},
      {"time_mix_output.weight", "att.output.weight"},
      {"time_mix_ln.weight", "att.ln_x.weight"},
      {"time_mix_ln.bias", "att.ln_x.bias"},
      {"channel_mix_lerp_k.weight", "ffn.x_k"},
      {"channel_mix_key.weight", "ffn.key.weight"},
      {"channel_mix_value.weight", "ffn.value.weight"},
  };
  return m;
}

// GGUF name -> canonical name; "" when unknown.
std::string canonical_name(const std::string& g) {
  static const std::map<std::string, std::string> globals = {
      {"token_embd.weight", "emb.weight"},
      {"token_embd_norm.weight", "blocks.0.ln0.weight"},
      {"token_embd_norm.bias", "blocks.0.ln0.bias"},
      {"output_norm.weight", "ln_out.weight"},
      {"output_norm.bias", "ln_out.bias"},
      {"output.weight", "head.weight"},
  };
  auto it = globals.find(g);
  if (it != globals.end()) return it->second;
  if (g.compare(0, 4, "blk.") != 0) return "";
  size_t i = 4;
  while (i < g.size() && g[i] >= '0' && g[i] <= '9') ++i;
  if (i == 4 || i - 4 > 6 || i >= g.size() || g[i] != '.') return "";
  auto b = block_names().find(g.substr(i + 1));
  if (b == block_names().end()) return "";
  return "blocks." + std::to_string(std::stoll(g.substr(4, i - 4))) + "." + b->second;
}

struct Info {
  TensorView t;
  uint64_t offset = 0;  // relative to the data area
  uint64_t info_pos = 0;
};

Info read_tensor_info(Reader& r, uint64_t alignment) {
  Info in;
  in.info_pos = r.pos();
  r.set_tensor("");
  in.t.stored_name = gguf_string(r);
  r.set_tensor(in.t.stored_name);
  const uint32_t n_dims = r.u32("n_dims");
  if (n_dims < 1 || n_dims > 4)
    r.fail_at(in.info_pos, "n_dims " + std::to_string(n_dims) + " (expected 1..4)");
  std::vector<int64_t> ne;
  for (uint32_t d = 0; d < n_dims; ++d) {
    uint64_t n = r.u64("ne");
    if (n == 0 || n > (uint64_t{1} << 40))
      r.fail_at(in.info_pos, "dimension ne[" + std::to_string(d) + "] = " + std::to_string(n) +
                                 " is out of range");
    ne.push_back(static_cast<int64_t>(n));
  }
  in.t.shape.assign(ne.rbegin(), ne.rend());
  const uint32_t type = r.u32("ggml type");
  if (!ggml_dtype(type, &in.t.dtype)) {
    r.fail_at(in.info_pos, "unsupported ggml type " + std::to_string(type) +
                               " (supported: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q6_K)");
  }
  in.offset = r.u64("tensor data offset");
  if (in.offset % alignment != 0) {
    r.fail_at(in.info_pos, "data offset " + std::to_string(in.offset) +
                               " is not a multiple of the alignment " + std::to_string(alignment));
  }
  return in;
}

uint64_t alignment_of(const WeightFile& wf) {
  auto it = wf.metadata.find("general.alignment");
  if (it == wf.metadata.end()) return 32;
  uint64_t a = std::strtoull(it->second.c_str(), nullptr, 10);
  if (a == 0 || (a & (a - 1)) != 0 || a > 65536) {
    fail(wf.path, "", 0, "general.alignment " + it->second + " is not a power of two <= 65536");
  }
  return a;
}

// Places every tensor in the data area (bounds, overlaps) and maps its name.
void place_tensors(WeightFile& wf, std::vector<Info>& infos, uint64_t data_start) {
  const uint64_t data_size = wf.file->size() - data_start;
  for (Info& in : infos) {
    const uint64_t abs = data_start + in.offset;
    const uint64_t nbytes = tensor_bytes(in.t.dtype, in.t.shape, wf.path, in.t.stored_name, abs);
    uint64_t end = 0;
    if (!checked_add(in.offset, nbytes, &end) || end > data_size) {
      fail(wf.path, in.t.stored_name, abs,
           "data (" + std::to_string(nbytes) + " bytes at data offset " +
               std::to_string(in.offset) + ") runs past the end of the file (data area " +
               std::to_string(data_size) + " bytes)");
    }
    in.t.file_offset = abs;
    in.t.data = wf.file->data() + abs;
    in.t.nbytes = static_cast<size_t>(nbytes);
    in.t.name = canonical_name(in.t.stored_name);
    if (in.t.name.empty())
      fail(wf.path, in.t.stored_name, in.info_pos, "unknown rwkv7 tensor name");
  }
  std::vector<const Info*> order;
  for (const Info& in : infos) order.push_back(&in);
  std::sort(order.begin(), order.end(),
            [](const Info* a, const Info* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < order.size(); ++i) {
    if (order[i]->offset < order[i - 1]->offset + order[i - 1]->t.nbytes) {
      fail(wf.path, order[i]->t.stored_name, order[i]->t.file_offset,
           "data overlaps tensor '" + order[i - 1]->t.stored_name + "'");
    }
  }
}

// r_k is flattened to (C) by llama.cpp's converter: restore (H, N).
void reshape_r_k(WeightFile& wf, TensorView& t) {
  if (t.shape.size() != 1) return;
  auto it = wf.metadata.find("rwkv7.wkv.head_size");
  const int64_t n = it == wf.metadata.end() ? 0 : std::strtoll(it->second.c_str(), nullptr, 10);
  if (n <= 0 || t.shape[0] % n != 0) {
    fail(wf.path, t.stored_name, t.file_offset,
         "cannot reshape flattened r_k " + t.shape_string() +
             " to (H, N): rwkv7.wkv.head_size is missing or does not divide it");
  }
  t.shape = {t.shape[0] / n, n};
}

}  // namespace

void load_gguf(WeightFile& wf) {
  const MappedFile& f = *wf.file;
  Reader r(f.data(), f.size(), wf.path);
  r.bytes(4, "magic");
  const uint32_t version = r.u32("version");
  if (version != 2 && version != 3) {
    r.fail_at(4, "unsupported GGUF version " + std::to_string(version) + " (expected 3)");
  }
  const uint64_t tensor_count = r.u64("tensor_count");
  const uint64_t kv_count = r.u64("kv_count");
  // Each tensor info takes at least 24 bytes, each key/value at least 12.
  if (tensor_count > f.size() / 24 || kv_count > f.size() / 12) {
    r.fail_at(8, "tensor_count " + std::to_string(tensor_count) + " or kv_count " +
                     std::to_string(kv_count) + " is larger than the file can hold");
  }
  read_metadata(r, wf, kv_count);
  auto arch = wf.metadata.find("general.architecture");
  if (arch != wf.metadata.end() && arch->second != "rwkv7") {
    fail(wf.path, "", 0,
         "unsupported architecture '" + arch->second +
             "' (general.architecture); only RWKV-7 (rwkv7) is supported");
  }
  const uint64_t alignment = alignment_of(wf);
  std::vector<Info> infos;
  for (uint64_t i = 0; i < tensor_count; ++i) infos.push_back(read_tensor_info(r, alignment));
  const uint64_t data_start = (r.pos() + alignment - 1) / alignment * alignment;
  if (data_start > f.size()) fail(wf.path, "", r.pos(), "file truncated before the data area");
  place_tensors(wf, infos, data_start);
  std::vector<TensorView> stored;
  for (Info& in : infos) {
    if (ends_with(in.t.name, ".r_k")) {
      reshape_r_k(wf, in.t);
    }
    stored.push_back(std::move(in.t));
  }
  if (stored.empty()) fail(wf.path, "", 0, "GGUF file has no tensors");
  finalize_tensors(wf, std::move(stored), LoraLayout::detect);
}

}  // namespace ai00::internal::weights_detail
