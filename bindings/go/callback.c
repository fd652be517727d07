// Push and step with a Go callback: the C trampoline hands each delta to the exported Go
// function goAi00Delta with the cgo.Handle that user_data carries. Conversion progress goes the
// same way to goAi00Progress, for conversions and model loads.
#include <ai00/ai00.h>
#include <stdint.h>

#include "_cgo_export.h"

static int32_t ai00go_trampoline(const ai00_delta* delta, void* user_data) {
  return goAi00Delta((ai00_delta*)delta, (uintptr_t)user_data);
}

ai00_status ai00go_generator_run(int32_t* out_finish_reason, ai00_generator* gen,
                                 uintptr_t handle) {
  return ai00_generator_run(out_finish_reason, gen, handle ? ai00go_trampoline : NULL,
                            (void*)handle);
}

ai00_status ai00go_generator_step(int32_t* out_finished, ai00_generator* gen, uint32_t max_tokens,
                                  uintptr_t handle) {
  return ai00_generator_step(out_finished, gen, max_tokens, handle ? ai00go_trampoline : NULL,
                             (void*)handle);
}

static int32_t ai00go_progress_trampoline(uint64_t done, uint64_t total, void* user_data) {
  return goAi00Progress(done, total, (uintptr_t)user_data);
}

ai00_status ai00go_model_convert(const char* path_in, size_t path_in_len, const char* path_out,
                                 size_t path_out_len, ai00_convert_params* params,
                                 uintptr_t handle) {
  params->progress = handle ? ai00go_progress_trampoline : NULL;
  params->user_data = (void*)handle;
  return ai00_model_convert(path_in, path_in_len, path_out, path_out_len, params);
}

ai00_status ai00go_model_load(ai00_model** out_model, const char* path, size_t path_len,
                              ai00_model_params* params, uintptr_t handle) {
  params->progress = handle ? ai00go_progress_trampoline : NULL;
  params->progress_user_data = (void*)handle;
  return ai00_model_load(out_model, path, path_len, params);
}
