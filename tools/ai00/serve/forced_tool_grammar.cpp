#include "forced_tool_grammar.h"

#include <sstream>
#include <vector>

#include "api_error.h"

namespace ai00::serve {
namespace {

std::vector<std::string> split_rules(const std::string& kbnf) {
  std::vector<std::string> lines;
  std::istringstream in(kbnf);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::string forced_tool_grammar(const ai00::ChatTemplate& tmpl, const std::string& tools_json,
                                int tool_index, bool single_call, const std::string& param) {
  ai00_tool_grammar_params p;
  ai00::detail::check(ai00_tool_grammar_params_default(&p));
  p.level = AI00_GRAMMAR_SCHEMA_AWARE;
  std::string kbnf;
  try {
    kbnf = ai00::Grammar::for_tools(tmpl, tools_json, &p).kbnf_text();
  } catch (const ai00::Error& e) {
    throw ApiError(400, param + ": cannot force a tool call: " + e.what(), param);
  }
  // The library writes one rule per line; the rules edited here are `start` (the whole turn),
  // `calls` (the call block) and `call` (one alternative per tool, `tool<i>_call`).
  bool saw_start = false, saw_calls = false, saw_call = false;
  std::string out;
  for (std::string line : split_rules(kbnf)) {
    if (starts_with(line, "start ::= ")) {
      line = "start ::= calls;\nfree_start ::= " + line.substr(10);
      saw_start = true;
    } else if (starts_with(line, "calls ::= ")) {
      const size_t rep = line.find(" call call*");
      if (single_call && rep != std::string::npos) line.erase(rep + 5, 6);
      saw_calls = true;
    } else if (starts_with(line, "call ::= ")) {
      if (tool_index >= 0) line = "call ::= tool" + std::to_string(tool_index) + "_call;";
      saw_call = true;
    }
    out += line + "\n";
  }
  if (!saw_start || !saw_calls || !saw_call)
    throw ApiError(500, param + ": the library's tool grammar lacks the start/calls/call rules",
                   param, "server_error");
  return out;
}

}  // namespace ai00::serve
