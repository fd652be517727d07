// State: allocation, clone, (de)serialization and the rwkv.cpp layout.
#include "core/model/state.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "core/model/model.h"

namespace ai00::internal {
namespace {

constexpr char kMagic[8] = {'A', 'I', '0', '0', 'S', 'T', 'A', 'T'};
constexpr uint32_t kVersion = 2;  // 2: the sampler section follows the floats
constexpr size_t kHeaderBytes = 64;

std::string at(size_t off) { return "serialized state, byte offset " + std::to_string(off) + ": "; }

}  // namespace

void State::FreeAligned::operator()(float* p) const noexcept { std::free(p); }

State::State(const Model& model) {
  const ModelConfig& c = model.config();
  n_layer_ = c.n_layer, n_embd_ = c.n_embd, n_head_ = c.n_head, head_size_ = c.head_size;
  fingerprint_ = model.fingerprint();
  allocate();
  reset();
}

void State::allocate() {
  size_ = static_cast<size_t>(n_layer_ * per_layer());
  // aligned_alloc needs a size that is a multiple of the alignment.
  size_t bytes = (size_ * sizeof(float) + 63) / 64 * 64;
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes == 0 ? 64 : bytes));
  if (!p) throw std::bad_alloc();
  data_.reset(p);
}

State State::clone() const {
  State s;
  s.n_layer_ = n_layer_, s.n_embd_ = n_embd_, s.n_head_ = n_head_, s.head_size_ = head_size_;
  s.fingerprint_ = fingerprint_;
  s.allocate();
  std::memcpy(s.data_.get(), data_.get(), size_bytes());
  s.sampler_ = sampler_;
  s.pristine_ = pristine_;
  return s;
}

void State::reset() {
  std::memset(data_.get(), 0, size_bytes());
  pristine_ = true;
}

namespace {
// Which dimension differs first, or that only the weights (fingerprint) differ.
std::string first_difference(const int64_t (&state)[4], const int64_t (&model)[4]) {
  static const char* const kNames[4] = {"n_layer", "n_embd", "n_head", "head_size"};
  for (int k = 0; k < 4; ++k)
    if (state[k] != model[k])
      return std::string(kNames[k]) + " differs (state " + std::to_string(state[k]) + ", model " +
             std::to_string(model[k]) + ")";
  return "the dimensions agree but the weights differ (fingerprint)";
}
}  // namespace

void State::check_model(const Model& model) const {
  if (model.fingerprint() == fingerprint_) return;
  const ModelConfig& c = model.config();
  const int64_t mine[4] = {n_layer_, n_embd_, n_head_, head_size_};
  const int64_t theirs[4] = {c.n_layer, c.n_embd, c.n_head, c.head_size};
  throw MismatchError("state belongs to another model: " + first_difference(mine, theirs) +
                      "; state has n_layer " + std::to_string(n_layer_) + ", n_embd " +
                      std::to_string(n_embd_) + ", n_head " + std::to_string(n_head_) +
                      ", fingerprint " + std::to_string(fingerprint_) + "; model has n_layer " +
                      std::to_string(c.n_layer) + ", n_embd " + std::to_string(c.n_embd) +
                      ", n_head " + std::to_string(c.n_head) + ", fingerprint " +
                      std::to_string(model.fingerprint()));
}

size_t State::serialized_size() const {
  return kHeaderBytes + size_bytes() + 8 + sampler_.serialized_size();
}

void State::serialize_into(uint8_t* out, size_t capacity) const {
  if (out == nullptr || capacity < serialized_size()) {
    throw InvalidArgument("State::serialize_into: buffer of " + std::to_string(capacity) +
                          " bytes, need " + std::to_string(serialized_size()));
  }
  std::memset(out, 0, kHeaderBytes);
  std::memcpy(out, kMagic, 8);
  store_le<uint32_t>(out, 8, kVersion);
  store_le<uint32_t>(out, 12, static_cast<uint32_t>(kHeaderBytes));
  store_le<uint64_t>(out, 16, fingerprint_);
  store_le<uint32_t>(out, 24, static_cast<uint32_t>(n_layer_));
  store_le<uint32_t>(out, 28, static_cast<uint32_t>(n_embd_));
  store_le<uint32_t>(out, 32, static_cast<uint32_t>(n_head_));
  store_le<uint32_t>(out, 36, static_cast<uint32_t>(head_size_));
  store_le<uint64_t>(out, 40, static_cast<uint64_t>(size_));
  store_le<uint64_t>(out, 48, fnv1a64(data_.get(), size_bytes()));
  std::memcpy(out + kHeaderBytes, data_.get(), size_bytes());
  const size_t off = kHeaderBytes + size_bytes();
  const size_t m = sampler_.serialized_size();
  store_le<uint64_t>(out, off, static_cast<uint64_t>(m));
  sampler_.serialize(out + off + 8, m);
}

std::vector<uint8_t> State::serialize() const {
  std::vector<uint8_t> out(serialized_size());
  serialize_into(out.data(), out.size());
  return out;
}

