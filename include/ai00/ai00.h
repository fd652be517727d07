/* ai00 — the C ABI.
 *
 * This header is the whole binary interface of libai00: opaque handles, ai00_status return
 * codes, versioned parameter structs and callbacks with user_data. No C++ type crosses it, so
 * one build of the library serves every compiler and language (docs/ARCHITECTURE.md section 1).
 *
 * Rules that hold for every function declared here:
 *  - it returns an ai00_status; 0 is success, negative values are errors (never renumbered);
 *  - outputs go through pointer parameters placed first;
 *  - no exception, abort or print ever crosses this boundary.
 */
#ifndef AI00_AI00_H
#define AI00_AI00_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define AI00_API __declspec(dllexport)
#else
#define AI00_API __attribute__((visibility("default")))
#endif

/* Version of this header: major * 10000 + minor * 100 + patch. */
#define AI00_VERSION_MAJOR 0
#define AI00_VERSION_MINOR 1
#define AI00_VERSION_PATCH 0
#define AI00_VERSION_NUMBER (AI00_VERSION_MAJOR * 10000 + AI00_VERSION_MINOR * 100 + AI00_VERSION_PATCH)

/* Status codes. 0 is success; every error is negative. Values are never renumbered. */
typedef enum ai00_status {
  AI00_OK = 0,                  /* success */
  AI00_ERR_INVALID_ARGUMENT = -1, /* a null pointer, a bad size or an out-of-range value */
  AI00_ERR_IO = -2,             /* the operating system refused to open or read a file */
  AI00_ERR_MODEL_FILE = -3,     /* a weight, state or vocabulary file is malformed */
  AI00_ERR_FORMAT = -4,         /* a conversation, tool list or chat-format input is malformed */
  AI00_ERR_GRAMMAR = -5,        /* a grammar or JSON Schema is malformed or unsupported */
  AI00_ERR_MISMATCH = -6,       /* e.g. a State serialized for another model */
  AI00_ERR_UNSUPPORTED = -7,    /* valid input the library does not handle */
  AI00_ERR_CANCELLED = -8,      /* the operation was cancelled */
  AI00_ERR_BUFFER_TOO_SMALL = -9, /* a caller buffer is too small; the needed size was written */
  AI00_ERR_OUT_OF_MEMORY = -10, /* an allocation failed */
  AI00_ERR_INTERNAL = -99       /* a bug in ai00; the message says where */
} ai00_status;

/* The library's version as AI00_VERSION_NUMBER encodes it; compare with the header's. */
AI00_API ai00_status ai00_version_number(uint32_t* out_version);

/* Static, NUL-terminated English text for a status; never NULL, never freed by the caller. */
AI00_API const char* ai00_status_string(ai00_status status);

#ifdef __cplusplus
}
#endif

#endif /* AI00_AI00_H */
