// GGUF and safetensors writers and the block quantizers (docs/weight-files.md "Writing weight
// files").
#include "core/weights/weight_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/half.h"
#include "base/json_escape.h"

namespace ai00::internal {
namespace {

constexpr int kB = quant::kQBlock;

void put_f16(uint8_t* p, float v) {
  const uint16_t h = f32_to_f16(v);
  std::memcpy(p, &h, 2);
}

// Value of largest magnitude, keeping its sign (ggml's "max" of Q4_0/Q5_0).
float signed_absmax(const float* x) {
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < kB; ++j) {
    if (std::fabs(x[j]) > amax) amax = std::fabs(x[j]), max = x[j];
  }
  return max;
}

void q8_0(const float* x, uint8_t* out) {
  float amax = 0.0f;
  for (int j = 0; j < kB; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
  put_f16(out, d);
  for (int j = 0; j < kB; ++j) {
    out[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::lround(x[j] * id)));
  }
}

void q4_0(const float* x, uint8_t* out) {
  const float d = signed_absmax(x) / -8.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
  put_f16(out, d);
  for (int j = 0; j < kB / 2; ++j) {
    const int q0 = std::min(15, static_cast<int>(static_cast<int8_t>(x[j] * id + 8.5f)));
    const int q1 = std::min(15, static_cast<int>(static_cast<int8_t>(x[j + 16] * id + 8.5f)));
    out[2 + j] = static_cast<uint8_t>(q0 | (q1 << 4));
  }
}

void min_max(const float* x, float* lo, float* hi) {
  *lo = x[0], *hi = x[0];
  for (int j = 1; j < kB; ++j) *lo = std::min(*lo, x[j]), *hi = std::max(*hi, x[j]);
}

void q4_1(const float* x, uint8_t* out) {
  float lo, hi;
  min_max(x, &lo, &hi);
  const float d = (hi - lo) / 15.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
  put_f16(out, d);
  put_f16(out + 2, lo);
  for (int j = 0; j < kB / 2; ++j) {
    const int q0 = std::min(15, static_cast<int>(static_cast<int8_t>((x[j] - lo) * id + 0.5f)));
    const int q1 =
        std::min(15, static_cast<int>(static_cast<int8_t>((x[j + 16] - lo) * id + 0.5f)));
    out[4 + j] = static_cast<uint8_t>(q0 | (q1 << 4));
  }
}

// Shared tail of Q5_0/Q5_1: low nibbles to qs, fifth bits to qh.
void q5_pack(const int* q, uint8_t* qh_out, uint8_t* qs) {
  uint32_t qh = 0;
  for (int j = 0; j < kB / 2; ++j) {
    qs[j] = static_cast<uint8_t>((q[j] & 15) | ((q[j + 16] & 15) << 4));
    qh |= static_cast<uint32_t>((q[j] >> 4) & 1) << j;
    qh |= static_cast<uint32_t>((q[j + 16] >> 4) & 1) << (j + 16);
  }
  std::memcpy(qh_out, &qh, 4);
}

void q5_0(const float* x, uint8_t* out) {
  const float d = signed_absmax(x) / -16.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
  put_f16(out, d);
  int q[kB];
  for (int j = 0; j < kB; ++j) {
    q[j] = std::min(31, static_cast<int>(static_cast<int8_t>(x[j] * id + 16.5f)));
  }
  q5_pack(q, out + 2, out + 6);
}

void q5_1(const float* x, uint8_t* out) {
  float lo, hi;
  min_max(x, &lo, &hi);
  const float d = (hi - lo) / 31.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
  put_f16(out, d);
  put_f16(out + 2, lo);
  int q[kB];
  for (int j = 0; j < kB; ++j) {
    q[j] = std::min(31, static_cast<int>(static_cast<uint8_t>((x[j] - lo) * id + 0.5f)));
  }
  q5_pack(q, out + 4, out + 8);
}

// ---- output file: temporary name, buffered writes, rename into place ----

class OutFile {
 public:
  OutFile(const std::string& path, bool overwrite) : path_(path), overwrite_(overwrite) {
    if (!overwrite && ::access(path.c_str(), F_OK) == 0) {
      throw IoError(path + ": the output file exists (overwrite it with --force / overwrite = 1)");
    }
    // A new name beside the output (same file system, so the final rename is atomic), created
    // with O_EXCL and the usual 0666 & ~umask permissions.
    static std::atomic<unsigned> counter{0};
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
      tmp_ = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
      fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && (errno != EEXIST || attempt > 100)) {
        throw IoError(path + ": cannot create the output file: " + std::strerror(errno));
      }
    }
    f_ = ::fdopen(fd, "wb");
    if (f_ == nullptr) {
      const int e = errno;
      ::close(fd);
      ::unlink(tmp_.c_str());
      throw IoError(path + ": cannot open the output file: " + std::strerror(e));
    }
  }
  ~OutFile() {
    if (f_ != nullptr) std::fclose(f_);
    if (!done_) ::unlink(tmp_.c_str());
  }
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  void write(const void* p, size_t n) {
    if (n != 0 && std::fwrite(p, 1, n, f_) != n) {
      throw IoError(path_ + ": write failed at byte offset " + std::to_string(pos_) + ": " +
                    std::strerror(errno));
    }
    pos_ += n;
  }
  void u32(uint32_t v) { write(&v, 4); }
  void u64(uint64_t v) { write(&v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    write(s.data(), s.size());
  }
  void pad_to(uint64_t align) {
    static const uint8_t zeros[64] = {};
    while (pos_ % align != 0) write(zeros, std::min<uint64_t>(64, align - pos_ % align));
  }
  uint64_t pos() const { return pos_; }

  // Flushes, closes and moves the temporary file to the final name.
  void commit() {
    const bool flushed = std::fflush(f_) == 0 && ::fsync(::fileno(f_)) == 0;
    const int e = errno;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!flushed || !closed) {
      throw IoError(path_ + ": cannot finish writing the output file: " + std::strerror(e));
    }
    if (overwrite_) {
      if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
        throw IoError(path_ + ": cannot rename " + tmp_ + " into place: " + std::strerror(errno));
      }
    } else if (::link(tmp_.c_str(), path_.c_str()) == 0) {  // fails if path appeared meanwhile
      ::unlink(tmp_.c_str());
    } else if (errno == EEXIST) {
      throw IoError(path_ + ": the output file exists (overwrite it with --force / overwrite = 1)");
    } else if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {  // no hard links here
      throw IoError(path_ + ": cannot rename " + tmp_ + " into place: " + std::strerror(errno));
    }
    done_ = true;
  }

 private:
  std::string path_, tmp_;
  bool overwrite_;
  std::FILE* f_ = nullptr;
  uint64_t pos_ = 0;
  bool done_ = false;
};

