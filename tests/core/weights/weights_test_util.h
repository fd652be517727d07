// Test-only helpers for the weight-loader tests: independent scalar dequantizers (written from
// docs/weight-files.md "rwkv.cpp .bin", not shared with the library or the kernels) and small
// checks.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/half.h"
#include "core/weights/weights.h"

namespace ai00::test {
using namespace ::ai00::internal;  // test helpers of the internal layers

inline float load_f16(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return f16_to_f32(h);
}

// q(e): low nibble of qs[e] for e < 16, high nibble of qs[e-16] for e >= 16.
inline int nibble(const uint8_t* qs, int e) { return e < 16 ? qs[e] & 15 : qs[e - 16] >> 4; }

inline void dequant_block(DType t, const uint8_t* b, float* out) {
  switch (t) {
    case DType::Q4_0:
      for (int e = 0; e < 32; ++e) out[e] = load_f16(b) * (nibble(b + 2, e) - 8);
      return;
    case DType::Q4_1:
      for (int e = 0; e < 32; ++e) out[e] = load_f16(b) * nibble(b + 4, e) + load_f16(b + 2);
      return;
    case DType::Q5_0: {
      uint32_t qh;
      std::memcpy(&qh, b + 2, 4);
      for (int e = 0; e < 32; ++e) {
        out[e] = load_f16(b) * (nibble(b + 6, e) + 16 * static_cast<int>((qh >> e) & 1) - 16);
      }
      return;
    }
    case DType::Q5_1: {
      uint32_t qh;
      std::memcpy(&qh, b + 4, 4);
      for (int e = 0; e < 32; ++e) {
        out[e] = load_f16(b) * (nibble(b + 8, e) + 16 * static_cast<int>((qh >> e) & 1)) +
                 load_f16(b + 2);
      }
      return;
    }
    case DType::Q8_0:
      for (int e = 0; e < 32; ++e) out[e] = load_f16(b) * static_cast<int8_t>(b[2 + e]);
      return;
    default:
      throw std::runtime_error(std::string("test dequantizer: unsupported ") + dtype_name(t));
  }
}

// Every element of a tensor as float32 (float types converted, block types dequantized).
inline std::vector<float> to_f32(const TensorView& t) {
  const size_t n = static_cast<size_t>(t.numel());
  std::vector<float> out(n);
  const uint8_t* p = t.data;
  switch (t.dtype) {
    case DType::F32:
      std::memcpy(out.data(), p, n * 4);
      return out;
    case DType::F16:
      for (size_t i = 0; i < n; ++i) out[i] = load_f16(p + 2 * i);
      return out;
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        out[i] = bf16_to_f32(h);
      }
      return out;
    default: {
      const size_t bb = static_cast<size_t>(dtype_block_bytes(t.dtype));
      for (size_t blk = 0; blk < n / 32; ++blk)
        dequant_block(t.dtype, p + blk * bb, &out[blk * 32]);
      return out;
    }
  }
}

}  // namespace ai00::test

