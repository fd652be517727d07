// derive_config: dims from shapes, and clear errors for missing/misshapen tensors and
// out-of-scope variants. Bad models are built by editing the views of a real fixture.
#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "base/error.h"
#include "core/model/model_config.h"
#include "core/weights/weights.h"
#include "fixtures.h"

using ai00::internal::TensorView;
using ai00::internal::WeightFile;

namespace {

std::unique_ptr<WeightFile> rand_model() {
  return ai00::internal::open_weights(ai00::test::shared_path("models/rand-rwkv7-c128-l3-v512-FP32.bin"));
}

// A WeightFile with the views of `src` (which must outlive it), each passed through `edit`
// (return false to drop the tensor).
std::unique_ptr<WeightFile> edited(const WeightFile& src,
                                   const std::function<bool(TensorView&)>& edit) {
  auto wf = std::make_unique<WeightFile>();
  wf->path = "edited.bin";
  wf->format = src.format;
  wf->file = src.file;
  for (TensorView t : src.tensors()) {
    if (edit(t)) wf->add(t);
  }
  return wf;
}

std::string config_error(const WeightFile& wf) {
  try {
    ai00::internal::derive_config(wf);
  } catch (const ai00::internal::ModelFileError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("derive_config reads every dimension from shapes") {
  auto src = rand_model();
  ai00::internal::ModelConfig m = ai00::internal::derive_config(*src);
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
  CHECK(ai00::internal::block_tensor(3, "att.key.weight") == "blocks.3.att.key.weight");
}

TEST_CASE("a single-block model has no value-residual LoRA") {
  auto src = rand_model();
  auto wf = edited(*src, [](TensorView& t) {
    return t.name.compare(0, 9, "blocks.1.") != 0 && t.name.compare(0, 9, "blocks.2.") != 0;
  });
  ai00::internal::ModelConfig m = ai00::internal::derive_config(*wf);
  CHECK(m.n_layer == 1);
  CHECK(m.d_v == 0);
}

TEST_CASE("derive_config: missing tensor") {
  auto src = rand_model();
  auto wf = edited(*src, [](TensorView& t) { return t.name != "blocks.2.att.key.weight"; });
  const std::string msg = config_error(*wf);
  CHECK(msg == "edited.bin: missing tensor blocks.2.att.key.weight (expected shape (128, 128))");
}

TEST_CASE("derive_config: wrong shape names expected and found") {
  auto src = rand_model();
  auto wf = edited(*src, [](TensorView& t) {
    if (t.name == "blocks.1.ffn.value.weight") t.shape = {256, 256};
    return true;
  });
  CHECK(
      config_error(*wf) ==
      "edited.bin: tensor blocks.1.ffn.value.weight: expected shape (128, 512), found (256, 256)");
  auto wf2 = edited(*src, [](TensorView& t) {
    if (t.name == "blocks.2.att.a2") t.shape = {48, 128};  // the LoRA in the wrong orientation
    return true;
  });
  CHECK(config_error(*wf2) ==
        "edited.bin: tensor blocks.2.att.a2: expected shape (128, 48), found (48, 128)");
}

TEST_CASE("derive_config: r_k inconsistent with C") {
  auto src = rand_model();
  auto wf = edited(*src, [](TensorView& t) {
    if (t.name == "blocks.0.att.r_k") t.shape = {2, 32};
    return true;
  });
  CHECK(config_error(*wf).find("blocks.0.att.r_k: shape (2, 32) does not give H*N = C = 128") !=
        std::string::npos);
}

TEST_CASE("derive_config: gap in the blocks") {
  auto src = rand_model();
  auto wf = edited(*src, [](TensorView& t) { return t.name != "blocks.1.ln1.weight"; });
  CHECK(config_error(*wf).find("belongs to block 1 but blocks.1.ln1.weight is missing") !=
        std::string::npos);
}

TEST_CASE("derive_config: quantized vector is rejected") {
  auto src = rand_model();
  auto wf = edited(*src, [](TensorView& t) {
    if (t.name == "blocks.0.att.k_k") t.dtype = ai00::internal::DType::Q8_0;
    return true;
  });
  CHECK(config_error(*wf).find("blocks.0.att.k_k: vector stored as Q8_0") != std::string::npos);
}

TEST_CASE("derive_config: out-of-scope variants") {
  auto src = rand_model();
  auto deep = edited(*src, [](TensorView& t) {
    if (t.name == "blocks.1.ffn.x_k") t.name = "blocks.1.ffn.s_emb.weight";
    return true;
  });
  CHECK(config_error(*deep).find("blocks.1.ffn.s_emb.weight: RWKV-7 variant with DeepEmbed") !=
        std::string::npos);
  auto v6 = edited(*src, [](TensorView& t) {
    if (t.name == "blocks.0.att.r_k") t.name = "blocks.0.att.time_faaaa";
    return true;
  });
  CHECK(config_error(*v6).find("RWKV-4/5/6 model") != std::string::npos);
  auto other = edited(*src, [](TensorView& t) { return t.name.find(".r_k") == std::string::npos; });
  CHECK(config_error(*other) == "edited.bin: missing tensor blocks.0.att.r_k: not an RWKV-7 model");
  auto arwkv = edited(*src, [](TensorView&) { return true; });
  arwkv->metadata["general.architecture"] = "arwkv7";
  CHECK(config_error(*arwkv).find("unsupported architecture 'arwkv7'") != std::string::npos);
}

TEST_CASE("WeightFile: get names the missing tensor, add rejects duplicates") {
  auto src = rand_model();
  CHECK_THROWS_WITH(src->get("nope.weight"), Catch::Contains("missing tensor nope.weight"));
  WeightFile wf;
  wf.path = "x";
  TensorView t;
  t.name = "a";
  t.shape = {1};
  wf.add(t);
  CHECK_THROWS_AS(wf.add(t), ai00::internal::ModelFileError);
  CHECK(ai00::internal::dtype_row_bytes(ai00::internal::DType::Q6_K, 512) == 420);
  CHECK_THROWS_AS(ai00::internal::dtype_row_bytes(ai00::internal::DType::Q8_0, 33), ai00::internal::ModelFileError);
  CHECK(std::string(ai00::internal::dtype_name(ai00::internal::DType::BF16)) == "BF16");
  CHECK(std::string(ai00::internal::weight_format_name(ai00::internal::WeightFormat::pytorch_pth)) == "pth");
}
