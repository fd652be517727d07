// WeightFile, dtype helpers, format detection and the canonicalisation shared by all loaders.
#include "core/weights/weights.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "base/error.h"
#include "base/strings.h"
#include "core/weights/weights_internal.h"

namespace ai00::internal {

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string TensorView::shape_string() const { return weights_detail::shape_to_string(shape); }

const char* weight_format_name(WeightFormat f) {
  switch (f) {
    case WeightFormat::rwkv_cpp_bin:
      return "rwkv.cpp";
    case WeightFormat::safetensors:
      return "safetensors";
    case WeightFormat::gguf:
      return "gguf";
    case WeightFormat::pytorch_pth:
      return "pth";
  }
  return "?";
}

const TensorView* WeightFile::find(const std::string& canonical_name) const {
  auto it = index_.find(canonical_name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorView& WeightFile::get(const std::string& canonical_name) const {
  const TensorView* t = find(canonical_name);
  if (t == nullptr) throw ModelFileError(path + ": missing tensor " + canonical_name);
  return *t;
}

void WeightFile::add(TensorView t) {
  if (index_.count(t.name) != 0) {
    weights_detail::fail(path, t.stored_name.empty() ? t.name : t.stored_name, t.file_offset,
                         "duplicate tensor (canonical name " + t.name + ")");
  }
  index_.emplace(t.name, tensors_.size());
  tensors_.push_back(std::move(t));
}

uint8_t* WeightFile::own(std::vector<uint8_t> bytes) {
  owned_.push_back(std::make_unique<std::vector<uint8_t>>(std::move(bytes)));
  return owned_.back()->data();
}

namespace weights_detail {

void fail(const std::string& path, const std::string& tensor, uint64_t offset,
          const std::string& what) {
  std::string m = path + ": ";
  if (!tensor.empty()) m += "tensor '" + tensor + "' at ";
  m += "byte offset " + std::to_string(offset) + ": " + what;
  throw ModelFileError(m);
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + ")";
}

uint64_t tensor_bytes(DType dtype, const std::vector<int64_t>& shape, const std::string& path,
                      const std::string& tensor, uint64_t offset) {
  if (shape.empty()) fail(path, tensor, offset, "tensor has no dimensions");
  uint64_t rows = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0) {
      fail(path, tensor, offset,
           "dimension " + std::to_string(i) + " of shape " + shape_to_string(shape) +
               " is not positive");
    }
    if (i + 1 < shape.size() && !checked_mul(rows, static_cast<uint64_t>(shape[i]), &rows)) {
      fail(path, tensor, offset, "shape " + shape_to_string(shape) + " overflows");
    }
  }
  const int64_t last = shape.back();
  const int64_t block = dtype_block_size(dtype);
  if (last % block != 0) {
    fail(path, tensor, offset,
         std::string("last dimension of shape ") + shape_to_string(shape) +
             " is not a multiple of the " + dtype_name(dtype) + " block size " +
             std::to_string(block));
  }
  uint64_t row = 0, total = 0;
  if (!checked_mul(static_cast<uint64_t>(last / block),
                   static_cast<uint64_t>(dtype_block_bytes(dtype)), &row) ||
      !checked_mul(rows, row, &total) || total > (uint64_t{1} << 62)) {
    fail(path, tensor, offset, "shape " + shape_to_string(shape) + " overflows");
  }
  return total;
}

void Reader::need(uint64_t n, const char* what) const {
  if (n > size_ - pos_) {
    fail(path_, tensor_, pos_,
         std::string("file truncated: ") + what + " needs " + std::to_string(n) + " bytes, only " +
             std::to_string(size_ - pos_) + " left");
  }
}

const uint8_t* Reader::bytes(uint64_t n, const char* what) {
  need(n, what);
  const uint8_t* p = base_ + pos_;
  pos_ += static_cast<size_t>(n);
  return p;
}

namespace {

bool is_float(DType t) { return t == DType::F32 || t == DType::F16 || t == DType::BF16; }

size_t elem_size(DType t) { return static_cast<size_t>(dtype_block_bytes(t)); }

// The six mixes of a fused x_rwkvag / time_mix_lerp_fused tensor become six (C) views.
void split_fused_mix(WeightFile& wf, const TensorView& t) {
  const int64_t c = t.shape.back();
  if (!is_float(t.dtype) || t.numel() != 6 * c) {
    fail(wf.path, t.stored_name, t.file_offset,
         std::string("fused token-shift mix must be 6*C floats, found ") + dtype_name(t.dtype) +
             " " + t.shape_string());
  }
  const std::string prefix = t.name.substr(0, t.name.size() - std::strlen("x_rwkvag"));
  static const char* kParts[6] = {"x_r", "x_w", "x_k", "x_v", "x_a", "x_g"};
  const size_t part = static_cast<size_t>(c) * elem_size(t.dtype);
  for (size_t i = 0; i < 6; ++i) {
    TensorView v = t;
    v.name = prefix + kParts[i];
    v.shape = {c};
    v.data = t.data + i * part;
    v.nbytes = part;
    v.file_offset = t.file_offset + i * part;
    wf.add(std::move(v));
  }
}

// Index of a LoRA matrix: returns 1 or 2 for blocks.N.att.{w,a,v,g}{1,2}, else 0.
int lora_kind(const std::string& name) {
  if (name.compare(0, 7, "blocks.") != 0) return 0;
  size_t dot = name.find('.', 7);
  if (dot == std::string::npos) return 0;
  std::string rest = name.substr(dot + 1);
  if (rest.size() != 6 || rest.compare(0, 4, "att.") != 0) return 0;
  if (std::strchr("wavg", rest[4]) == nullptr) return 0;
  return rest[5] == '1' ? 1 : rest[5] == '2' ? 2 : 0;
}

// Copies a 2-D float matrix transposed into storage owned by wf.
void transpose_into_owned(WeightFile& wf, TensorView& t) {
  if (!is_float(t.dtype)) {
    fail(wf.path, t.stored_name, t.file_offset,
         std::string("LoRA matrix in PyTorch orientation must be a float type to transpose, "
                     "found ") +
             dtype_name(t.dtype));
  }
  const size_t rows = static_cast<size_t>(t.shape[0]), cols = static_cast<size_t>(t.shape[1]);
  const size_t es = elem_size(t.dtype);
  std::vector<uint8_t> out(t.nbytes);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      std::memcpy(&out[(c * rows + r) * es], t.data + (r * cols + c) * es, es);
    }
  }
  t.data = wf.own(std::move(out));
  t.shape = {static_cast<int64_t>(cols), static_cast<int64_t>(rows)};
}

// Brings a LoRA matrix to Linear orientation: *1 is (D, C), *2 is (C, D).
void orient_lora(WeightFile& wf, TensorView& t, int kind, int64_t c, LoraLayout layout) {
  if (t.shape.size() != 2) return;  // derive_config reports the bad shape
  // Which dimension holds C in Linear orientation: the "in" (1) for *1, the "out" (0) for *2.
  const size_t c_dim = kind == 1 ? 1 : 0;
  bool transposed;
  if (layout == LoraLayout::pytorch) {
    transposed = true;
  } else {
    transposed = t.shape[c_dim] != c && t.shape[1 - c_dim] == c;
  }
  if (transposed) transpose_into_owned(wf, t);
}

bool is_block0_value_residual(const std::string& name) {
  return name == "blocks.0.att.v0" || name == "blocks.0.att.v1" || name == "blocks.0.att.v2";
}

}  // namespace

