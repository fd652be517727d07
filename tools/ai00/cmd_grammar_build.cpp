// `ai00 grammar from-schema` and `ai00 grammar tools`: print the KBNF grammars the library builds
// (src/grammar/json_schema.h, tool_grammar.h) so they can be inspected, diffed or fed to
// `ai00 grammar check`. Warnings of lenient conversion go to stderr; errors exit with code 2.
#include <cstdio>
#include <string>
#include <vector>

#include "command.h"
#include "format/format.h"
#include "grammar/json_schema.h"
#include "grammar/tool_grammar.h"

using namespace ai00::internal;  // NOLINT: interim, until the command uses the public API
namespace cli = ai00::cli;

namespace ai00::cli {
namespace {

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

grammar::JsonSchemaOptions schema_options(const Args& a) {
  grammar::JsonSchemaOptions opt;
  opt.lenient = a.has("--lenient");
  opt.strict_properties = !a.has("--loose-properties");
  if (a.has("--whitespace")) {
    const long long n = a.get_int("--whitespace", 0);
    if (n < 0 || n > 64) throw UsageError("--whitespace needs a count in [0, 64]");
    opt.flexible_whitespace = true;
    opt.max_whitespace = static_cast<uint32_t>(n);
  }
  return opt;
}

int from_schema(const std::vector<std::string>& args) {
  Args a(args, {"--whitespace"}, {"--lenient", "--loose-properties"});
  auto g = grammar::json_schema_to_kbnf(read_all_stdin(), schema_options(a)).value_or_throw();
  print_warnings(g.warnings);
  write_stdout(g.kbnf);
  return kExitOk;
}

// `goose` is forced open with the open marker's last byte left to the model (seed 001's
// "<think" prompt), whatever the format.
grammar::ThinkingStart thinking_start(const std::string& s, ThinkingSyntax& thinking) {
  if (s == "optional") return grammar::ThinkingStart::optional;
  if (s == "forced") return grammar::ThinkingStart::forced_open;
  if (s == "goose") {
    thinking.forced_open_completion = thinking.open.empty() ? "" : thinking.open.substr(
                                                                       thinking.open.size() - 1);
    return grammar::ThinkingStart::forced_open;
  }
  throw UsageError("--thinking must be optional, forced or goose, got '" + s + "'");
}

int tools(const std::vector<std::string>& args) {
  Args a(args, {"--level", "--format", "--tools", "--thinking", "--whitespace"},
         {"--allow-eos", "--lenient", "--loose-properties"});
  grammar::ToolGrammarOptions opt;
  const std::string level = a.get("--level").value_or("structural");
  if (level != "structural" && level != "schema_aware")
    throw UsageError("--level must be structural or schema_aware, got '" + level + "'");
  opt.level = grammar::parse_validation_level(level).value_or_throw();
  // The format describes its own syntax; the grammar is built from that description.
  auto format = format::make_format(a.get("--format").value_or("ai00-v1"));
  if (!format) throw UsageError(format.error().message);
  opt.syntax = format.value()->syntax();
  opt.thinking = thinking_start(a.get("--thinking").value_or("optional"), opt.syntax.thinking);
  opt.allow_eos_end = a.has("--allow-eos");
  opt.schema = schema_options(a);
  auto list = grammar::parse_tool_list(read_text_file(a.require("--tools"))).value_or_throw();
  auto g = grammar::build_tool_grammar(list, opt).value_or_throw();
  print_warnings(g.warnings);
  write_stdout(g.kbnf);
  return kExitOk;
}

}  // namespace

AI00_COMMAND(
    "grammar from-schema",
    "  grammar from-schema [--lenient] [--loose-properties] [--whitespace N] < schema.json\n"
    "      JSON Schema on stdin -> KBNF on stdout (start rule `start`)",
    from_schema);
AI00_COMMAND(
    "grammar tools",
    "  grammar tools --tools FILE [--level structural|schema_aware]\n"
    "      [--format NAME] [--thinking optional|forced|goose] [--allow-eos]\n"
    "      [--lenient] [--loose-properties] [--whitespace N]\n"
    "      tool list (JSON array) -> the tool-call grammar of chat format NAME (default\n"
    "      ai00-v1; any format with a tool-call syntax) on stdout",
    tools);

}  // namespace ai00::cli
