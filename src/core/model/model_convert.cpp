// Model conversion (docs/weight-files.md "Writing weight files"): canonical tensors of a loaded
// file -> the output format's names, shapes and types -> weight_writer.
#include "core/model/model_convert.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/dequant.h"
#include "base/error.h"
#include "base/strings.h"
#include "core/model/model.h"
#include "core/tokenizer/tokenizer.h"

namespace ai00::internal {
namespace {

const char* const kMixes[6] = {"att.x_r", "att.x_w", "att.x_k", "att.x_v", "att.x_a", "att.x_g"};

// Per-block canonical suffix -> GGUF name after "blk.{l}." (docs/weight-files.md "GGUF").
const std::vector<std::pair<const char*, const char*>>& gguf_block_names() {
  static const std::vector<std::pair<const char*, const char*>> v = {
      {"ln1.weight", "attn_norm.weight"},
      {"ln1.bias", "attn_norm.bias"},
      {"ln2.weight", "attn_norm_2.weight"},
      {"ln2.bias", "attn_norm_2.bias"},
      {"att.w0", "time_mix_w0.weight"},
      {"att.w1", "time_mix_w1.weight"},
      {"att.w2", "time_mix_w2.weight"},
      {"att.a0", "time_mix_a0.weight"},
      {"att.a1", "time_mix_a1.weight"},
      {"att.a2", "time_mix_a2.weight"},
      {"att.v0", "time_mix_v0.weight"},
      {"att.v1", "time_mix_v1.weight"},
      {"att.v2", "time_mix_v2.weight"},
      {"att.g1", "time_mix_g1.weight"},
      {"att.g2", "time_mix_g2.weight"},
      {"att.k_k", "time_mix_k_k.weight"},
      {"att.k_a", "time_mix_k_a.weight"},
      {"att.r_k", "time_mix_r_k.weight"},
      {"att.receptance.weight", "time_mix_receptance.weight"},
      {"att.key.weight", "time_mix_key.weight"},
      {"att.value.weight", "time_mix_value.weight"},
      {"att.output.weight", "time_mix_output.weight"},
      {"att.ln_x.weight", "time_mix_ln.weight"},
      {"att.ln_x.bias", "time_mix_ln.bias"},
      {"ffn.x_k", "channel_mix_lerp_k.weight"},
      {"ffn.key.weight", "channel_mix_key.weight"},
      {"ffn.value.weight", "channel_mix_value.weight"},
  };
  return v;
}

bool is_lora(const std::string& name) {
  for (const char* s : {".w1", ".w2", ".a1", ".a2", ".v1", ".v2", ".g1", ".g2"}) {
    if (ends_with(name, s)) return true;
  }
  return false;
}

const SourceTensor& need(const SourceSet& src, const std::string& name) {
  auto it = src.find(name);
  if (it == src.end()) throw ModelFileError("convert: missing tensor " + name);
  return it->second;
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// A WriteTensor named `name` of `shape` holding the elements of `s` in order (the shape may
// differ from the source's, e.g. r_k flattened), stored as `type`.
WriteTensor from_source(const std::string& name, std::vector<int64_t> shape, DType type,
                        const SourceTensor& s) {
  WriteTensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = type;
  const int64_t out_row = t.row_len(), src_row = s.shape.back();
  if (s.raw != nullptr && type == s.type && (!dtype_is_quantized(type) || out_row == src_row)) {
    t.raw = s.raw;
    return t;
  }
  const SourceTensor* sp = &s;
  t.rows = [sp, out_row, src_row](int64_t r0, int64_t n, float* out) {
    if (out_row == src_row) return sp->rows(r0, n, out);
    // Element range [r0 * out_row, (r0 + n) * out_row) out of source rows of src_row.
    const int64_t e0 = r0 * out_row, e1 = (r0 + n) * out_row;
    const int64_t s0 = e0 / src_row, s1 = (e1 + src_row - 1) / src_row;
    std::vector<float> tmp(static_cast<size_t>((s1 - s0) * src_row));
    sp->rows(s0, s1 - s0, tmp.data());
    std::memcpy(out, tmp.data() + (e0 - s0 * src_row), static_cast<size_t>(e1 - e0) * 4);
  };
  return t;
}

// The six token-shift mixes of block l as one (6, 1, 1, C) tensor, order r, w, k, v, a, g.
WriteTensor fused_lerp(const std::string& name, const SourceSet& src, int64_t l, int64_t C) {
  WriteTensor t;
  t.name = name;
  t.shape = {6, 1, 1, C};
  t.type = DType::F32;
  std::vector<const SourceTensor*> mixes;
  for (const char* m : kMixes) mixes.push_back(&need(src, block_tensor(l, m)));
  t.rows = [mixes](int64_t r0, int64_t n, float* out) {
    const int64_t C = mixes[0]->shape.back();
    for (int64_t i = 0; i < n; ++i) mixes[static_cast<size_t>(r0 + i)]->rows(0, 1, out + i * C);
  };
  return t;
}

uint32_t llama_ftype(DType t) {
  switch (t) {
    case DType::F32:
      return 0;
    case DType::F16:
      return 1;
    case DType::Q4_0:
      return 2;
    case DType::Q4_1:
      return 3;
    case DType::Q8_0:
      return 7;
    case DType::Q5_0:
      return 8;
    case DType::Q5_1:
      return 9;
    case DType::BF16:
      return 32;
    default:
      return 1;
  }
}

GgufKv kv_u32(const char* key, int64_t v) {
  GgufKv kv{key, {}};
  kv.value.kind = GgufValue::u32;
  kv.value.u = static_cast<uint32_t>(v);
  return kv;
}
GgufKv kv_str(const char* key, const std::string& v) {
  GgufKv kv{key, {}};
  kv.value.kind = GgufValue::str;
  kv.value.s = v;
  return kv;
}

void write_gguf_model(const std::string& path, const ModelConfig& c, const SourceSet& src,
                      const GgufVocab& vocab, const ConvertOptions& o) {
  const DType target = o.target;
  std::vector<WriteTensor> out;
  auto add = [&](const std::string& gname, const std::string& cname) {
    const SourceTensor& s = need(src, cname);
    std::vector<int64_t> shape = s.shape;
    if (ends_with(cname, ".r_k")) shape = {numel(s.shape)};  // llama.cpp flattens r_k
    out.push_back(from_source(gname, shape, output_type(cname, shape, target, o.format), s));
  };
  add("token_embd.weight", "emb.weight");
  add("token_embd_norm.weight", "blocks.0.ln0.weight");
  add("token_embd_norm.bias", "blocks.0.ln0.bias");
  for (int64_t l = 0; l < c.n_layer; ++l) {
    const std::string blk = "blk." + std::to_string(l) + ".";
    for (const auto& [suffix, gname] : gguf_block_names()) {
      std::string cname = block_tensor(l, suffix);
      if (l == 0 &&
          (ends_with(cname, ".v0") || ends_with(cname, ".v1") || ends_with(cname, ".v2"))) {
        // llama.cpp requires block 0's unused value-residual tensors: copies of a0/a1/a2.
        cname = block_tensor(l, ends_with(cname, ".v0")   ? "att.a0"
                                : ends_with(cname, ".v1") ? "att.a1"
                                                          : "att.a2");
      }
      add(blk + gname, cname);
    }
    out.push_back(fused_lerp(blk + "time_mix_lerp_fused.weight", src, l, c.n_embd));
  }
  add("output_norm.weight", "ln_out.weight");
  add("output_norm.bias", "ln_out.bias");
  add("output.weight", "head.weight");

  std::vector<GgufKv> md;
  md.push_back(kv_str("general.architecture", "rwkv7"));
  md.push_back(kv_str("general.name", "rwkv7"));
  md.push_back(kv_u32("general.file_type", llama_ftype(target)));
  md.push_back(kv_u32("rwkv7.context_length", 1048576));
  md.push_back(kv_u32("rwkv7.embedding_length", c.n_embd));
  md.push_back(kv_u32("rwkv7.block_count", c.n_layer));
  md.push_back(kv_u32("rwkv7.feed_forward_length", c.ffn_size));
  GgufKv eps{"rwkv7.attention.layer_norm_epsilon", {}};
  eps.value.kind = GgufValue::f32;
  eps.value.f = 1e-5f;
  md.push_back(eps);
  md.push_back(kv_u32("rwkv7.wkv.head_size", c.head_size));
  md.push_back(kv_u32("rwkv7.attention.decay_lora_rank", c.d_w));
  md.push_back(kv_u32("rwkv7.attention.iclr_lora_rank", c.d_a));
  md.push_back(kv_u32("rwkv7.attention.value_residual_mix_lora_rank", c.d_v > 0 ? c.d_v : c.d_a));
  md.push_back(kv_u32("rwkv7.attention.gate_lora_rank", c.d_g));
  md.push_back(kv_u32("rwkv7.attention.head_count", 0));
  md.push_back(kv_u32("rwkv7.token_shift_count", 2));
  if (!vocab.tokens.empty()) {
    md.push_back(kv_str("tokenizer.ggml.model", "rwkv"));
    GgufKv toks{"tokenizer.ggml.tokens", {}};
    toks.value.kind = GgufValue::str_array;
    toks.value.strings = vocab.tokens;
    md.push_back(std::move(toks));
    GgufKv types{"tokenizer.ggml.token_type", {}};
    types.value.kind = GgufValue::i32_array;
    types.value.ints = vocab.types;
    md.push_back(std::move(types));
    if (vocab.tokens.size() > 261 && vocab.tokens[261] == "\\n\\n") {  // the World vocabulary
      md.push_back(kv_str("tokenizer.chat_template", "rwkv-world"));
      md.push_back(kv_u32("tokenizer.ggml.eot_token_id", 261));
    }
  }
  WriteOptions wo;
  wo.overwrite = o.overwrite;
  wo.progress = o.progress;
  write_gguf(path, md, out, wo);
}

void write_st_model(const std::string& path, const ModelConfig& c, const SourceSet& src,
                    const ConvertOptions& o) {
  std::vector<WriteTensor> out;
  for (const auto& [name, s] : src) {
    if (name == "blocks.0.att.v0" || name == "blocks.0.att.v1" || name == "blocks.0.att.v2") {
      continue;  // unused in block 0 (docs/model.md "Block 0")
    }
    std::vector<int64_t> shape = s.shape;
    // ai00 .st layout: the per-channel mix and bias vectors as (1, 1, C).
    for (const char* v :
         {".x_r", ".x_w", ".x_k", ".x_v", ".x_a", ".x_g", ".w0", ".a0", ".v0", ".k_k", ".k_a"}) {
      if (ends_with(name, v)) shape = {1, 1, numel(s.shape)};
    }
    out.push_back(from_source(name, shape, output_type(name, shape, o.target, o.format), s));
  }
  WriteOptions wo;
  wo.overwrite = o.overwrite;
  wo.progress = o.progress;
  write_safetensors(path, {{"converted_by", "ai00"}}, out, wo);
}

}  // namespace

DType output_type(const std::string& name, const std::vector<int64_t>& shape, DType target,
                  OutputFormat format) {
  if (format == OutputFormat::safetensors) return target;
  // GGUF follows llama.cpp's converter and llama-quantize (docs/weight-files.md "Writing weight
  // files"): vectors, r_k and the decay LoRA stay F32; the other LoRAs take the target when it
  // is a float type or Q8_0, else F16; a matrix whose rows are not whole blocks falls back to F16.
  if (shape.size() < 2 || ends_with(name, ".r_k") || ends_with(name, ".w1") ||
      ends_with(name, ".w2")) {
    return DType::F32;
  }
  const bool quant = dtype_is_quantized(target);
  if (is_lora(name) && quant) return DType::F16;
  if (shape.back() % dtype_block_size(target) != 0) return DType::F16;
  return target;
}

std::string gguf_escape_token(const std::string& bytes) {
  const bool dq = bytes.find('\'') != std::string::npos && bytes.find('"') == std::string::npos;
  const char quote = dq ? '"' : '\'';
  std::string out;
  for (unsigned char ch : bytes) {
    if (ch == '\\' || ch == static_cast<unsigned char>(quote)) {
      out += '\\', out += static_cast<char>(ch);
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch < 0x20 || ch >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out;
}

void write_model(const std::string& path, const ModelConfig& c, const SourceSet& src,
                 const GgufVocab& vocab, const ConvertOptions& options) {
  const DType t = options.target;
  if (t == DType::Q6_K) throw UnsupportedError("convert: Q6_K is not a supported target type");
  if (options.format == OutputFormat::safetensors && dtype_is_quantized(t)) {
    throw UnsupportedError(std::string("convert: safetensors (.st) cannot hold ") + dtype_name(t) +
                           " weights (F32, F16 or BF16; write GGUF for quantized types)");
  }
  if (options.format == OutputFormat::gguf) {
    write_gguf_model(path, c, src, vocab, options);
  } else {
    write_st_model(path, c, src, options);
  }
}

void convert_model(const std::string& in, const std::string& out, const std::string& vocab_path,
                   const ConvertOptions& options) {
  // Check the target before reading a possibly large input.
  if (options.target == DType::Q6_K ||
      (options.format == OutputFormat::safetensors && dtype_is_quantized(options.target))) {
    write_model(out, {}, {}, {}, options);  // throws the UnsupportedError
  }
  ModelParams mp;
  mp.vocab_path = vocab_path;
  mp.pack_weights = false;  // the tensors' raw bytes are copied or dequantized as stored
  auto model = Model::load(in, mp);
  const WeightFile& wf = model->weights();
  SourceSet src;
  for (const TensorView& tv : wf.tensors()) {
    SourceTensor s;
    s.shape = tv.shape;
    s.type = tv.dtype;
    s.raw = tv.data;
    const TensorView* p = &tv;
    s.rows = [p](int64_t r0, int64_t n, float* o) {
      const int64_t len = p->shape.back();
      const size_t rb = dtype_row_bytes(p->dtype, len);
      for (int64_t i = 0; i < n; ++i) {
        dequantize_row(p->dtype, p->data + static_cast<size_t>(r0 + i) * rb, len, o + i * len);
      }
    };
    src.emplace(tv.name, std::move(s));
  }
  GgufVocab vocab;
  if (!wf.gguf_tokens.empty()) {
    vocab.tokens = wf.gguf_tokens;
    vocab.types = wf.gguf_token_types;
  } else if (const Tokenizer* tok = model->tokenizer()) {
    constexpr int32_t kNormal = 1, kControl = 3, kUnused = 5;  // llama.cpp token types
    const size_t V = static_cast<size_t>(model->config().vocab);
    for (size_t i = 0; i < V; ++i) {
      const std::string_view b = tok->token_bytes(static_cast<uint32_t>(i));
      if (i == 0) {
        vocab.tokens.push_back("<s>"), vocab.types.push_back(kControl);
      } else if (b.empty()) {
        vocab.tokens.push_back("[PAD" + std::to_string(i) + "]"), vocab.types.push_back(kUnused);
      } else {
        vocab.tokens.push_back(gguf_escape_token(std::string(b))), vocab.types.push_back(kNormal);
      }
    }
  }
  write_model(out, model->config(), src, vocab, options);
}

}  // namespace ai00::internal