uint64_t tensor_nbytes(const WriteTensor& t) {
  const int64_t rows = t.numel() / t.row_len();
  return static_cast<uint64_t>(rows) * dtype_row_bytes(t.type, t.row_len());
}

void check_tensor(const WriteTensor& t) {
  if (t.shape.empty() || t.numel() <= 0) {
    throw InvalidArgument("tensor " + t.name + ": empty shape");
  }
  if (t.row_len() % dtype_block_size(t.type) != 0) {
    throw InvalidArgument("tensor " + t.name + ": rows of " + std::to_string(t.row_len()) +
                          " elements cannot be stored as " + dtype_name(t.type) + " (blocks of " +
                          std::to_string(dtype_block_size(t.type)) + ")");
  }
  if (t.type == DType::Q6_K) {
    throw InvalidArgument("tensor " + t.name + ": writing Q6_K is not supported");
  }
  if (t.raw == nullptr && !t.rows) throw InvalidArgument("tensor " + t.name + ": no data source");
}

// Writes every tensor's data in order, each padded to `align`, reporting progress.
void write_data(OutFile& f, const std::vector<WriteTensor>& tensors, uint64_t align,
                const WriteProgress& progress) {
  uint64_t total = 0, done = 0;
  for (const WriteTensor& t : tensors) total += tensor_nbytes(t);
  constexpr int64_t kChunkFloats = int64_t{1} << 20;
  std::vector<float> rows;
  std::vector<uint8_t> bytes;
  for (const WriteTensor& t : tensors) {
    f.pad_to(align);
    const int64_t n = t.row_len(), n_rows = t.numel() / n;
    const size_t row_bytes = dtype_row_bytes(t.type, n);
    const int64_t chunk = std::max<int64_t>(1, kChunkFloats / n);
    for (int64_t r = 0; r < n_rows; r += chunk) {
      const int64_t m = std::min(chunk, n_rows - r);
      if (t.raw != nullptr) {
        f.write(t.raw + static_cast<size_t>(r) * row_bytes, static_cast<size_t>(m) * row_bytes);
      } else {
        rows.resize(static_cast<size_t>(m * n));
        bytes.resize(static_cast<size_t>(m) * row_bytes);
        t.rows(r, m, rows.data());
        for (int64_t i = 0; i < m; ++i) {
          quantize_row(t.type, rows.data() + i * n, n,
                       bytes.data() + static_cast<size_t>(i) * row_bytes);
        }
        f.write(bytes.data(), bytes.size());
      }
      done += static_cast<uint64_t>(m) * row_bytes;
      if (progress) progress(done, total);
    }
  }
}

