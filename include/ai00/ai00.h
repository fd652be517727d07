/* ai00 — the C ABI.
 *
 * This header is the whole binary interface of libai00: opaque handles, ai00_status return
 * codes, versioned parameter structs and callbacks with user_data. No C++ type crosses it, so
 * one build of the library serves every compiler and language (docs/layers.md "The hourglass").
 * It compiles as C99 and as C++; the C++ wrappers in ai00/ai00.hpp are built only on it.
 * Its declarations live in one part per handle under ai00/c/, included below: base.h (versions,
 * status codes, handles), model.h, state.h, chat_template.h, grammar.h, prefix_cache.h,
 * scoring.h, state_bundle.h, generator.h, batch.h, tokenizer.h, output_parser.h. Each part
 * includes the parts it uses. Include this header, not the parts.
 *
 * Rules that hold for every function declared here (docs/abi.md):
 *  - It returns an ai00_status: 0 is success, negative values are errors (never renumbered).
 *    The only exceptions are ai00_status_string() and the *_last_error() accessors, which
 *    return text and cannot fail.
 *  - Outputs go through pointer parameters placed first. On failure outputs are left unchanged,
 *    except that AI00_ERR_BUFFER_TOO_SMALL writes the needed size.
 *  - A NULL handle or a NULL required pointer gives AI00_ERR_INVALID_ARGUMENT with a message
 *    naming the parameter. Destroy functions accept NULL and return AI00_OK.
 *  - No exception, abort, assert or print ever crosses this boundary; the library is silent.
 *  - Strings are UTF-8 with an explicit byte length; a length of AI00_NUL_TERMINATED
 *    ((size_t)-1) means "up to the first NUL". No function depends on the locale.
 *  - Output text is always valid UTF-8 made of whole code points.
 *  - Every failure stores a message (what and where: the file path, line:column, JSON pointer)
 *    in the calling thread's slot (ai00_last_error) and, when the call has a handle, in that
 *    handle's slot (ai00_model_last_error, ...). Messages are owned by the library.
 *
 * Threading (rule 10): an ai00_model is immutable and may be used by any number of threads at
 * once; an ai00_grammar and an ai00_tokenizer likewise. An ai00_state, ai00_chat_template
 * render result, ai00_output_parser and ai00_generator belong to one thread at a time
 * (different ones may run concurrently, there is no global lock). ai00_generator_cancel may be
 * called from any thread. The library starts no thread of its own beyond the model's n_threads - 1
 * workers, which block when idle.
 */
#ifndef AI00_AI00_H
#define AI00_AI00_H

#include "c/base.h"
#include "c/batch.h"
#include "c/chat_template.h"
#include "c/generator.h"
#include "c/grammar.h"
#include "c/model.h"
#include "c/output_parser.h"
#include "c/prefix_cache.h"
#include "c/scoring.h"
#include "c/state.h"
#include "c/state_bundle.h"
#include "c/tokenizer.h"

#endif /* AI00_AI00_H */
