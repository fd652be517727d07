// `ai00 chat`: an interactive chat on stdin/stdout with a chat format, optional tools and
// thinking. Each line read is a user message; the reply streams as it is generated (reasoning
// and tool calls go to stderr, so stdout carries only what the assistant says). Uses only the
// public C++ API.
//
// Each turn re-renders the whole conversation on a fresh State: simple and always correct for
// every format, since nothing guarantees that one turn's render is a byte prefix of the next.
// Continuing the previous turn's State would need a prefix cache that verifies the rendered
// prefix; for an interactive chat the extra prefill is small next to decoding.
#include <cstdio>
#include <iostream>
#include <string>
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

int run_chat(const std::vector<std::string>& argv) {
  std::vector<std::string> values = ai00::cli::sampler_value_flags();
  for (const char* f : {"--format", "--system", "--tools", "--thinking"}) values.push_back(f);
  ai00::cli::Args args(argv, values, {"--ban-eos"});
  ai00::Model model = ai00::cli::load_model_flag(args);
  ai00::GenerateOptions options = ai00::cli::generate_options(args);
  ai00::ChatTemplate tmpl(args.get("--format").value_or("ai00-v1"));
  ai00::RenderOptions render;
  render.thinking = thinking_flag(args);
  if (auto tools = args.get("--tools")) render.tools_json = ai00::cli::read_text_file(*tools);

  std::vector<ai00::Message> conversation;
  if (auto system = args.get("--system"))
    conversation.push_back(ai00::Message::text("system", *system));
  std::string line;
  while (true) {
    std::fprintf(stderr, "> ");
    if (!std::getline(std::cin, line)) break;
    if (line.empty()) continue;
    conversation.push_back(ai00::Message::text("user", line));
    ai00::State state(model);
    ai00::Generator gen = ai00::Generator::chat(model, state, tmpl, conversation, render, options);
    ai00::FinishReason reason = gen.run(print_delta);
    std::printf("\n");
    std::fflush(stdout);
    if (reason == ai00::FinishReason::error) throw std::runtime_error(gen.error_message());
    conversation.push_back(gen.message());
  }
  return ai00::cli::kExitOk;
}

}  // namespace

AI00_COMMAND("chat",
             "ai00 chat --model M [--vocab V] [--format ai00-v1|ai00-v0|goose|openchatml]\n"
             "    [--system TEXT] [--tools FILE] [--thinking off|on|a-bit|a-lot]\n"
             "    [sampler flags of `ai00 generate`] [--seed N] [--max-tokens N] [--threads N]\n"
             "  Interactive: each stdin line is a user message; the reply streams to stdout\n"
             "  (reasoning and tool calls to stderr).",
             run_chat);
