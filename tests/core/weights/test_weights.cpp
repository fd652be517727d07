// Loader tests over every fixture model: dims, cross-format values, zero-copy views, GGUF vocab.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "core/model/model_config.h"
#include "core/weights/weights.h"
#include "fixtures.h"
#include "weights_test_util.h"

using ai00::internal::DType;
using ai00::internal::TensorView;
using ai00::internal::WeightFile;
using ai00::test::shared_path;
using ai00::test::to_f32;

namespace {

const char* kTiny[] = {"tiny-rwkv-7v0-834K-FP32.bin", "tiny-rwkv-7v0-834K-FP16.bin",
                       "tiny-rwkv-7v0-834K-Q5_0.bin", "tiny-rwkv-7v0-834K-Q5_1.bin",
                       "tiny-rwkv-7v0-834K-BF16.pth"};
const char* kRand[] = {"rand-rwkv7-c128-l3-v512-FP32.bin",  "rand-rwkv7-c128-l3-v512-FP16.bin",
                       "rand-rwkv7-c128-l3-v512.st",        "rand-rwkv7-c128-l3-v512-F16.gguf",
                       "rand-rwkv7-c128-l3-v512-Q8_0.gguf", "rand-rwkv7-c128-l3-v512-Q4_0.gguf",
                       "rand-rwkv7-c128-l3-v512-F16.pth"};

std::unique_ptr<WeightFile> open_model(const char* name) {
  return ai00::internal::open_weights(shared_path(std::string("models/") + name));
}

// max |a - b| over all elements of two tensors of equal shape.
double tensor_diff(const TensorView& a, const TensorView& b) {
  REQUIRE(a.shape == b.shape);
  auto x = to_f32(a), y = to_f32(b);
  return ai00::test::max_abs_diff(x.data(), y.data(), x.size());
}

// Compares every canonical tensor of `ref` with the same tensor of `other`: float tensors must
// agree within `float_tol`; tensors stored quantized in `other` within their quantization error.
// Returns the max difference over the float tensors.
double compare_all(const WeightFile& ref, const WeightFile& other, double float_tol) {
  REQUIRE(ref.tensors().size() == other.tensors().size());
  double worst = 0;
  for (const TensorView& t : ref.tensors()) {
    INFO(other.path << " tensor " << t.name);
    const TensorView* o = other.find(t.name);
    REQUIRE(o != nullptr);
    const double d = tensor_diff(t, *o);
    if (ai00::internal::dtype_block_size(o->dtype) > 1) {
      double max_abs = 0;
      for (float v : to_f32(t)) max_abs = std::max(max_abs, double(std::fabs(v)));
      CHECK(d <= max_abs * ai00::test::quant_rel_error(o->dtype));
      CHECK(d > 0);  // the quantized tensor really is a different encoding
    } else {
      CHECK(d <= float_tol);
      worst = std::max(worst, d);
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("tiny fixtures open with the documented dims") {
  for (const char* name : kTiny) {
    INFO(name);
    auto wf = open_model(name);
    ai00::internal::ModelConfig m = ai00::internal::derive_config(*wf);
    CHECK(m.n_embd == 64);
    CHECK(m.n_layer == 12);
    CHECK(m.n_head == 1);
    CHECK(m.head_size == 64);
    CHECK(m.ffn_size == 256);
    CHECK(m.vocab == 256);
    CHECK(m.d_w == 32);
    CHECK(m.d_a == 32);
    CHECK(m.d_v == 32);
    CHECK(m.d_g == 32);
    CHECK(wf->find("blocks.0.att.v1") == nullptr);
    CHECK(wf->find("blocks.0.att.x_rwkvag") == nullptr);
  }
}

TEST_CASE("rand fixtures open with the documented dims") {
  for (const char* name : kRand) {
    INFO(name);
    auto wf = open_model(name);
    ai00::internal::ModelConfig m = ai00::internal::derive_config(*wf);
    CHECK(m.n_embd == 128);
    CHECK(m.n_layer == 3);
    CHECK(m.n_head == 2);
    CHECK(m.head_size == 64);
    CHECK(m.ffn_size == 512);
    CHECK(m.vocab == 512);
    CHECK(m.d_w == 32);
    CHECK(m.d_a == 48);
    CHECK(m.d_v == 16);
    CHECK(m.d_g == 64);
    CHECK(m.state_floats() == 3 * 128 * 66);
    CHECK(wf->find("blocks.0.att.v0") == nullptr);
  }
}

TEST_CASE("formats are recognised from content") {
  CHECK(open_model(kRand[0])->format == ai00::internal::WeightFormat::rwkv_cpp_bin);
  CHECK(open_model(kRand[2])->format == ai00::internal::WeightFormat::safetensors);
  CHECK(open_model(kRand[3])->format == ai00::internal::WeightFormat::gguf);
  CHECK(open_model(kRand[6])->format == ai00::internal::WeightFormat::pytorch_pth);
}

TEST_CASE("tiny model: every format holds the same values") {
  auto ref = open_model(kTiny[0]);
  // bf16 -> fp16 is exact except for values below the fp16 normal range (|x| < 6.1e-5), which
  // round to the fp16 subnormal grid (step 2^-24): at most 2^-25 off.
  CHECK(compare_all(*ref, *open_model(kTiny[1]), std::ldexp(1.0, -25)) > 0);
  CHECK(compare_all(*ref, *open_model(kTiny[4]), 0) == 0.0);  // the bf16 .pth is exact
  // Q5_0/Q5_1: the six big matrices per layer within half a 5-bit step; the rest exact.
  CHECK(compare_all(*ref, *open_model(kTiny[2]), 0) == 0.0);
  CHECK(compare_all(*ref, *open_model(kTiny[3]), 0) == 0.0);
}

TEST_CASE("rand model: every format holds the same values") {
  auto ref = open_model(kRand[0]);
  for (int i : {1, 2, 3, 4, 5, 6}) {
    INFO(kRand[i]);
    CHECK(compare_all(*ref, *open_model(kRand[i]), 0) == 0.0);
  }
}

TEST_CASE("stored dtypes are kept: quantized matrices are not converted") {
  auto q8 = open_model(kRand[4]);
  CHECK(q8->get("blocks.1.att.key.weight").dtype == DType::Q8_0);
  CHECK(q8->get("head.weight").dtype == DType::Q8_0);
  CHECK(q8->get("emb.weight").dtype == DType::Q8_0);
  CHECK(q8->get("blocks.1.att.w1").dtype == DType::F32);
  CHECK(q8->get("blocks.1.att.a1").dtype == DType::F16);
  CHECK(q8->get("blocks.1.att.key.weight").nbytes == 128 / 32 * 34 * 128);
  CHECK(open_model(kRand[5])->get("blocks.2.ffn.value.weight").dtype == DType::Q4_0);
  auto q5 = open_model(kTiny[2]);
  CHECK(q5->get("blocks.0.att.receptance.weight").dtype == DType::Q5_0);
  CHECK(q5->get("emb.weight").dtype == DType::F32);  // quantized from the FP32 file
  CHECK(open_model(kTiny[3])->get("blocks.3.ffn.key.weight").dtype == DType::Q5_1);
  CHECK(open_model(kTiny[4])->get("blocks.3.ffn.key.weight").dtype == DType::BF16);
  CHECK(open_model(kRand[2])->get("blocks.0.att.w0").dtype == DType::F16);
}

TEST_CASE("canonical shapes: squeezed vectors, r_k (H, N), Linear LoRAs, split mixes") {
  for (const char* name : {kRand[0], kRand[2], kRand[3], kRand[6]}) {
    INFO(name);
    auto wf = open_model(name);
    CHECK(wf->get("blocks.1.att.x_g").shape == std::vector<int64_t>{128});
    CHECK(wf->get("blocks.1.att.w0").shape == std::vector<int64_t>{128});
    CHECK(wf->get("blocks.1.ffn.x_k").shape == std::vector<int64_t>{128});
    CHECK(wf->get("blocks.1.att.r_k").shape == std::vector<int64_t>{2, 64});
    CHECK(wf->get("blocks.1.att.w1").shape == std::vector<int64_t>{32, 128});
    CHECK(wf->get("blocks.1.att.a2").shape == std::vector<int64_t>{128, 48});
    CHECK(wf->get("blocks.1.att.v1").shape == std::vector<int64_t>{16, 128});
    CHECK(wf->get("blocks.1.att.g2").shape == std::vector<int64_t>{128, 64});
    CHECK(wf->get("emb.weight").shape == std::vector<int64_t>{512, 128});
    CHECK(wf->get("blocks.0.att.w1").shape_string() == "(32, 128)");
  }
}

namespace {

bool inside(const WeightFile& wf, const uint8_t* p) {
  const uint8_t* b = wf.file->data();
  return p >= b && p < b + wf.file->size();
}

}  // namespace

TEST_CASE("big matrices are zero-copy views into the mapped file") {
  for (const char* name : {kRand[0], kRand[2], kRand[3], kRand[4], kRand[6], kTiny[4]}) {
    INFO(name);
    auto wf = open_model(name);
    CHECK(wf->file->is_mapped());
    const TensorView& emb = wf->get("emb.weight");
    CHECK(inside(*wf, emb.data));
    CHECK(emb.data == wf->file->data() + emb.file_offset);
    CHECK(inside(*wf, wf->get("blocks.2.att.key.weight").data));
    CHECK(inside(*wf, wf->get("head.weight").data));
  }
  // Fused mixes become views into the fused tensor, not copies.
  for (const char* name : {kRand[0], kRand[3]}) {
    auto wf = open_model(name);
    const TensorView& xr = wf->get("blocks.1.att.x_r");
    const TensorView& xg = wf->get("blocks.1.att.x_g");
    CHECK(inside(*wf, xr.data));
    CHECK(xg.data == xr.data + 5 * 128 * 4);
  }
  // Only the .pth LoRAs are transposed into owned storage.
  CHECK(!inside(*open_model(kRand[6]), open_model(kRand[6])->get("blocks.1.att.w1").data));
  auto bin = open_model(kRand[0]);
  CHECK(inside(*bin, bin->get("blocks.1.att.w1").data));
}

TEST_CASE("GGUF exposes its vocabulary and metadata") {
  auto wf = open_model(kRand[3]);
  REQUIRE(wf->gguf_tokens.size() == 512);
  CHECK(wf->gguf_tokens[0] == "<s>");
  CHECK(wf->gguf_token_types.size() == 512);
  CHECK(wf->gguf_token_types[0] == 3);  // CONTROL
  CHECK(wf->metadata.at("general.architecture") == "rwkv7");
  CHECK(wf->metadata.at("rwkv7.block_count") == "3");
  CHECK(wf->metadata.at("rwkv7.wkv.head_size") == "64");
  CHECK(wf->get("blocks.1.att.key.weight").stored_name == "blk.1.time_mix_key.weight");
  CHECK(open_model(kRand[0])->gguf_tokens.empty());
}

TEST_CASE("plain BlinkDL safetensors (LoRA (C, D), F32, (1,1,C) vectors) loads canonically") {
  auto ref = open_model(kRand[0]);
  std::vector<ai00::test::StTensor> ts;
  for (const TensorView& t : ref->tensors()) {
    ai00::test::StTensor s{t.name, "F32", t.shape, {}};
    std::vector<float> v = to_f32(t);
    const bool lora = t.name.size() > 2 && t.name.find(".att.") != std::string::npos &&
                      t.name.size() == t.name.find(".att.") + 7 &&
                      (t.name.back() == '1' || t.name.back() == '2');
    if (lora) {  // write the PyTorch orientation (transpose of Linear)
      const size_t r = t.shape[0], c = t.shape[1];
      std::vector<float> tr(v.size());
      for (size_t i = 0; i < r; ++i)
        for (size_t j = 0; j < c; ++j) tr[j * r + i] = v[i * c + j];
      v = tr;
      s.shape = {t.shape[1], t.shape[0]};
    } else if (t.shape.size() == 1) {
      s.shape = {1, 1, t.shape[0]};
    }
    s.bytes.resize(v.size() * 4);
    std::memcpy(s.bytes.data(), v.data(), s.bytes.size());
    ts.push_back(std::move(s));
  }
  const std::string path = ai00::test::temp_dir() + "/blinkdl.safetensors";
  ai00::test::write_bytes(path, ai00::test::write_safetensors(ts));
  auto wf = ai00::internal::open_weights(path);
  CHECK(wf->format == ai00::internal::WeightFormat::safetensors);
  CHECK(wf->get("blocks.1.att.w1").shape == std::vector<int64_t>{32, 128});
  CHECK(wf->get("blocks.1.att.x_r").shape == std::vector<int64_t>{128});
  CHECK(wf->metadata.at("format") == "pt");
  CHECK(compare_all(*ref, *wf, 0) == 0.0);
  CHECK(ai00::internal::derive_config(*wf).d_a == 48);
}
