// ai00_model_info_json: everything `ai00 info` reports about a loaded model (format, shape, LoRA
// ranks, tensor dtypes, chosen ISA, state size) as one JSON object, for tools and bindings that
// want more than ai00_model_get_info.
#include <cstring>
#include <map>
#include <string>

#include "abi_internal.h"
#include "base/json_escape.h"
#include "core/model/model.h"
#include "core/tokenizer/tokenizer.h"
#include "core/weights/weights.h"
#include "cpu_kernels/kernels.h"

namespace {

std::string quoted(std::string_view s) {
  std::string out = "\"";
  ai00::internal::append_json_escaped(out, s);
  return out + "\"";
}

// `"key": value` pairs joined by ", " (the layout `ai00 info` has always printed).
class ObjectWriter {
 public:
  void add(const char* key, const std::string& raw_value) {
    text_ += text_.size() > 1 ? ", " : "";
    text_ += quoted(key) + ": " + raw_value;
  }
  void add(const char* key, int64_t v) { add(key, std::to_string(v)); }
  std::string close() { return text_ + "}"; }

 private:
  std::string text_ = "{";
};

std::string describe(const ai00::internal::Model& model) {
  const ai00::internal::ModelConfig& c = model.config();
  std::map<std::string, int> dtypes;
  uint64_t weight_bytes = 0;
  for (const ai00::internal::TensorView& t : model.weights().tensors()) {
    ++dtypes[ai00::internal::dtype_name(t.dtype)];
    weight_bytes += t.nbytes;
  }
  ObjectWriter lora, dt, o;
  lora.add("w", c.d_w);
  lora.add("a", c.d_a);
  lora.add("v", c.d_v);
  lora.add("g", c.d_g);
  for (const auto& [name, count] : dtypes) dt.add(name.c_str(), count);
  o.add("path", quoted(model.weights().path));
  o.add("format", quoted(ai00::internal::weight_format_name(model.weights().format)));
  o.add("n_embd", c.n_embd);
  o.add("n_layer", c.n_layer);
  o.add("n_head", c.n_head);
  o.add("head_size", c.head_size);
  o.add("ffn_size", c.ffn_size);
  o.add("vocab_size", c.vocab);
  o.add("lora_ranks", lora.close());
  o.add("dtypes", dt.close());
  o.add("weight_bytes", std::to_string(weight_bytes));
  o.add("isa", quoted(model.kernels().name));
  o.add("state_floats", c.state_floats());
  o.add("state_bytes", c.state_floats() * 4);
  const ai00::internal::Tokenizer* tok = model.tokenizer();
  o.add("tokenizer_vocab", tok ? std::to_string(tok->vocab_size()) : std::string("null"));
  o.add("activations", quoted(model.fp32_activations() ? "exact" : "dot"));
  return o.close();
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_model_info_json(size_t* out_len, char* json, size_t capacity,
                                          const ai00_model* model) {
  ai00::internal::abi::ErrorSlot* slot = model ? &model->error : nullptr;
  try {
    const char* fn = "ai00_model_info_json";
    ai00::internal::abi::require(out_len, fn, "out_len");
    ai00::internal::abi::require(model, fn, "model");
    const std::string s = describe(*model->model);
    if (ai00_status st = ai00::internal::abi::check_capacity(slot, out_len, s.size(), json,
                                                             capacity, fn, "the JSON");
        st != AI00_OK)
      return st;
    std::memcpy(json, s.data(), s.size());
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(slot);
  }
}

}  // extern "C"
