// `ai00 parse`: raw model output on stdin → {"message": …, "finish_reason": …}, through the
// chat format's output parser (ai00_output_parser).
#include <ai00/ai00.hpp>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "format_flags.h"

namespace {

namespace cli = ai00::cli;

// A JSON string literal, escaped as the library's JSON writer does (the public C++ API's).
std::string quoted(std::string_view s) {
  std::string out;
  ai00::detail::json_string(out, s);
  return out;
}

// One delta as one JSON line: {"text"}, {"reasoning"}, {"tool_call": {...}} or
// {"finish_reason"}.
std::string delta_json(const ai00::Delta& d) {
  switch (d.kind) {
    case ai00::DeltaKind::text:
      return "{\"text\":" + quoted(d.text) + "}";
    case ai00::DeltaKind::reasoning:
      return "{\"reasoning\":" + quoted(d.text) + "}";
    case ai00::DeltaKind::tool_call:
      return "{\"tool_call\":{\"call\":" + std::to_string(d.call) + ",\"id\":" + quoted(d.id) +
             ",\"name\":" + quoted(d.name) + ",\"arguments\":" + quoted(d.text) + "}}";
    case ai00::DeltaKind::tool_call_start:
      return "{\"tool_call_start\":{\"call\":" + std::to_string(d.call) +
             ",\"id\":" + quoted(d.id) + ",\"name\":" + quoted(d.name) + "}}";
    case ai00::DeltaKind::tool_call_arguments:
      return "{\"tool_call_arguments\":{\"call\":" + std::to_string(d.call) +
             ",\"text\":" + quoted(d.text) + "}}";
    case ai00::DeltaKind::finish:
      break;
  }
  return "{\"finish_reason\":" + quoted(ai00::finish_reason_name(d.finish_reason)) + "}";
}

// --finish: what ended the stream the input was cut from (default stop); `length` replays a
// reply cut by the token limit, so a call left open is reported incomplete.
ai00::FinishReason finish_flag(const cli::Args& args) {
  const std::string name = args.get("--finish").value_or("stop");
  for (auto r :
       {ai00::FinishReason::stop, ai00::FinishReason::length, ai00::FinishReason::cancelled,
        ai00::FinishReason::grammar_done, ai00::FinishReason::error})
    if (ai00::finish_reason_name(r) == name) return r;
  throw cli::UsageError("--finish must be stop, length, cancelled, grammar_done or error (got '" +
                        name + "')");
}

int run_parse(const std::vector<std::string>& argv) {
  cli::Args args(argv,
                 {"--format", "--tools", "--thinking", "--seed", "--chunk", "--config", "--finish"},
                 {"--deltas", "--transcript", "--stream-tool-calls"});
  ai00::ChatTemplate tmpl = cli::template_flag(args);
  if (args.has("--transcript")) {  // a whole conversation back into messages (OpenChatML)
    cli::write_stdout(tmpl.parse_transcript_json(cli::read_all_stdin()) + "\n");
    return cli::kExitOk;
  }
  ai00::ParseOptions popts;
  popts.thinking = cli::thinking_flag(args);
  popts.tools_json = cli::tools_flag(args);
  popts.id_seed = static_cast<uint64_t>(args.get_int("--seed", 0));
  popts.stream_tool_calls = args.has("--stream-tool-calls");
  const long long chunk = args.get_int("--chunk", 0);
  if (chunk < 0) throw cli::UsageError("--chunk must be 0 (64 KiB blocks) or a byte count");
  const ai00::FinishReason end = finish_flag(args);
  ai00::OutputParser parser =
      cli::naming_tools_file(args, [&] { return ai00::OutputParser(tmpl, popts); });

  // stdin is read and parsed in blocks, and each delta is printed as it comes: memory stays at
  // the message being built however long the input is (the parse does not depend on the cut).
  const bool print_deltas = args.has("--deltas");
  auto print = [&](const std::vector<ai00::Delta>& ds) {
    if (!print_deltas) return;
    for (const auto& d : ds) {
      const std::string line = delta_json(d) + "\n";
      std::fwrite(line.data(), 1, line.size(), stdout);
    }
  };
  const size_t step = chunk > 0 ? static_cast<size_t>(chunk) : size_t{1} << 16;
  std::vector<char> block(std::max<size_t>(step, 1));
  size_t n;
  while ((n = std::fread(block.data(), 1, block.size(), stdin)) > 0)
    print(parser.push({block.data(), n}));
  if (std::ferror(stdin)) throw std::runtime_error("<stdin>: read failed");
  print(parser.finish(end));
  for (const auto& w : parser.warnings())
    std::fprintf(stderr, "ai00 parse: warning: %s\n", w.c_str());
  std::fputs("{\"message\":", stdout);
  {
    const std::string json = parser.message_json();
    std::fwrite(json.data(), 1, json.size(), stdout);
  }
  cli::write_stdout(
      ",\"finish_reason\":" + quoted(ai00::finish_reason_name(parser.finish_reason())) + "}\n");
  return cli::kExitOk;
}

}  // namespace

AI00_COMMAND(
    "parse",
    "  parse --format (ai00-v1|ai00-v0|goose|openchatml) [--config FILE] [--tools FILE]\n"
    "        [--thinking off|on|a-bit|a-lot] [--seed N] [--chunk BYTES] [--deltas]\n"
    "        [--stream-tool-calls] [--finish stop|length|cancelled|grammar_done|error]\n"
    "  parse --format openchatml --transcript\n"
    "      reads a whole rendered conversation and prints it as a JSON array of messages\n"
    "      reads raw model output on stdin and prints {\"message\": …, \"finish_reason\": …};\n"
    "      --deltas also prints each streamed delta as one JSON line first",
    run_parse);