void finalize_tensors(WeightFile& wf, std::vector<TensorView> stored, LoraLayout layout) {
  int64_t c = 0;
  for (const TensorView& t : stored) {
    if (t.name == "emb.weight" && t.shape.size() == 2) c = t.shape[1];
  }
  for (TensorView& t : stored) {
    if (is_block0_value_residual(t.name)) continue;
    if (ends_with(t.name, ".att.x_rwkvag")) {
      split_fused_mix(wf, t);
      continue;
    }
    if (t.shape.size() >= 3 &&
        std::all_of(t.shape.begin(), t.shape.end() - 1, [](int64_t d) { return d == 1; })) {
      t.shape = {t.shape.back()};
    }
    if (int kind = lora_kind(t.name)) {
      if (c > 0 || layout == LoraLayout::pytorch) orient_lora(wf, t, kind, c, layout);
    }
    wf.add(std::move(t));
  }
}

}  // namespace weights_detail

std::unique_ptr<WeightFile> open_weights(const std::string& path) {
  return open_weights(MappedFile::open(path));
}

std::unique_ptr<WeightFile> open_weights(MappedFile file) {
  auto wf = std::make_unique<WeightFile>();
  wf->path = file.path();
  wf->file = std::make_shared<MappedFile>(std::move(file));
  const std::string& path = wf->path;
  const uint8_t* p = wf->file->data();
  const size_t n = wf->file->size();
  if (n < 8) {
    weights_detail::fail(
        path, "", n,
        "file truncated: " + std::to_string(n) + " bytes is too short for any weight format");
  }
  uint32_t magic32;
  uint64_t head64;
  std::memcpy(&magic32, p, 4);
  std::memcpy(&head64, p, 8);
  if (std::memcmp(p, "GGUF", 4) == 0) {
    wf->format = WeightFormat::gguf;
    weights_detail::load_gguf(*wf);
  } else if (magic32 == 0x67676d66u) {
    wf->format = WeightFormat::rwkv_cpp_bin;
    weights_detail::load_rwkv_cpp_bin(*wf);
  } else if (std::memcmp(p, "PK\x03\x04", 4) == 0 || std::memcmp(p, "PK\x05\x06", 4) == 0) {
    wf->format = WeightFormat::pytorch_pth;
    weights_detail::load_pth(*wf);
  } else if (n > 8 && p[8] == '{' && head64 >= 2 && head64 < (uint64_t{1} << 31)) {
    // safetensors: u64 header length then a JSON object (the loader checks the length).
    wf->format = WeightFormat::safetensors;
    weights_detail::load_safetensors(*wf);
  } else if (p[0] == 0x80 && p[1] >= 2 && p[1] <= 5) {
    weights_detail::fail(path, "", 0,
                         "legacy (non-ZIP) PyTorch serialization is not supported; re-save the "
                         "state dict with torch.save from PyTorch >= 1.6");
  } else {
    char hex[64];
    std::snprintf(hex, sizeof(hex), "%02x %02x %02x %02x %02x %02x %02x %02x", p[0], p[1], p[2],
                  p[3], p[4], p[5], p[6], p[7]);
    weights_detail::fail(path, "", 0,
                         std::string("unrecognised weight file (first bytes ") + hex +
                             "); expected GGUF, rwkv.cpp .bin, safetensors or PyTorch .pth");
  }
  return wf;
}

}  // namespace ai00::internal