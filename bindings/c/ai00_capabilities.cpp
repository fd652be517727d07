// ai00_capabilities_json: what this build can do on this CPU (kernel ISAs, dot-product paths,
// weight types and containers, chat formats, grammar inputs), for a host choosing a model file or
// showing a diagnostics page before anything is loaded. Versions (ai00_version_number,
// ai00_abi_version) and resource limits (ai00_limits_get) keep their own calls.
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "abi_internal.h"
#include "base/dtype.h"
#include "base/json_escape.h"
#include "cpu_kernels/kernels.h"
#include "format/format.h"

namespace {

std::string quoted(std::string_view s) {
  std::string out = "\"";
  ai00::internal::append_json_escaped(out, s);
  return out + "\"";
}

std::string array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + quoted(items[i]);
  return out + "]";
}

std::string describe() {
  namespace cpu = ai00::internal::cpu;
  using ai00::internal::DType;
  size_t n = 0;
  const cpu::KernelTable* const* tables = cpu::all_kernel_tables(&n);
  std::vector<std::string> compiled, supported;
  for (size_t i = 0; i < n; ++i) {
    compiled.push_back(tables[i]->name);
    if (cpu::isa_supported(tables[i]->name)) supported.push_back(tables[i]->name);
  }
  // The ISA a load without forced_isa would choose (AI00_FORCE_ISA included); null when that
  // variable names an ISA this CPU cannot run, which the load would refuse.
  std::string err;
  const cpu::KernelTable* chosen = cpu::select_kernels("", &err);
  // Native byte dot products are the VNNI tables' (every table has a portable int8 path).
  const bool int8 = chosen != nullptr && std::strstr(chosen->name, "vnni") != nullptr;
  const bool bf16 = chosen != nullptr && chosen->matmul_bf16 != nullptr;
  std::vector<std::string> load_types;
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q4_0, DType::Q4_1, DType::Q5_0,
                  DType::Q5_1, DType::Q8_0, DType::Q6_K})
    load_types.push_back(ai00::internal::dtype_name(t));
  std::string s = "{";
  s += "\"isa\": " + (chosen ? quoted(chosen->name) : std::string("null"));
  s += ", \"isa_compiled\": " + array(compiled);
  s += ", \"isa_supported\": " + array(supported);
  s += std::string(", \"int8_dot\": ") + (int8 ? "true" : "false");
  s += std::string(", \"bf16_dot\": ") + (bf16 ? "true" : "false");
  s += ", \"hardware_threads\": " + std::to_string(std::thread::hardware_concurrency());
  s += ", \"weight_types\": " + array(load_types);
  // ai00_weight_type order; ai00_model_convert writes these.
  s += ", \"convert_weight_types\": " +
       array({"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1"});
  s += ", \"file_formats\": " + array({"gguf", "safetensors", "rwkv.cpp", "pth"});
  s += ", \"chat_formats\": " + array(ai00::internal::format::format_names());
  s += ", \"grammar\": " + array({"kbnf", "json_schema", "tools"});
  return s + "}";
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_capabilities_json(size_t* out_len, char* json, size_t capacity) {
  try {
    const char* fn = "ai00_capabilities_json";
    ai00::internal::abi::require(out_len, fn, "out_len");
    const std::string s = describe();
    if (ai00_status st = ai00::internal::abi::check_capacity(nullptr, out_len, s.size(), json,
                                                             capacity, fn, "the JSON");
        st != AI00_OK)
      return st;
    std::memcpy(json, s.data(), s.size());
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

}  // extern "C"
