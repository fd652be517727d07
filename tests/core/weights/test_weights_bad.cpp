// Bad weight files: every kind of corruption gets a ModelFileError that names the file, the
// tensor and the byte offset; truncation and byte flips never crash or read out of bounds.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/model/model_config.h"
#include "core/weights/weights.h"
#include "fixtures.h"
#include "weights_test_util.h"

using Bytes = std::vector<uint8_t>;
using ai00::test::put_u32;
using ai00::test::put_u64;

namespace {

Bytes fixture(const char* name) {
  return ai00::test::read_bytes(ai00::test::shared_path(std::string("models/") + name));
}

std::string write_tmp(const Bytes& b, const char* name = "model") {
  const std::string path = ai00::test::temp_dir() + "/" + name;
  ai00::test::write_bytes(path, b);
  return path;
}

// Opens the bytes (and derives the config) expecting a ModelFileError whose message contains
// the file path and every needle; returns the message.
std::string expect_error(const Bytes& b, const std::vector<std::string>& needles) {
  const std::string path = write_tmp(b);
  std::string msg;
  try {
    auto wf = ai00::internal::open_weights(path);
    ai00::internal::derive_config(*wf);
  } catch (const ai00::internal::ModelFileError& e) {
    msg = e.what();
  }
  INFO(msg);
  CHECK(msg.find(path) != std::string::npos);
  for (const std::string& n : needles) CHECK(msg.find(n) != std::string::npos);
  return msg;
}

size_t find_bytes(const Bytes& b, const std::string& s, size_t from = 0) {
  auto it = std::search(b.begin() + static_cast<std::ptrdiff_t>(from), b.end(), s.begin(), s.end());
  REQUIRE(it != b.end());
  return static_cast<size_t>(it - b.begin());
}

void set_u32(Bytes& b, size_t pos, uint32_t v) { std::memcpy(&b[pos], &v, 4); }
void set_u64(Bytes& b, size_t pos, uint64_t v) { std::memcpy(&b[pos], &v, 8); }

// Start of the rwkv.cpp record holding `name` (n_dims dims).
size_t bin_record(const Bytes& b, const std::string& name, uint32_t n_dims) {
  return find_bytes(b, name) - 12 - 4 * n_dims;
}

}  // namespace