State State::deserialize(const Model& model, const uint8_t* bytes, size_t size) {
  if (bytes == nullptr && size > 0) throw InvalidArgument("State::deserialize: null buffer");
  if (size < kHeaderBytes) {
    throw ModelFileError(at(size) + "truncated header: " + std::to_string(size) +
                         " bytes, need at least " + std::to_string(kHeaderBytes));
  }
  if (std::memcmp(bytes, kMagic, 8) != 0) throw ModelFileError(at(0) + "bad magic (not AI00STAT)");
  const uint32_t version = load_le<uint32_t>(bytes, 8);
  if (version != 1 && version != kVersion) {
    throw ModelFileError(at(8) + "unsupported version " + std::to_string(version));
  }
  if (uint32_t h = load_le<uint32_t>(bytes, 12); h != kHeaderBytes) {
    throw ModelFileError(at(12) + "header size " + std::to_string(h) + ", expected 64");
  }
  State s(model);
  const uint64_t fp = load_le<uint64_t>(bytes, 16);
  const int64_t dims[4] = {load_le<uint32_t>(bytes, 24), load_le<uint32_t>(bytes, 28),
                           load_le<uint32_t>(bytes, 32), load_le<uint32_t>(bytes, 36)};
  if (fp != s.fingerprint_ || dims[0] != s.n_layer_ || dims[1] != s.n_embd_ ||
      dims[2] != s.n_head_ || dims[3] != s.head_size_) {
    const int64_t mine[4] = {s.n_layer_, s.n_embd_, s.n_head_, s.head_size_};
    throw MismatchError(
        "serialized state belongs to another model: " + first_difference(dims, mine) +
        "; it has n_layer " + std::to_string(dims[0]) + ", n_embd " + std::to_string(dims[1]) +
        ", n_head " + std::to_string(dims[2]) + ", fingerprint " + std::to_string(fp) +
        "; this model has n_layer " + std::to_string(s.n_layer_) + ", n_embd " +
        std::to_string(s.n_embd_) + ", n_head " + std::to_string(s.n_head_) + ", fingerprint " +
        std::to_string(s.fingerprint_));
  }
  if (uint64_t n = load_le<uint64_t>(bytes, 40); n != s.size_) {
    throw ModelFileError(at(40) + "float count " + std::to_string(n) + ", expected " +
                         std::to_string(s.size_));
  }
  // Expected total: the floats, then (version 2) the length-prefixed sampler section.
  const size_t payload_end = kHeaderBytes + s.size_bytes();
  size_t expected = payload_end;
  uint64_t m = 0;
  if (version >= 2) {
    if (size < payload_end + 8) {
      throw ModelFileError(at(size) + "size " + std::to_string(size) + " bytes, need at least " +
                           std::to_string(payload_end + 8) + " (truncated)");
    }
    m = load_le<uint64_t>(bytes, payload_end);
    if (m > size)
      throw ModelFileError(at(payload_end) + "sampler section of " + std::to_string(m) +
                           " bytes exceeds the buffer");
    expected = payload_end + 8 + static_cast<size_t>(m);
  }
  if (size != expected) {
    throw ModelFileError(at(std::min(size, expected)) + "size " + std::to_string(size) +
                         " bytes, expected " + std::to_string(expected) +
                         (size < expected ? " (truncated)" : " (trailing bytes)"));
  }
  if (fnv1a64(bytes + kHeaderBytes, s.size_bytes()) != load_le<uint64_t>(bytes, 48)) {
    throw ModelFileError(at(kHeaderBytes) + "payload checksum mismatch (corrupt data in bytes " +
                         std::to_string(kHeaderBytes) + ".." + std::to_string(size) + ")");
  }
  std::memcpy(s.data(), bytes + kHeaderBytes, s.size_bytes());  // clears pristine
  for (size_t i = 0; i < s.size_; ++i)  // a NaN or infinity would poison every later token
    if (!std::isfinite(s.data_[i]))
      throw ModelFileError(at(kHeaderBytes + 4 * i) + "float " + std::to_string(i) + " is " +
                           (std::isnan(s.data_[i]) ? "NaN" : "infinite") +
                           " (a State must hold finite values)");
  if (version >= 2) {
    try {
      s.sampler_ = SamplerState::deserialize(bytes + payload_end + 8, static_cast<size_t>(m));
    } catch (const ModelFileError& e) {
      throw ModelFileError(at(payload_end + 8) + "sampler section: " + e.what());
    } catch (const UnsupportedError& e) {
      throw UnsupportedError(at(payload_end + 8) + "sampler section: " + e.what());
    }
  }
  return s;
}

void State::export_rwkv_cpp(float* out, size_t n) const {
  if (out == nullptr || n != size_) {
    throw InvalidArgument("export_rwkv_cpp: buffer of " + std::to_string(n) + " floats, need " +
                          std::to_string(size_));
  }
  const size_t C = static_cast<size_t>(n_embd_), per = static_cast<size_t>(per_layer());
  for (int64_t l = 0; l < n_layer_; ++l) {
    float* dst = out + static_cast<size_t>(l) * per;
    std::memcpy(dst, ffn_shift(l), C * 4);
    std::memcpy(dst + C, att_shift(l), C * 4);
    std::memcpy(dst + 2 * C, wkv(l), (per - 2 * C) * 4);
  }
}

void State::import_rwkv_cpp(const float* in, size_t n) {
  if (in == nullptr || n != size_) {
    throw InvalidArgument("import_rwkv_cpp: buffer of " + std::to_string(n) + " floats, need " +
                          std::to_string(size_));
  }
  for (size_t i = 0; i < n; ++i)  // checked before anything is overwritten
    if (!std::isfinite(in[i]))
      throw InvalidArgument("import_rwkv_cpp: float " + std::to_string(i) + " is " +
                            (std::isnan(in[i]) ? "NaN" : "infinite") +
                            " (a State must hold finite values)");
  const size_t C = static_cast<size_t>(n_embd_), per = static_cast<size_t>(per_layer());
  for (int64_t l = 0; l < n_layer_; ++l) {
    const float* src = in + static_cast<size_t>(l) * per;
    std::memcpy(ffn_shift(l), src, C * 4);
    std::memcpy(att_shift(l), src + C, C * 4);
    std::memcpy(wkv(l), src + 2 * C, (per - 2 * C) * 4);
  }
}

}  // namespace ai00::internal