// PyTorch `.pth` loader (torch.save zip format, docs/weight-files.md "PyTorch .pth" and
// shared/models/README.md section 3): `<top>/data.pkl` is a pickled (ordered) dict of
// _rebuild_tensor_v2 calls whose storages live in `<top>/data/<key>`. Tensors are views into the
// mapped archive; only the LoRA matrices, stored (C, D) / (D, C), are transposed into owned
// storage by finalize_tensors.
#include <string>
#include <vector>

#include "core/weights/pickle.h"
#include "core/weights/weights_internal.h"
#include "core/weights/zip_reader.h"

namespace ai00::internal::weights_detail {

namespace {

bool storage_dtype(const std::string& type, DType* out) {
  if (type == "torch.BFloat16Storage")
    *out = DType::BF16;
  else if (type == "torch.HalfStorage")
    *out = DType::F16;
  else if (type == "torch.FloatStorage")
    *out = DType::F32;
  else
    return false;
  return true;
}

// Finds `<top>/data.pkl` (the top folder name is arbitrary); returns the entry and sets `top`.
const ZipEntry& find_pickle(const WeightFile& wf, const ZipArchive& zip, std::string* top) {
  for (const ZipEntry& e : zip.entries()) {
    const std::string& n = e.name;
    const size_t slash = n.find('/');
    if (slash != std::string::npos && n.compare(slash, std::string::npos, "/data.pkl") == 0) {
      *top = n.substr(0, slash + 1);
      return e;
    }
  }
  fail(wf.path, "", 0, "ZIP archive has no <name>/data.pkl: not a PyTorch checkpoint");
}

// Checks that the tensor is a row-major contiguous slice of its storage.
void check_layout(const WeightFile& wf, const std::string& name, const PickleTensor& p,
                  uint64_t where) {
  if (p.size.size() != p.stride.size())
    fail(wf.path, name, where, "size and stride differ in rank");
  int64_t expect = 1;
  for (size_t i = p.size.size(); i-- > 0;) {
    if (p.size[i] < 0) fail(wf.path, name, where, "negative dimension");
    if (p.size[i] != 1 && p.stride[i] != expect) {
      fail(wf.path, name, where,
           "non-contiguous tensor (stride " + shape_to_string(p.stride) + " for size " +
               shape_to_string(p.size) + ")");
    }
    if (!__builtin_mul_overflow(expect, p.size[i], &expect)) continue;
    fail(wf.path, name, where, "shape " + shape_to_string(p.size) + " overflows");
  }
}

TensorView make_view(const WeightFile& wf, const ZipArchive& zip, const std::string& top,
                     const std::string& name, const PickleTensor& p, uint64_t pkl_offset) {
  TensorView t;
  t.name = name;
  t.stored_name = name;
  if (!storage_dtype(p.storage_type, &t.dtype)) {
    fail(wf.path, name, pkl_offset,
         "unsupported storage type " + p.storage_type +
             " (supported: BFloat16Storage, HalfStorage, FloatStorage)");
  }
  const ZipEntry* e = zip.find(top + "data/" + p.storage_key);
  if (e == nullptr) {
    fail(wf.path, name, pkl_offset, "storage " + top + "data/" + p.storage_key + " is missing");
  }
  uint64_t data_offset = 0;
  const uint8_t* storage = zip.open(*e, &data_offset);
  check_layout(wf, name, p, data_offset);
  t.shape = p.size.empty() ? std::vector<int64_t>{1} : p.size;  // a 0-d tensor is one element
  const uint64_t es = static_cast<uint64_t>(dtype_block_bytes(t.dtype));
  const uint64_t nbytes = tensor_bytes(t.dtype, t.shape, wf.path, name, data_offset);
  uint64_t begin = 0, end = 0, storage_bytes = 0;
  if (p.offset < 0 || !checked_mul(static_cast<uint64_t>(p.offset), es, &begin) ||
      !checked_add(begin, nbytes, &end) ||
      !checked_mul(static_cast<uint64_t>(p.storage_numel), es, &storage_bytes) ||
      end > storage_bytes || storage_bytes > e->size) {
    fail(wf.path, name, data_offset,
         "elements [" + std::to_string(p.offset) + ", +" + std::to_string(t.numel()) +
             ") lie outside storage " + p.storage_key + " (" + std::to_string(e->size) + " bytes)");
  }
  t.data = storage + begin;
  t.nbytes = static_cast<size_t>(nbytes);
  t.file_offset = data_offset + begin;
  return t;
}

}  // namespace

void load_pth(WeightFile& wf) {
  const MappedFile& f = *wf.file;
  ZipArchive zip(f.data(), f.size(), wf.path);
  std::string top;
  const ZipEntry& pkl = find_pickle(wf, zip, &top);
  uint64_t pkl_offset = 0;
  const uint8_t* pkl_data = zip.open(pkl, &pkl_offset);
  auto entries =
      read_torch_state_dict(pkl_data, static_cast<size_t>(pkl.size), wf.path, pkl_offset);
  std::vector<TensorView> stored;
  for (const auto& kv : entries)
    stored.push_back(make_view(wf, zip, top, kv.first, kv.second, pkl_offset));
  finalize_tensors(wf, std::move(stored), LoraLayout::pytorch);
}

}  // namespace ai00::internal::weights_detail
