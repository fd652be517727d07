/* ai00 C ABI, part of ai00/ai00.h (include that header; this one also compiles alone).
 * Versions, status codes, library-wide calls and the opaque handles the other parts use.
 * The rules of every function (status returns, outputs, errors, threads) are in ai00/ai00.h. */
#ifndef AI00_C_BASE_H
#define AI00_C_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every exported function carries AI00_API: default visibility on ELF/Mach-O (everything else
 * in libai00 is hidden), dllexport while building the DLL and dllimport for its users. Define
 * AI00_STATIC when linking the static library on Windows. */
#if defined(_WIN32) && !defined(AI00_STATIC)
#if defined(AI00_BUILDING_LIBRARY)
#define AI00_API __declspec(dllexport)
#else
#define AI00_API __declspec(dllimport)
#endif
#else
#define AI00_API __attribute__((visibility("default")))
#endif

/* ============================================================================================
 * Versions
 * ========================================================================================== */

/* Version of this header and of the library built from it: major * 10000 + minor * 100 + patch.
 * Struct fields say the minor version that appended them ("Appended in 0.2"); a library whose
 * ai00_version_number is older than that leaves them at their defaults (struct_size rules). */
#define AI00_VERSION_MAJOR 0
#define AI00_VERSION_MINOR 5
#define AI00_VERSION_PATCH 0
#define AI00_VERSION_NUMBER \
  (AI00_VERSION_MAJOR * 10000 + AI00_VERSION_MINOR * 100 + AI00_VERSION_PATCH)

/* Version of the binary interface: bumped only by an incompatible change (a removed function or
 * a changed struct layout), equal to the SOVERSION of libai00. A changed signature gets a new
 * name (`..._v2`) instead, so this stays 0 for as long as possible. */
#define AI00_ABI_VERSION 0

/* Pass as a string length to mean "NUL-terminated". */
#define AI00_NUL_TERMINATED ((size_t)-1)

/* ============================================================================================
 * Status codes
 * ========================================================================================== */

/* 0 is success; every error is negative. Values are never renumbered; new ones are appended. */
typedef enum ai00_status {
  /* Success. */
  AI00_OK = 0,
  /* A NULL handle or pointer, a bad struct_size, an out-of-range value (the message names the
   * parameter or field and its value), or a token id outside the vocabulary. */
  AI00_ERR_INVALID_ARGUMENT = -1,
  /* The operating system refused to open, read or write a file; the message has the path. */
  AI00_ERR_IO = -2,
  /* A weight, state or vocabulary file is malformed (the message names the file and the byte
   * offset or tensor), or a serialized State is corrupt. */
  AI00_ERR_MODEL_FILE = -3,
  /* A conversation, tool list or chat-format input is malformed (the message has the JSON
   * pointer of the offending field). */
  AI00_ERR_FORMAT = -4,
  /* A grammar or JSON Schema is malformed or unsupported (the message has line:column or the
   * JSON pointer). */
  AI00_ERR_GRAMMAR = -5,
  /* Objects that do not belong together, e.g. a State serialized for another model. */
  AI00_ERR_MISMATCH = -6,
  /* Valid input the library does not handle (an image part, a tensor type, an ISA this CPU
   * cannot run). */
  AI00_ERR_UNSUPPORTED = -7,
  /* The operation was cancelled (ai00_generator_cancel or a callback returning non-zero). */
  AI00_ERR_CANCELLED = -8,
  /* A caller buffer is too small (or NULL); the needed size was written to the size output. */
  AI00_ERR_BUFFER_TOO_SMALL = -9,
  /* An allocation failed. */
  AI00_ERR_OUT_OF_MEMORY = -10,
  /* A bug in ai00 (a broken invariant); the message says where. Please report it. */
  AI00_ERR_INTERNAL = -99
} ai00_status;

/* The library's version as AI00_VERSION_NUMBER encodes it; compare with the header's to detect
 * a header/library skew. Any thread. */
AI00_API ai00_status ai00_version_number(uint32_t* out_version);

/* The library's AI00_ABI_VERSION. Any thread. */
AI00_API ai00_status ai00_abi_version(uint32_t* out_abi_version);

/* What this build can do on this CPU, as one JSON object, before anything is loaded:
 * {"isa": the kernel ISA a load without forced_isa would choose (AI00_FORCE_ISA honoured; null
 * when that variable names an ISA this CPU cannot run), "isa_compiled": [names built in, best
 * first], "isa_supported": [those this CPU and OS can run], "int8_dot": true when that ISA has a
 * native byte dot product (AVX-VNNI, AVX-512 VNNI; every ISA has a portable int8 path),
 * "bf16_dot": true when it has a native BF16 dot product, "hardware_threads": the OS's count
 * (0 if unknown), "weight_types": [tensor types ai00_model_load reads], "convert_weight_types":
 * [ai00_weight_type names ai00_model_convert writes], "file_formats": [containers loaded],
 * "chat_formats": [names for ai00_chat_template_new], "grammar": [grammar inputs: "kbnf",
 * "json_schema", "tools"]}; keys may be added later. Versions have ai00_version_number and
 * ai00_abi_version, limits (max_threads, ...) ai00_limits_get. Two-call idiom into the caller's
 * buffer (no NUL written): with `json` NULL or capacity too small the size goes to *out_len and
 * the call returns AI00_ERR_BUFFER_TOO_SMALL. Any thread. */
AI00_API ai00_status ai00_capabilities_json(size_t* out_len, char* json, size_t capacity);

/* Static, NUL-terminated English text for a status; never NULL, never freed by the caller.
 * An unknown value gives "unknown status". Any thread. */
AI00_API const char* ai00_status_string(ai00_status status);

/* The message of the last failed call made by the calling thread, NUL-terminated UTF-8; "" if
 * none failed yet. Owned by the library, valid until the calling thread's next ai00_* call that
 * fails. A successful call does not clear it. Never NULL. */
AI00_API const char* ai00_last_error(void);

/* ============================================================================================
 * Opaque handles
 * ========================================================================================== */

/* Weights, configuration, tokenizer and kernels of one model. Immutable and shareable. */
typedef struct ai00_model ai00_model;
/* One sequence: the recurrent state plus the sampler state (seed, RNG, penalties). */
typedef struct ai00_state ai00_state;
/* A chat format ("ai00-v1", "ai00-v0", "goose", "openchatml") and its last rendered prompt. */
typedef struct ai00_chat_template ai00_chat_template;
/* A compiled grammar bound to one model's vocabulary. Immutable and shareable. */
typedef struct ai00_grammar ai00_grammar;
/* One generation turn on one State (declared with its functions below). */
typedef struct ai00_generator ai00_generator;
/* Many generators of one model advanced together, one pass over the weights per step. */
typedef struct ai00_batch ai00_batch;

#ifdef __cplusplus
}
#endif

#endif /* AI00_C_BASE_H */
