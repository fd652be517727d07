// ai00_model_convert: weight-file conversion through the C ABI (core/model/model_convert.h).
#include <string>

#include "abi_internal.h"
#include "base/error.h"
#include "core/model/model_convert.h"

namespace {

ai00::internal::DType weight_type(int32_t t) {
  using ai00::internal::DType;
  switch (t) {
    case AI00_WEIGHT_F32:
      return DType::F32;
    case AI00_WEIGHT_F16:
      return DType::F16;
    case AI00_WEIGHT_BF16:
      return DType::BF16;
    case AI00_WEIGHT_Q8_0:
      return DType::Q8_0;
    case AI00_WEIGHT_Q4_0:
      return DType::Q4_0;
    case AI00_WEIGHT_Q4_1:
      return DType::Q4_1;
    case AI00_WEIGHT_Q5_0:
      return DType::Q5_0;
    case AI00_WEIGHT_Q5_1:
      return DType::Q5_1;
    default:
      throw ai00::internal::InvalidArgument("ai00_model_convert: unknown weight_type " +
                                            std::to_string(t) + " (expected an ai00_weight_type)");
  }
}

}  // namespace

extern "C" {

AI00_API ai00_status ai00_convert_params_default(ai00_convert_params* out_params) {
  try {
    ai00::internal::abi::require(out_params, "ai00_convert_params_default", "out_params");
    *out_params = ai00_convert_params{};
    out_params->struct_size = sizeof(ai00_convert_params);
    out_params->weight_type = AI00_WEIGHT_F16;
    out_params->file_format = AI00_FILE_GGUF;
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

AI00_API ai00_status ai00_model_convert(const char* path_in, size_t path_in_len,
                                        const char* path_out, size_t path_out_len,
                                        const ai00_convert_params* params) {
  try {
    using namespace ai00::internal;
    const char* fn = "ai00_model_convert";
    abi::require(path_in, fn, "path_in");
    abi::require(path_out, fn, "path_out");
    const std::string in(abi::text_arg(path_in, path_in_len, fn, "path_in"));
    const std::string out(abi::text_arg(path_out, path_out_len, fn, "path_out"));
    ai00_convert_params p{};
    ai00_convert_params_default(&p);
    if (params != nullptr) {
      abi::check_struct_size(params->struct_size, sizeof(ai00_convert_params),
                             sizeof(ai00_convert_params), fn, "ai00_convert_params");
      p = *params;
    }
    ConvertOptions o;
    o.target = weight_type(p.weight_type);
    if (p.file_format == AI00_FILE_GGUF) {
      o.format = OutputFormat::gguf;
    } else if (p.file_format == AI00_FILE_SAFETENSORS) {
      o.format = OutputFormat::safetensors;
    } else {
      throw InvalidArgument("ai00_model_convert: unknown file_format " +
                            std::to_string(p.file_format) + " (expected an ai00_file_format)");
    }
    o.overwrite = p.overwrite != 0;
    if (p.progress != nullptr) {
      ai00_progress_callback cb = p.progress;
      void* ud = p.user_data;
      o.progress = [cb, ud, out](uint64_t done, uint64_t total) {
        if (cb(done, total, ud) != 0) {
          throw Error(ErrorKind::cancelled,
                      out + ": conversion cancelled by the progress callback");
        }
      };
    }
    convert_model(in, out, p.vocab_path != nullptr ? p.vocab_path : "", o);
    return AI00_OK;
  } catch (...) {
    return ai00::internal::abi::handle_exception(nullptr);
  }
}

}  // extern "C"