TEST_CASE("rwkv.cpp .bin: bad files") {
  const Bytes good = fixture("tiny-rwkv-7v0-834K-FP32.bin");
  const size_t emb = bin_record(good, "emb.weight", 2);
  SECTION("truncated") {
    Bytes b(good.begin(), good.end() - 100);
    expect_error(b, {"file truncated", "tensor '", "byte offset", "tensor data"});
  }
  SECTION("wrong magic") {
    Bytes b = good;
    b[0] ^= 0xff;
    expect_error(b, {"unrecognised weight file", "byte offset 0"});
  }
  SECTION("unsupported version") {
    Bytes b = good;
    set_u32(b, 4, 99);
    expect_error(b, {"unsupported rwkv.cpp file version 99", "byte offset 4"});
  }
  SECTION("unknown data type") {
    Bytes b = good;
    set_u32(b, emb + 8, 5);
    expect_error(b, {"tensor 'emb.weight'", "byte offset " + std::to_string(emb),
                     "unknown rwkv.cpp data type 5"});
  }
  SECTION("bad n_dims") {
    Bytes b = good;
    set_u32(b, emb, 9);
    expect_error(b, {"byte offset " + std::to_string(emb), "n_dims 9"});
  }
  SECTION("shape overflow") {
    Bytes b = good;
    set_u32(b, emb + 12, 0xffffffffu);
    set_u32(b, emb + 16, 0xffffffffu);
    expect_error(b, {"tensor 'emb.weight'", "overflows"});
  }
  SECTION("shape larger than the file") {
    Bytes b = good;
    set_u32(b, emb + 16, 1000000);  // ne[1] = rows
    expect_error(b, {"tensor 'emb.weight'", "file truncated", "tensor data"});
  }
  SECTION("inconsistent shape") {
    Bytes b = good;
    const size_t rec = bin_record(good, "blocks.3.att.key.weight", 2);
    set_u32(b, rec + 12, 32);  // ne[0] 64 -> 32, ne[1] 64 -> 128: same byte count
    set_u32(b, rec + 16, 128);
    expect_error(b, {"tensor blocks.3.att.key.weight", "expected shape (64, 64), found (128, 32)"});
  }
  SECTION("quantized types need version 101") {
    Bytes b = fixture("tiny-rwkv-7v0-834K-Q5_0.bin");
    set_u32(b, 4, 100);
    expect_error(b, {"version-100", "Q5_0", "tensor '"});
  }
  SECTION("quantized row not a multiple of the block") {
    Bytes b = fixture("tiny-rwkv-7v0-834K-Q5_1.bin");
    const size_t rec = bin_record(b, "blocks.0.ffn.key.weight", 2);
    set_u32(b, rec + 12, 48);
    expect_error(b,
                 {"tensor 'blocks.0.ffn.key.weight'", "not a multiple of the Q5_1 block size 32"});
  }
  SECTION("missing tensor") {
    // Drop the last record: the file stays well-formed but incomplete.
    Bytes b = good;
    size_t pos = 24, last = 24;
    while (pos < b.size()) {
      uint32_t nd, nl, ne0 = 1, n = 1;
      std::memcpy(&nd, &b[pos], 4);
      std::memcpy(&nl, &b[pos + 4], 4);
      for (uint32_t i = 0; i < nd; ++i) {
        std::memcpy(&ne0, &b[pos + 12 + 4 * i], 4);
        n *= ne0;
      }
      last = pos;
      pos += 12 + 4 * nd + nl + 4 * n;  // all FP32
    }
    const std::string name(b.begin() + last + 12 + 4 * b[last],
                           b.begin() + last + 12 + 4 * b[last] + b[last + 4]);
    b.resize(last);
    expect_error(b, {"missing tensor " + name});
  }
}

namespace {

Bytes st_raw(const std::string& json, size_t data_bytes) {
  Bytes out;
  put_u64(out, json.size());
  out.insert(out.end(), json.begin(), json.end());
  out.resize(out.size() + data_bytes, 0);
  return out;
}

}  // namespace

