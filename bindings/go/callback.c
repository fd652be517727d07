// Push and step with a Go callback: the C trampoline hands each delta to the exported Go
// function goAi00Delta with the cgo.Handle that user_data carries.
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
