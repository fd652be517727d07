// ai00 C++ API: header-only RAII classes over the C ABI of ai00.h (docs/layers.md "The hourglass").
// Include this one header to get all of them:
//
//   ai00::Model        model.hpp          weights + tokenizer; shared, immutable
//   ai00::State        state.hpp          one sequence; save/load/clone; SamplerParams
//   ai00::ChatTemplate chat_template.hpp  chat formats; Message, Delta, to_json()
//   ai00::Grammar      grammar.hpp        KBNF / JSON Schema / tool calls, per model or alone
//   ai00::Tokenizer    tokenizer.hpp      the World tokenizer, from a vocab file or a model
//   ai00::OutputParser output_parser.hpp  a chat format's reply parser on its own
//   ai00::Generator    generator.hpp      one turn: run (push), next (pull), step (budget)
//   ai00::Error        error.hpp          thrown on the caller's side for any failed call
//
// These headers include only ai00.h and the standard library, and every call goes through an
// exported ai00_* function, so a program built with any C++17 compiler works with any build of
// libai00 of the same ABI version. Exceptions are thrown here, never inside the library.
#pragma once

#include "ai00/ai00.h"
#include "ai00/batch.hpp"
#include "ai00/chat_template.hpp"
#include "ai00/error.hpp"
#include "ai00/generator.hpp"
#include "ai00/grammar.hpp"
#include "ai00/model.hpp"
#include "ai00/output_parser.hpp"
#include "ai00/prefix_cache.hpp"
#include "ai00/scoring.hpp"
#include "ai00/state.hpp"
#include "ai00/state_bundle.hpp"
#include "ai00/tokenizer.hpp"
