// The `[prompts]` configuration of the chat formats, as TOML (docs/chat-formats.md
// "Configuration"; seed 000 "Configuration", seed 001 "Configuration").
//
//   [prompts]                       # ai00 v1, the keys of seed 000
//   role_user = "user"              # role names inside <ai00:…>
//   role_assistant = "assistant"
//   role_system = "system"
//   assistant_prefix = "<ai00:assistant>\n"
//   assistant_prefix_thinking = "<ai00:assistant>\n<think>\n"
//   default_stop_sequences = ["</ai00:assistant>"]
//
//   [prompts.goose]                 # seed 001
//   think_a_bit = " think a bit"    # the thinking tiers appended to the last user message
//   think = " think"
//   think_a_lot = " think a lot"
//   prepend_token0 = false          # "Token 0 Prefix"
//
//   [prompts.openchatml]            # seed 002 "Thought Structure"
//   reflect = false                 # with thinking on, also ask for reflect blocks
//   introspect = false
//   bos = ""                        # text of [BOS] / [EOS]; "" for RWKV
//   eos = ""
//
//   [prompts.ai00_v0]               # role labels of the v0 records
//   user = "User"  assistant = "Assistant"  system = "System"  tool = "Observation"
//
//   [presets.math]                  # sampling presets by name (seed 001 table; more may be added)
//   temperature = 0.3  top_p = 0.3  presence_penalty = 0.0  frequency_penalty = 0.0
//   penalty_decay = 0.996  top_k = 128
//
// Every key is optional; an absent key keeps the seed's default, so an empty file configures
// exactly the formats make_format() builds. Unknown keys and tables are errors (a misspelt key
// would otherwise be silently ignored), as are wrong types and values out of range.
//
// Errors: ErrorKind::format, "<source>:<line>:<column>: <what>" (TOML syntax errors and key
// errors alike). Threading: plain values.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "format/ai00_v0.h"
#include "format/ai00_v1.h"
#include "format/format.h"
#include "format/goose.h"
#include "format/openchatml.h"

namespace ai00::internal::format {

// One sampling preset with an owned name (config presets may have any name).
struct ConfigPreset {
  std::string name;
  float temperature;
  float top_p;
  float presence_penalty;
  float frequency_penalty;
  float penalty_decay;
  int top_k;
};

struct PromptsConfig {
  Ai00V1Options ai00_v1;
  Ai00V0Options ai00_v0;
  GooseOptions goose;
  OpenChatMLOptions openchatml;
  std::vector<ConfigPreset> presets;  // defaults: math, chat, creative of seed 001

  PromptsConfig();
  const ConfigPreset* preset(std::string_view name) const;
};

// Parses TOML text; `source` names it in errors (a path, or "config").
Result<PromptsConfig> parse_prompts_config(std::string_view toml, std::string_view source);

// The format `name` configured by `config` (make_format(name) for the default config).
Result<std::shared_ptr<const ChatFormat>> make_format(std::string_view name,
                                                      const PromptsConfig& config);

}  // namespace ai00::internal::format
