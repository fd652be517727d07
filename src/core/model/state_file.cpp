// ai00 `.state` loader: a minimal, fully checked safetensors reader for the time_state tensors.
#include "core/model/state_file.h"

#include <simdjson.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "base/dequant.h"
#include "base/error.h"
#include "base/mapped_file.h"
#include "core/model/model.h"

namespace ai00::internal {
namespace {

struct Entry {
  std::string dtype;
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;
};

[[noreturn]] void fail(const std::string& name, uint64_t off, const std::string& what) {
  throw ModelFileError(name + ": byte offset " + std::to_string(off) + ": " + what);
}

// Parses one tensor entry of the JSON header; `hdr` is the header's file offset (8).
Entry parse_entry(const std::string& name, const std::string& key, simdjson::dom::element v) {
  Entry e;
  simdjson::dom::object o;
  std::string_view dt;
  simdjson::dom::array shape, offs;
  if (v.get_object().get(o) || o["dtype"].get_string().get(dt) ||
      o["shape"].get_array().get(shape) || o["data_offsets"].get_array().get(offs)) {
    fail(name, 8, "tensor '" + key + "': header entry needs dtype, shape and data_offsets");
  }
  e.dtype = std::string(dt);
  for (auto d : shape) {
    uint64_t x;
    if (d.get_uint64().get(x)) fail(name, 8, "tensor '" + key + "': bad shape value");
    e.shape.push_back(x);
  }
  std::vector<uint64_t> bo;
  for (auto d : offs) {
    uint64_t x;
    if (d.get_uint64().get(x)) fail(name, 8, "tensor '" + key + "': bad data_offsets value");
    bo.push_back(x);
  }
  if (bo.size() != 2 || bo[0] > bo[1]) fail(name, 8, "tensor '" + key + "': bad data_offsets");
  e.begin = bo[0], e.end = bo[1];
  return e;
}

std::map<std::string, Entry> parse_header(const uint8_t* bytes, size_t size,
                                          const std::string& name, uint64_t* data_start) {
  if (size < 8) fail(name, size, "truncated: a safetensors file starts with an 8-byte length");
  uint64_t n;
  std::memcpy(&n, bytes, 8);
  if (n > size - 8) {
    fail(name, 0,
         "JSON header of " + std::to_string(n) + " bytes runs past the end of file (" +
             std::to_string(size) + " bytes)");
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::object obj;
  if (parser.parse(reinterpret_cast<const char*>(bytes + 8), static_cast<size_t>(n)).get(doc) ||
      doc.get_object().get(obj)) {
    fail(name, 8, "JSON header is not a valid JSON object");
  }
  std::map<std::string, Entry> out;
  for (auto kv : obj) {
    std::string key(kv.key);
    if (key == "__metadata__") continue;
    out[key] = parse_entry(name, key, kv.value);
  }
  *data_start = 8 + n;
  return out;
}

// Copies one (H, N, N) tensor stored [h][j][i] into S[h][i][j]. A NaN or infinity is an error
// naming the tensor, the element and its byte offset (`data` is at file offset `data_offset`).
// Widens one stored row of N at a time (one dequantize_row call per element cost ~10x more).
void transpose_into(const Entry& e, const uint8_t* data, int64_t H, int64_t N, float* S,
                    const std::string& name, const std::string& key, uint64_t data_offset) {
  const DType t = dtype_from_name(e.dtype).value_or(DType::F32);  // checked F32/F16/BF16 above
  const auto es = static_cast<size_t>(dtype_block_bytes(t));
  std::vector<float> row(static_cast<size_t>(N));
  for (int64_t h = 0; h < H; ++h) {
    for (int64_t j = 0; j < N; ++j) {
      dequantize_row(t, data + es * static_cast<size_t>((h * N + j) * N), N, row.data());
      for (int64_t i = 0; i < N; ++i) {
        const size_t at = es * static_cast<size_t>((h * N + j) * N + i);
        const float v = row[static_cast<size_t>(i)];
        S[(h * N + i) * N + j] = v;
        if (!std::isfinite(v))
          fail(name, data_offset + at,
               "tensor '" + key + "' element [" + std::to_string(h) + ", " + std::to_string(j) +
                   ", " + std::to_string(i) + "] is " + (std::isnan(v) ? "NaN" : "infinite") +
                   " (a State must hold finite values)");
      }
    }
  }
}

}  // namespace

State load_ai00_state_bytes(const Model& model, const uint8_t* bytes, size_t size,
                            const std::string& name) {
  uint64_t data_start = 0;
  const std::map<std::string, Entry> entries = parse_header(bytes, size, name, &data_start);
  const uint64_t data_size = size - data_start;
  State st(model);
  const int64_t H = st.n_head(), N = st.head_size();
  for (int64_t l = 0; l < st.n_layer(); ++l) {
    const std::string key = "blocks." + std::to_string(l) + ".att.time_state";
    auto it = entries.find(key);
    if (it == entries.end()) fail(name, 8, "missing tensor '" + key + "'");
    const Entry& e = it->second;
    if (e.dtype != "F16" && e.dtype != "F32" && e.dtype != "BF16") {
      fail(name, 8, "tensor '" + key + "' has dtype " + e.dtype + ", expected F16, F32 or BF16");
    }
    const std::vector<uint64_t> want = {static_cast<uint64_t>(H), static_cast<uint64_t>(N),
                                        static_cast<uint64_t>(N)};
    if (e.shape != want) {
      std::string got;
      for (uint64_t d : e.shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
      throw MismatchError(name + ": tensor '" + key + "' has shape (" + got +
                          "), the model needs (" + std::to_string(H) + ", " + std::to_string(N) +
                          ", " + std::to_string(N) + ")");
    }
    const uint64_t need = static_cast<uint64_t>(H * N * N) * (e.dtype == "F32" ? 4 : 2);
    if (e.end > data_size || e.end - e.begin != need) {
      fail(name, data_start + e.begin,
           "tensor '" + key + "' data [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
               ") must hold " + std::to_string(need) + " bytes inside the data area of " +
               std::to_string(data_size) + " bytes");
    }
    transpose_into(e, bytes + data_start + e.begin, H, N, st.wkv(l), name, key,
                   data_start + e.begin);
  }
  return st;
}

State load_ai00_state_file(const Model& model, const std::string& path) {
  MappedFile f = MappedFile::open(path);
  return load_ai00_state_bytes(model, f.data(), f.size(), path);
}

}  // namespace ai00::internal