TEST_CASE("safetensors: bad files") {
  SECTION("header length past the end") {
    Bytes b = fixture("rand-rwkv7-c128-l3-v512.st");
    set_u64(b, 0, 100000000);
    expect_error(b, {"header length 100000000 exceeds the file size", "byte offset 0"});
  }
  SECTION("invalid JSON") {
    expect_error(st_raw("{\"emb.weight\": {\"dtype\": \"F16\",", 0), {"not valid JSON"});
  }
  SECTION("unknown dtype") {
    expect_error(st_raw(R"({"emb.weight":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})", 16),
                 {"tensor 'emb.weight'", "unsupported dtype \"I64\""});
  }
  SECTION("offsets past the data area") {
    expect_error(st_raw(R"({"emb.weight":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8),
                 {"tensor 'emb.weight'", "outside the data area of 8 bytes", "byte offset"});
  }
  SECTION("offsets inconsistent with the shape") {
    expect_error(st_raw(R"({"emb.weight":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", 16),
                 {"tensor 'emb.weight'", "span 16 bytes but F32 (3) needs 12"});
  }
  SECTION("overlapping tensors") {
    expect_error(st_raw(R"({"a.x":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                        R"("b.y":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                        16),
                 {"tensor 'b.y'", "overlaps tensor 'a.x'"});
  }
  SECTION("shape overflow") {
    expect_error(st_raw(R"({"emb.weight":{"dtype":"F32","shape":[4294967296,4294967296,16],)"
                        R"("data_offsets":[0,16]}})",
                        16),
                 {"tensor 'emb.weight'", "overflows"});
  }
  SECTION("negative dimension") {
    expect_error(st_raw(R"({"emb.weight":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})", 16),
                 {"tensor 'emb.weight'", "not positive"});
  }
  SECTION("missing tensor in a real file") {
    Bytes b = fixture("rand-rwkv7-c128-l3-v512.st");
    const size_t p = find_bytes(b, "blocks.2.att.v2");
    b[p + 14] = '9';  // rename to blocks.2.att.v9
    expect_error(b, {"missing tensor blocks.2.att.v2"});
  }
}

namespace {

const char* kGguf = "rand-rwkv7-c128-l3-v512-F16.gguf";

// Position of the tensor info whose name is `name` (just after the name bytes).
size_t gguf_info_after_name(const Bytes& b, const std::string& name) {
  Bytes key;
  put_u64(key, name.size());
  key.insert(key.end(), name.begin(), name.end());
  return find_bytes(b, std::string(key.begin(), key.end())) + key.size();
}

}  // namespace

TEST_CASE("GGUF: bad files") {
  const Bytes good = fixture(kGguf);
  SECTION("unsupported version") {
    Bytes b = good;
    set_u32(b, 4, 1);
    expect_error(b, {"unsupported GGUF version 1", "byte offset 4"});
  }
  SECTION("absurd tensor count") {
    Bytes b = good;
    set_u64(b, 8, uint64_t{1} << 60);
    expect_error(b, {"larger than the file can hold", "byte offset 8"});
  }
  SECTION("truncated metadata") {
    Bytes b(good.begin(), good.begin() + 3000);  // inside the 512-token vocabulary array
    expect_error(b, {"array 'tokenizer.ggml.tokens' of 512 elements runs past the end of the file",
                     "byte offset"});
  }
  SECTION("truncated data") {
    Bytes b(good.begin(), good.end() - 1000);
    expect_error(b, {"runs past the end of the file", "tensor '"});
  }
  SECTION("unknown ggml type") {
    Bytes b = good;
    const size_t p = gguf_info_after_name(b, "token_embd.weight");
    set_u32(b, p + 4 + 16, 99);
    expect_error(b, {"tensor 'token_embd.weight'", "unsupported ggml type 99"});
  }
  SECTION("misaligned offset") {
    Bytes b = good;
    const size_t p = gguf_info_after_name(b, "token_embd.weight");
    uint64_t off;
    std::memcpy(&off, &b[p + 24], 8);
    set_u64(b, p + 24, off + 2);
    expect_error(b, {"tensor 'token_embd.weight'", "not a multiple of the alignment 32"});
  }
  SECTION("offset overflow") {
    Bytes b = good;
    const size_t p = gguf_info_after_name(b, "output.weight");
    set_u64(b, p + 24, ~uint64_t{31});
    expect_error(b, {"tensor 'output.weight'", "runs past the end of the file"});
  }
  SECTION("overlapping data") {
    Bytes b = good;
    const size_t p = gguf_info_after_name(b, "output.weight");
    const size_t q = gguf_info_after_name(b, "token_embd.weight");
    std::memcpy(&b[p + 24], &b[q + 24], 8);  // output.weight at token_embd's offset
    expect_error(b, {"overlaps tensor '"});
  }
  SECTION("other architecture") {
    Bytes b = good;
    const size_t p = find_bytes(b, "general.architecture") + 20 + 4 + 8;
    REQUIRE(std::string(b.begin() + p, b.begin() + p + 5) == "rwkv7");
    b[p + 4] = '6';
    expect_error(b, {"unsupported architecture 'rwkv6'"});
  }
  SECTION("unknown tensor name") {
    Bytes b = good;
    b[find_bytes(b, "token_embd.weight") + 9] = 'X';
    expect_error(b, {"tensor 'token_embX.weight'", "unknown rwkv7 tensor name"});
  }
  SECTION("r_k without head size") {
    Bytes b = good;
    b[find_bytes(b, "rwkv7.wkv.head_size") + 18] = 'X';
    expect_error(b, {"time_mix_r_k.weight", "rwkv7.wkv.head_size is missing"});
  }
}

namespace {

// A GGUF v3 file with one tensor: `output.weight` of ggml `type` and ne {ne0, ne1}.
Bytes tiny_gguf(uint32_t type, uint64_t ne0, uint64_t ne1, size_t data_bytes) {
  Bytes b = {'G', 'G', 'U', 'F'};
  put_u32(b, 3);
  put_u64(b, 1);  // tensors
  put_u64(b, 1);  // key/values
  const std::string key = "general.architecture", arch = "rwkv7", name = "output.weight";
  put_u64(b, key.size());
  b.insert(b.end(), key.begin(), key.end());
  put_u32(b, 8);  // string
  put_u64(b, arch.size());
  b.insert(b.end(), arch.begin(), arch.end());
  put_u64(b, name.size());
  b.insert(b.end(), name.begin(), name.end());
  put_u32(b, 2);
  put_u64(b, ne0);
  put_u64(b, ne1);
  put_u32(b, type);
  put_u64(b, 0);  // offset
  b.resize((b.size() + 31) / 32 * 32, 0);
  b.resize(b.size() + data_bytes, 0x11);
  return b;
}

}  // namespace

TEST_CASE("GGUF: Q6_K tensors are exposed in place") {
  auto wf = ai00::internal::open_weights(write_tmp(tiny_gguf(14, 512, 3, 3 * 2 * 210)));
  const ai00::internal::TensorView& t = wf->get("head.weight");
  CHECK(t.dtype == ai00::internal::DType::Q6_K);
  CHECK(t.shape == std::vector<int64_t>{3, 512});
  CHECK(t.nbytes == 3 * 2 * 210);
  CHECK(t.data == wf->file->data() + t.file_offset);
  expect_error(tiny_gguf(14, 128, 3, 1000),
               {"tensor 'output.weight'", "not a multiple of the Q6_K block size 256"});
  expect_error(tiny_gguf(14, 512, 3, 1000), {"tensor 'output.weight'", "runs past the end"});
}

namespace {

void pickle_str(Bytes& p, const std::string& s) {
  p.push_back('X');
  put_u32(p, static_cast<uint32_t>(s.size()));
  p.insert(p.end(), s.begin(), s.end());
}
void pickle_global(Bytes& p, const std::string& module, const std::string& name) {
  p.push_back('c');
  p.insert(p.end(), module.begin(), module.end());
  p.push_back('\n');
  p.insert(p.end(), name.begin(), name.end());
  p.push_back('\n');
}
void pickle_int_tuple(Bytes& p, const std::vector<int64_t>& v) {
  p.push_back('(');
  for (int64_t x : v) {
    p.push_back('J');
    put_u32(p, static_cast<uint32_t>(x));
  }
  p.push_back('t');
}

// torch.save-style pickle of {name: tensor} with one storage.
Bytes torch_pickle(const std::string& name, const std::string& storage_type, int64_t numel,
                   int64_t offset, const std::vector<int64_t>& size,
                   const std::vector<int64_t>& stride) {
  Bytes p = {0x80, 0x02, '}', '('};
  pickle_str(p, name);
  pickle_global(p, "torch._utils", "_rebuild_tensor_v2");
  p.insert(p.end(), {'(', '('});
  pickle_str(p, "storage");
  pickle_global(p, "torch", storage_type);
  pickle_str(p, "0");
  pickle_str(p, "cpu");
  p.push_back('J');
  put_u32(p, static_cast<uint32_t>(numel));
  p.insert(p.end(), {'t', 'Q', 'J'});
  put_u32(p, static_cast<uint32_t>(offset));
  pickle_int_tuple(p, size);
  pickle_int_tuple(p, stride);
  p.push_back(0x89);
  pickle_global(p, "collections", "OrderedDict");
  p.insert(p.end(), {')', 'R', 't', 'R', 'u', '.'});
  return p;
}

Bytes pth(const Bytes& pickle, size_t storage_bytes) {
  std::vector<std::pair<std::string, Bytes>> entries = {{"m/data.pkl", pickle}};
  if (storage_bytes > 0) entries.push_back({"m/data/0", Bytes(storage_bytes, 0)});
  return ai00::test::write_zip(entries);
}

}  // namespace

TEST_CASE("PyTorch .pth: bad files") {
  SECTION("a well-formed crafted checkpoint loads (control)") {
    auto wf = ai00::internal::open_weights(
        write_tmp(pth(torch_pickle("x.w", "HalfStorage", 12, 2, {2, 5}, {5, 1}), 24)));
    const ai00::internal::TensorView& t = wf->get("x.w");
    CHECK(t.shape == std::vector<int64_t>{2, 5});
    CHECK(t.dtype == ai00::internal::DType::F16);
    CHECK(t.nbytes == 20);
  }
  SECTION("zip64 archive and state_dict wrapper load (control)") {
    Bytes inner = torch_pickle("x.w", "FloatStorage", 4, 0, {4}, {1});
    Bytes wrapped = {0x80, 0x02, '}', '('};
    pickle_str(wrapped, "state_dict");
    wrapped.insert(wrapped.end(), inner.begin() + 2, inner.end() - 1);  // the inner dict
    wrapped.insert(wrapped.end(), {'u', '.'});
    Bytes storage(16);
    const float v[4] = {1.5f, -2.0f, 3.25f, 0.0f};
    std::memcpy(storage.data(), v, 16);
    auto wf = ai00::internal::open_weights(
        write_tmp(ai00::test::write_zip({{"m/data.pkl", wrapped}, {"m/data/0", storage}}, true)));
    CHECK(wf->tensors().size() == 1);
    CHECK(ai00::test::to_f32(wf->get("x.w")) == std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f});
  }
  SECTION("legacy (non-ZIP) torch file") {
    expect_error(Bytes{0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20},
                 {"legacy (non-ZIP) PyTorch serialization is not supported"});
  }
  SECTION("truncated archive") {
    Bytes b = fixture("rand-rwkv7-c128-l3-v512-F16.pth");
    b.resize(b.size() / 2);
    expect_error(b, {"end of central directory not found"});
  }
  SECTION("compressed entry") {
    Bytes b = fixture("rand-rwkv7-c128-l3-v512-F16.pth");
    b[find_bytes(b, "PK\x01\x02") + 10] = 8;  // first central entry: data.pkl, method deflate
    expect_error(b, {"data.pkl", "compressed ZIP entry (method 8)", "byte offset 0"});
  }
  SECTION("unsupported callable") {
    Bytes b = fixture("rand-rwkv7-c128-l3-v512-F16.pth");
    b[find_bytes(b, "_rebuild_tensor_v2") + 17] = '9';
    expect_error(b, {"unsupported callable torch._utils._rebuild_tensor_v9", "byte offset"});
  }
  SECTION("unsupported storage type") {
    Bytes b = fixture("rand-rwkv7-c128-l3-v512-F16.pth");
    const size_t p = find_bytes(b, "HalfStorage");
    std::memcpy(&b[p], "Long", 4);
    expect_error(b, {"tensor 'emb.weight'", "unsupported storage type torch.LongStorage"});
  }
  SECTION("pickle that is not a state dict") {
    expect_error(pth({0x80, 0x02, ']', 'q', 0, '.'}, 0),
                 {"not a PyTorch state dict: top-level object is not a dict"});
    expect_error(pth({0x80, 0x02, '}', '(', 'X', 1, 0, 0, 0, 'a', 'K', 1, 'u', '.'}, 0),
                 {"not a PyTorch state dict: entry 'a' is not a tensor"});
  }
  SECTION("bad pickle opcodes") {
    expect_error(pth({0x80, 0x02, 0xff}, 0), {"unsupported opcode 0xff", "byte offset"});
    expect_error(pth({0x80, 0x02, '}', '('}, 0), {"no STOP opcode"});
    expect_error(pth({0x80, 0x02, 'h', 7, '.'}, 0), {"memo entry 7 not defined"});
    expect_error(pth({0x80, 0x02, 's', '.'}, 0), {"stack underflow"});
    // A million nested tuples and a list that contains itself: no recursion, no leak.
    Bytes deep = {0x80, 0x02, ')'};
    deep.insert(deep.end(), 1000000, 0x85);
    deep.push_back('.');
    expect_error(pth(deep, 0), {"top-level object is not a dict"});
    expect_error(pth({0x80, 0x02, ']', 'q', 0, 'h', 0, 'a', '.'}, 0),
                 {"top-level object is not a dict"});
  }
  SECTION("missing storage") {
    expect_error(pth(torch_pickle("x.w", "HalfStorage", 10, 0, {10}, {1}), 0),
                 {"tensor 'x.w'", "storage m/data/0 is missing"});
  }
  SECTION("storage too small") {
    expect_error(pth(torch_pickle("x.w", "FloatStorage", 10, 4, {10}, {1}), 40),
                 {"tensor 'x.w'", "lie outside storage 0"});
    expect_error(pth(torch_pickle("x.w", "FloatStorage", 10, 0, {10}, {1}), 8),
                 {"tensor 'x.w'", "lie outside storage 0"});
  }
  SECTION("non-contiguous strides") {
    expect_error(pth(torch_pickle("x.w", "FloatStorage", 12, 0, {3, 4}, {1, 3}), 48),
                 {"tensor 'x.w'", "non-contiguous tensor (stride (1, 3) for size (3, 4))"});
  }
  SECTION("no data.pkl") {
    expect_error(ai00::test::write_zip({{"m/version", {'3'}}}), {"no <name>/data.pkl"});
  }
}

namespace {

const char* kAllFormats[] = {"rand-rwkv7-c128-l3-v512-FP16.bin", "rand-rwkv7-c128-l3-v512.st",
                             "rand-rwkv7-c128-l3-v512-Q4_0.gguf",
                             "rand-rwkv7-c128-l3-v512-F16.pth"};

std::unique_ptr<ai00::internal::WeightFile> open_bytes(Bytes b, const char* name) {
  return ai00::internal::open_weights(ai00::internal::MappedFile::from_bytes(std::move(b), name));
}

}  // namespace

TEST_CASE("every truncation of every format is a ModelFileError") {
  for (const char* name : kAllFormats) {
    const Bytes good = fixture(name);
    // Dense near the start (headers), sparse through the data.
    std::vector<size_t> cuts;
    for (size_t n = 0; n < 64; ++n) cuts.push_back(n);
    for (size_t n = 64; n < 20000; n = n * 5 / 4) cuts.push_back(n);
    for (size_t k = 1; k < 16; ++k) cuts.push_back(good.size() * k / 16);
    cuts.push_back(good.size() - 1);
    for (size_t cut : cuts) {
      INFO(name << " cut at " << cut);
      Bytes b(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
      CHECK_THROWS_AS(ai00::internal::derive_config(*open_bytes(std::move(b), name)), ai00::internal::ModelFileError);
    }
  }
}

TEST_CASE("byte flips in headers never crash") {
  for (const char* name : kAllFormats) {
    const Bytes good = fixture(name);
    int failures = 0;
    for (size_t pos = 0; pos < std::min<size_t>(good.size(), 3000); pos += 7) {
      Bytes b = good;
      b[pos] ^= static_cast<uint8_t>(0x5a + pos);
      try {
        ai00::internal::derive_config(*open_bytes(std::move(b), name));
      } catch (const ai00::internal::ModelFileError&) {
        ++failures;
      }
      // any other exception type fails the test case
    }
    INFO(name);
    CHECK(failures > 0);
  }
}
