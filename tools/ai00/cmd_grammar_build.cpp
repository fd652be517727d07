// `ai00 grammar from-schema` and `ai00 grammar tools`: print the KBNF grammars the library builds
// (ai00_grammar_new_from_json_schema, ai00_grammar_new_for_tools) so they can be inspected,
// diffed or fed to `ai00 grammar check`. Warnings of lenient conversion go to stderr; errors
// exit with code 2.
#include <ai00/ai00.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "command.h"

namespace ai00::cli {
namespace {

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
}

// `for_tools`: tool-call arguments default to strict properties and the canonical layout;
// a schema on its own defaults to JSON Schema semantics (extra properties, any whitespace).
ai00_schema_options schema_options(const Args& a, bool for_tools) {
  ai00_schema_options opt;
  ai00::detail::check(ai00_schema_options_default(&opt));
  opt.lenient = a.has("--lenient") ? 1 : 0;
  opt.strict_properties = for_tools ? 1 : 0;
  if (a.has("--loose-properties")) opt.strict_properties = 0;
  if (a.has("--strict-properties")) opt.strict_properties = 1;
  opt.flexible_whitespace = for_tools ? 0 : 1;
  if (a.has("--whitespace")) {
    const long long n = a.get_int("--whitespace", 0);
    if (n < 1 || n > 64) throw UsageError("--whitespace needs a count in [1, 64]");
    opt.flexible_whitespace = 1;
    opt.max_whitespace = static_cast<uint32_t>(n);
  }
  if (a.has("--canonical") || a.has("--compact")) {
    if (a.has("--whitespace")) throw UsageError("--whitespace excludes --canonical / --compact");
    opt.flexible_whitespace = 0;
    opt.compact = a.has("--compact") ? 1 : 0;
  }
  return opt;
}

int from_schema(const std::vector<std::string>& args) {
  Args a(args, {"--whitespace"},
         {"--lenient", "--loose-properties", "--strict-properties", "--canonical", "--compact"});
  const ai00_schema_options opt = schema_options(a, false);
  const ai00::Grammar g = ai00::Grammar::from_json_schema(read_all_stdin(), &opt);
  print_warnings(g.warnings());
  write_stdout(g.kbnf_text());
  return kExitOk;
}

ai00_thinking_start thinking_start(const std::string& s) {
  if (s == "optional") return AI00_THINKING_START_OPTIONAL;
  if (s == "forced") return AI00_THINKING_START_FORCED;
  if (s == "goose") return AI00_THINKING_START_FORCED_PARTIAL;
  throw UsageError("--thinking must be optional, forced or goose, got '" + s + "'");
}

int tools(const std::vector<std::string>& args) {
  Args a(args, {"--level", "--format", "--tools", "--thinking", "--whitespace"},
         {"--allow-eos", "--lenient", "--loose-properties", "--strict-properties"});
  const std::string level = a.get("--level").value_or("structural");
  if (level != "structural" && level != "schema_aware")
    throw UsageError("--level must be structural or schema_aware, got '" + level + "'");
  const ai00_schema_options schema = schema_options(a, true);
  ai00_tool_grammar_params opt;
  ai00::detail::check(ai00_tool_grammar_params_default(&opt));
  opt.level = level == "structural" ? AI00_GRAMMAR_STRUCTURAL : AI00_GRAMMAR_SCHEMA_AWARE;
  opt.thinking_start = thinking_start(a.get("--thinking").value_or("optional"));
  opt.allow_eos_end = a.has("--allow-eos") ? 1 : 0;
  opt.schema = &schema;
  const ai00::ChatTemplate tmpl(a.get("--format").value_or("ai00-v1"));
  const std::string tools = read_text_file(a.require("--tools"));
  const ai00::Grammar g = ai00::Grammar::for_tools(tmpl, tools, &opt);
  print_warnings(g.warnings());
  write_stdout(g.kbnf_text());
  return kExitOk;
}

}  // namespace

AI00_COMMAND(
    "grammar from-schema",
    "  grammar from-schema [--lenient] [--strict-properties] [--whitespace N | --canonical |\n"
    "      --compact] < schema.json\n"
    "      JSON Schema on stdin -> KBNF on stdout (start rule `start`); by default the grammar\n"
    "      accepts what a validator accepts (extra properties, any JSON whitespace)",
    from_schema);
AI00_COMMAND(
    "grammar tools",
    "  grammar tools --tools FILE [--level structural|schema_aware]\n"
    "      [--format ai00-v1|openchatml] [--thinking optional|forced|goose] [--allow-eos]\n"
    "      [--lenient] [--loose-properties] [--whitespace N]  (arguments: strict, canonical)\n"
    "      tool list (JSON array) -> the tool-call grammar of the format on stdout",
    tools);

}  // namespace ai00::cli
