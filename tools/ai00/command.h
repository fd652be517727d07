// The ai00 command-line tool: one subcommand per file (cmd_<name>.cpp), each registering itself
// with AI00_COMMAND. main.cpp looks the subcommand up, runs it, and turns any exception into a
// message on stderr and exit code 2.
#pragma once

#include <climits>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ai00::cli {

// Exit codes shared by every subcommand.
constexpr int kExitOk = 0;
constexpr int kExitRejected = 1;  // a check ran and said no (e.g. `grammar check` rejected)
constexpr int kExitError = 2;     // bad usage or an error from the library

// A bad command line; main prints the message and the subcommand's usage.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parsed `--flag value` / `--switch` arguments of one subcommand. Unknown flags, a missing value
// and stray positional words are UsageErrors, so a typo never runs with a default silently.
class Args {
 public:
  Args(const std::vector<std::string>& argv, const std::vector<std::string>& value_flags,
       const std::vector<std::string>& switch_flags, size_t max_positional = 0);
  bool has(const std::string& flag) const;
  std::optional<std::string> get(const std::string& flag) const;
  std::string require(const std::string& flag) const;
  // An integer flag in [min, max]; a value outside is a UsageError naming the range (never
  // truncated into a narrower field).
  long long get_int(const std::string& flag, long long fallback, long long min = LLONG_MIN,
                    long long max = LLONG_MAX) const;
  double get_double(const std::string& flag, double fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> switches_;
  std::vector<std::string> positional_;
};

using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
  const char* name;   // one word ("info") or two ("grammar check")
  const char* usage;  // one or more lines, printed by `ai00 help` and on a usage error
  CommandFn run;      // args excludes the program and command names
};

// Registration (static initialisers in each cmd_*.cpp).
bool register_command(const Command& c);
const std::map<std::string, Command>& commands();

// Helpers shared by subcommands.
std::string read_all_stdin();
std::string read_text_file(const std::string& path);  // throws, naming the path
void write_stdout(const std::string& bytes);

}  // namespace ai00::cli

#define AI00_CLI_CONCAT2(a, b) a##b
#define AI00_CLI_CONCAT(a, b) AI00_CLI_CONCAT2(a, b)
#define AI00_COMMAND(name, usage, fn)                                 \
  static const bool AI00_CLI_CONCAT(ai00_cmd_registered_, __LINE__) = \
      ::ai00::cli::register_command(::ai00::cli::Command{name, usage, fn})
