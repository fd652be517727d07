// `ai00 chat`: an interactive chat on stdin/stdout with a chat format, optional tools and
// thinking. Each line read is a user message; the reply streams as it is generated (reasoning
// and tool calls go to stderr, so stdout carries only what the assistant says). Uses only the
// public C++ API.
//
// Each turn re-renders the whole conversation on a fresh State: simple and always correct for
// every format, since nothing guarantees that one turn's render is a byte prefix of the next.
// Continuing the previous turn's State would need a prefix cache that verifies the rendered
// prefix; for an interactive chat the extra prefill is small next to decoding.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "generate_flags.h"

namespace {

ai00_thinking thinking_flag(const ai00::cli::Args& args) {
  std::string t = args.get("--thinking").value_or("off");
  if (t == "off") return AI00_THINKING_OFF;
  if (t == "on") return AI00_THINKING_ON;
  if (t == "a-bit") return AI00_THINKING_A_BIT;
  if (t == "a-lot") return AI00_THINKING_A_LOT;
  throw ai00::cli::UsageError("--thinking must be off, on, a-bit or a-lot, got '" + t + "'");
}

bool print_delta(const ai00::Delta& d) {
  if (d.kind == ai00::DeltaKind::text) {
    std::fwrite(d.text.data(), 1, d.text.size(), stdout);
    std::fflush(stdout);
  } else if (d.kind == ai00::DeltaKind::reasoning) {
    std::fwrite(d.text.data(), 1, d.text.size(), stderr);
  } else if (d.kind == ai00::DeltaKind::tool_call) {
    std::fprintf(stderr, "\n[tool call %s %s: %s]\n", d.name.c_str(), d.id.c_str(), d.text.c_str());
  }
  return true;
}

// The byte offset of the first byte of `s` that is not part of a valid UTF-8 sequence
// (overlong forms, surrogates and code points past U+10FFFF included), or npos.
size_t invalid_utf8_at(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      cp = c & 0x07;
    } else {
      return i;
    }
    if (i + n >= s.size()) return i;  // the sequence is cut by the end of the line
    for (size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (b & 0x3F);
    }
    const uint32_t min[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

// Renders `conversation` (no generation) to check that it can still be rendered.
bool renders(ai00::ChatTemplate& tmpl, const std::vector<ai00::Message>& conversation,
             const ai00::RenderOptions& render) {
  try {
    tmpl.render_json(ai00::to_json(conversation), render);
    return true;
  } catch (const ai00::Error&) {
    return false;
  }
}

int run_chat(const std::vector<std::string>& argv) {
  std::vector<std::string> values = ai00::cli::sampler_value_flags();
  for (const char* f :
       {"--format", "--system", "--tools", "--thinking", "--max-line-bytes", "--config"})
    values.push_back(f);
  ai00::cli::Args args(argv, values, {"--ban-eos", "--show-sampler"});
  ai00::ChatTemplate tmpl =
      args.has("--config")
          ? ai00::ChatTemplate::with_config(args.get("--format").value_or("ai00-v1"),
                                            ai00::cli::read_text_file(*args.get("--config")))
          : ai00::ChatTemplate(args.get("--format").value_or("ai00-v1"));
  // --preset names a preset of the configuration ([presets.NAME] of --config, else the Goose
  // spec's three); explicit sampler flags override it.
  ai00::GenerateOptions options = ai00::cli::generate_options(args, &tmpl);
  ai00::Model model = ai00::cli::load_model_flag(args);
  ai00::RenderOptions render;
  render.thinking = thinking_flag(args);
  if (auto tools = args.get("--tools")) render.tools_json = ai00::cli::read_text_file(*tools);
  const long long max_line = args.get_int("--max-line-bytes", 65536);
  if (max_line < 1) throw ai00::cli::UsageError("--max-line-bytes must be at least 1");

  std::vector<ai00::Message> conversation;
  if (auto system = args.get("--system"))
    conversation.push_back(ai00::Message::text("system", *system));
  // The session survives any line (docs/chat-formats.md "Escaping"): a line the format cannot
  // carry, or a turn that fails, is reported on stderr and left out of the conversation, and
  // the next line continues from the conversation as it was.
  std::string line;
  size_t line_no = 0;
  while (true) {
    std::fprintf(stderr, "> ");
    if (!std::getline(std::cin, line)) break;
    ++line_no;
    if (line.empty()) continue;
    if (line.size() > static_cast<size_t>(max_line)) {
      std::fprintf(stderr,
                   "ai00 chat: line %zu refused: %zu bytes is more than --max-line-bytes %lld; "
                   "the conversation goes on without it\n",
                   line_no, line.size(), max_line);
      continue;
    }
    if (size_t bad = invalid_utf8_at(line); bad != std::string::npos) {
      std::fprintf(stderr,
                   "ai00 chat: line %zu refused: not valid UTF-8 at byte %zu; the conversation "
                   "goes on without it\n",
                   line_no, bad);
      continue;
    }
    conversation.push_back(ai00::Message::text("user", line));
    try {
      ai00::State state(model);
      ai00::Generator gen =
          ai00::Generator::chat(model, state, tmpl, conversation, render, options);
      ai00::FinishReason reason = gen.run(print_delta);
      std::printf("\n");
      std::fflush(stdout);
      if (reason == ai00::FinishReason::error)
        throw ai00::Error(AI00_ERR_INTERNAL, gen.error_message());
      conversation.push_back(gen.message());
    } catch (const ai00::Error& e) {
      conversation.pop_back();
      std::fprintf(stderr, "ai00 chat: line %zu refused: %s; the conversation goes on without it\n",
                   line_no, e.what());
      continue;
    }
    // Every reply renders again (the library guarantees it); should one not, it is dropped
    // with its line rather than ending the session.
    if (!renders(tmpl, conversation, render)) {
      conversation.resize(conversation.size() - 2);
      std::fprintf(stderr,
                   "ai00 chat: the reply to line %zu cannot be rendered again; it is "
                   "left out of the conversation\n",
                   line_no);
    }
  }
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND("chat",
             "ai00 chat --model M [--vocab V] [--format ai00-v1|ai00-v0|goose|openchatml]\n"
             "    [--system TEXT] [--tools FILE] [--thinking off|on|a-bit|a-lot]\n"
             "    [--max-line-bytes N (65536)] [--config FILE ([prompts] TOML)]\n"
             "    [--preset NAME (math|chat|creative|ai00, or [presets.NAME] of --config)]\n"
             "    [sampler flags of `ai00 generate`, which override the preset] [--show-sampler]\n"
             "    [--seed N] [--max-tokens N] [--threads N] [--isa NAME]\n"
             "    [--activations dot|exact (default dot; exact: fp32)]\n"
             "  Interactive: each stdin line is a user message; the reply streams to stdout\n"
             "  (reasoning and tool calls to stderr). A line the format cannot carry, or\n"
             "  longer than --max-line-bytes, is refused on stderr and the session goes on.",
             run_chat);