void write_kv(OutFile& f, const GgufKv& kv) {
  enum : uint32_t { kU32 = 4, kI32 = 5, kF32 = 6, kString = 8, kArray = 9 };
  f.str(kv.key);
  const GgufValue& v = kv.value;
  switch (v.kind) {
    case GgufValue::u32:
      f.u32(kU32), f.u32(v.u);
      break;
    case GgufValue::f32:
      f.u32(kF32), f.write(&v.f, 4);
      break;
    case GgufValue::str:
      f.u32(kString), f.str(v.s);
      break;
    case GgufValue::str_array:
      f.u32(kArray), f.u32(kString), f.u64(v.strings.size());
      for (const std::string& s : v.strings) f.str(s);
      break;
    case GgufValue::i32_array:
      f.u32(kArray), f.u32(kI32), f.u64(v.ints.size());
      f.write(v.ints.data(), v.ints.size() * 4);
      break;
  }
}

}  // namespace

int64_t WriteTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void quantize_row(DType t, const float* x, int64_t n, uint8_t* out) {
  switch (t) {
    case DType::F32:
      std::memcpy(out, x, static_cast<size_t>(n) * 4);
      return;
    case DType::F16:
      for (int64_t i = 0; i < n; ++i) put_f16(out + 2 * i, x[i]);
      return;
    case DType::BF16:
      for (int64_t i = 0; i < n; ++i) {
        const uint16_t b = f32_to_bf16(x[i]);
        std::memcpy(out + 2 * i, &b, 2);
      }
      return;
    default:
      break;
  }
  void (*fn)(const float*, uint8_t*) = nullptr;
  switch (t) {
    case DType::Q4_0:
      fn = q4_0;
      break;
    case DType::Q4_1:
      fn = q4_1;
      break;
    case DType::Q5_0:
      fn = q5_0;
      break;
    case DType::Q5_1:
      fn = q5_1;
      break;
    case DType::Q8_0:
      fn = q8_0;
      break;
    default:
      throw InvalidArgument(std::string("quantize_row: cannot write ") + dtype_name(t));
  }
  const size_t bb = static_cast<size_t>(dtype_block_bytes(t));
  for (int64_t b = 0; b < n / kB; ++b) fn(x + b * kB, out + static_cast<size_t>(b) * bb);
}

uint32_t ggml_type_id(DType t) {
  switch (t) {
    case DType::F32:
      return 0;
    case DType::F16:
      return 1;
    case DType::Q4_0:
      return 2;
    case DType::Q4_1:
      return 3;
    case DType::Q5_0:
      return 6;
    case DType::Q5_1:
      return 7;
    case DType::Q8_0:
      return 8;
    case DType::Q6_K:
      return 14;
    case DType::BF16:
      return 30;
  }
  return 0;
}

void write_gguf(const std::string& path, const std::vector<GgufKv>& metadata,
                const std::vector<WriteTensor>& tensors, const WriteOptions& options) {
  constexpr uint64_t kAlign = 32;
  for (const WriteTensor& t : tensors) check_tensor(t);
  OutFile f(path, options.overwrite);
  f.write("GGUF", 4);
  f.u32(3);
  f.u64(tensors.size());
  f.u64(metadata.size());
  for (const GgufKv& kv : metadata) write_kv(f, kv);
  uint64_t offset = 0;
  for (const WriteTensor& t : tensors) {
    f.str(t.name);
    f.u32(static_cast<uint32_t>(t.shape.size()));
    for (size_t i = t.shape.size(); i-- > 0;) f.u64(static_cast<uint64_t>(t.shape[i]));  // ne
    f.u32(ggml_type_id(t.type));
    f.u64(offset);
    offset = (offset + tensor_nbytes(t) + kAlign - 1) / kAlign * kAlign;
  }
  write_data(f, tensors, kAlign, options.progress);
  f.commit();
}

void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& metadata,
                       const std::vector<WriteTensor>& tensors, const WriteOptions& options) {
  for (const WriteTensor& t : tensors) {
    check_tensor(t);
    if (dtype_is_quantized(t.type)) {
      throw UnsupportedError("tensor " + t.name + ": safetensors cannot hold " +
                             dtype_name(t.type) + " (F32, F16 and BF16 only; use GGUF)");
    }
  }
  std::string h = "{";
  if (!metadata.empty()) {
    h += "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      if (i) h += ",";
      h += "\"", append_json_escaped(h, metadata[i].first), h += "\":\"";
      append_json_escaped(h, metadata[i].second), h += "\"";
    }
    h += "}";
  }
  uint64_t offset = 0;
  for (const WriteTensor& t : tensors) {
    if (h.size() > 1) h += ",";
    h += "\"", append_json_escaped(h, t.name);
    h += "\":{\"dtype\":\"" + std::string(dtype_name(t.type)) + "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) h += (i ? "," : "") + std::to_string(t.shape[i]);
    const uint64_t end = offset + tensor_nbytes(t);
    h += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(end) + "]}";
    offset = end;
  }
  h += "}";
  while (h.size() % 8 != 0) h += ' ';
  OutFile f(path, options.overwrite);
  f.u64(h.size());
  f.write(h.data(), h.size());
  write_data(f, tensors, 1, options.progress);
  f.commit();
}

}  // namespace ai00::internal