namespace ai00::test {

// Largest quantization error of one block type relative to the block's max |x|: half a step for
// Q8_0 and the asymmetric types; a whole step for Q4_0/Q5_0, whose scale is chosen so that the
// largest-magnitude value maps to -8 / -16 and the opposite end is clipped at 7 / 15.
// Plus slack for the f16 scale.
inline double quant_rel_error(DType t) {
  switch (t) {
    case DType::Q8_0:
      return 1.0 / 254 + 2e-3;
    case DType::Q4_0:
      return 1.0 / 8 + 2e-3;
    case DType::Q4_1:
      return 1.0 / 15 + 2e-3;
    case DType::Q5_0:
      return 1.0 / 16 + 2e-3;
    case DType::Q5_1:
      return 1.0 / 31 + 2e-3;
    default:
      return 0;
  }
}

inline void put_u32(std::vector<uint8_t>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void put_u64(std::vector<uint8_t>& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void put_u16(std::vector<uint8_t>& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}

// One tensor to write into a safetensors file.
struct StTensor {
  std::string name;
  std::string dtype;  // "F32", "F16", "BF16" (or anything, for bad files)
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

// Serialises tensors as a safetensors file (header padded to 8 bytes, data in the given order).
inline std::vector<uint8_t> write_safetensors(const std::vector<StTensor>& ts) {
  std::string json = "{\"__metadata__\":{\"format\":\"pt\"}";
  uint64_t off = 0;
  for (const StTensor& t : ts) {
    json += ",\"" + t.name + "\":{\"dtype\":\"" + t.dtype + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) json += (i ? "," : "") + std::to_string(t.shape[i]);
    json += "],\"data_offsets\":[" + std::to_string(off) + "," +
            std::to_string(off + t.bytes.size()) + "]}";
    off += t.bytes.size();
  }
  json += "}";
  while (json.size() % 8 != 0) json += ' ';
  std::vector<uint8_t> out;
  put_u64(out, json.size());
  out.insert(out.end(), json.begin(), json.end());
  for (const StTensor& t : ts) out.insert(out.end(), t.bytes.begin(), t.bytes.end());
  return out;
}

// A ZIP archive of stored entries (what torch.save writes); CRCs are left 0 (not checked).
// With `zip64`, every central entry carries its sizes and offset in a zip64 extra field and the
// archive ends with zip64 end records (what torch writes for archives over 4 GiB).
inline std::vector<uint8_t> write_zip(
    const std::vector<std::pair<std::string, std::vector<uint8_t>>>& entries, bool zip64 = false) {
  const uint32_t sat = 0xffffffffu;  // "see the zip64 record"
  std::vector<uint8_t> out, cd;
  for (const auto& e : entries) {
    const uint64_t offset = out.size(), n = e.second.size();
    const uint16_t name_len = static_cast<uint16_t>(e.first.size());
    put_u32(out, 0x04034b50u);  // local header
    put_u16(out, 20);           // version needed
    put_u16(out, 0);            // flags
    put_u16(out, 0);            // method: stored
    put_u32(out, 0);            // time, date
    put_u32(out, 0);            // crc
    put_u32(out, static_cast<uint32_t>(n));
    put_u32(out, static_cast<uint32_t>(n));
    put_u16(out, name_len);
    put_u16(out, 0);
    out.insert(out.end(), e.first.begin(), e.first.end());
    out.insert(out.end(), e.second.begin(), e.second.end());
    put_u32(cd, 0x02014b50u);
    put_u16(cd, 45);  // version made by
    put_u16(cd, 45);  // version needed
    put_u16(cd, 0);   // flags
    put_u16(cd, 0);   // method: stored
    put_u32(cd, 0);   // time, date
    put_u32(cd, 0);   // crc
    put_u32(cd, zip64 ? sat : static_cast<uint32_t>(n));
    put_u32(cd, zip64 ? sat : static_cast<uint32_t>(n));
    put_u16(cd, name_len);
    put_u16(cd, zip64 ? 28 : 0);  // extra length
    put_u16(cd, 0);               // comment length
    put_u16(cd, 0);               // disk number
    put_u16(cd, 0);               // internal attributes
    put_u32(cd, 0);               // external attributes
    put_u32(cd, zip64 ? sat : static_cast<uint32_t>(offset));
    cd.insert(cd.end(), e.first.begin(), e.first.end());
    if (zip64) {
      put_u16(cd, 1);
      put_u16(cd, 24);
      put_u64(cd, n);
      put_u64(cd, n);
      put_u64(cd, offset);
    }
  }
  const uint64_t cd_offset = out.size();
  out.insert(out.end(), cd.begin(), cd.end());
  if (zip64) {
    const uint64_t end64 = out.size();
    put_u32(out, 0x06064b50u);
    put_u64(out, 44);  // size of the rest of the record
    put_u16(out, 45);
    put_u16(out, 45);
    put_u32(out, 0);
    put_u32(out, 0);
    put_u64(out, entries.size());
    put_u64(out, entries.size());
    put_u64(out, cd.size());
    put_u64(out, cd_offset);
    put_u32(out, 0x07064b50u);  // locator
    put_u32(out, 0);
    put_u64(out, end64);
    put_u32(out, 1);
  }
  put_u32(out, 0x06054b50u);
  put_u16(out, 0);
  put_u16(out, 0);
  put_u16(out, zip64 ? 0xffff : static_cast<uint16_t>(entries.size()));
  put_u16(out, zip64 ? 0xffff : static_cast<uint16_t>(entries.size()));
  put_u32(out, zip64 ? sat : static_cast<uint32_t>(cd.size()));
  put_u32(out, zip64 ? sat : static_cast<uint32_t>(cd_offset));
  put_u16(out, 0);
  return out;
}

}  // namespace ai00::test
