// Entry point of the `ai00` tool: `ai00 <command> [flags]`. Errors from the library are printed
// on stderr as "ai00 <command>: <message>" and exit with code 2.
#include <sys/stat.h>

#include <ai00/model.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "command.h"

namespace ai00::cli {

std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> r;
  return r;
}

bool register_command(const Command& c) {
  registry()[c.name] = c;
  return true;
}

const std::map<std::string, Command>& commands() { return registry(); }

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& value_flags,
           const std::vector<std::string>& switch_flags, size_t max_positional) {
  auto in = [](const std::vector<std::string>& v, const std::string& s) {
    for (const auto& x : v)
      if (x == s) return true;
    return false;
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) == 0) {
      std::string flag = a, value;
      bool inline_value = false;
      if (auto eq = a.find('='); eq != std::string::npos) {
        flag = a.substr(0, eq);
        value = a.substr(eq + 1);
        inline_value = true;
      }
      if (in(value_flags, flag)) {
        if (!inline_value) {
          if (i + 1 >= argv.size()) throw UsageError(flag + " needs a value");
          value = argv[++i];
        }
        values_[flag] = value;
      } else if (in(switch_flags, flag) && !inline_value) {
        switches_.push_back(flag);
      } else {
        throw UsageError("unknown option " + a);
      }
    } else {
      if (positional_.size() >= max_positional) throw UsageError("unexpected argument '" + a + "'");
      positional_.push_back(a);
    }
  }
}

bool Args::has(const std::string& flag) const {
  if (values_.count(flag)) return true;
  for (const auto& s : switches_)
    if (s == flag) return true;
  return false;
}

std::optional<std::string> Args::get(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::require(const std::string& flag) const {
  auto v = get(flag);
  if (!v) throw UsageError(flag + " is required");
  return *v;
}

long long Args::get_int(const std::string& flag, long long fallback, long long min,
                        long long max) const {
  auto v = get(flag);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || (errno != 0 && errno != ERANGE))
    throw UsageError(flag + " needs an integer, got '" + *v + "'");
  // Never truncated: a value outside the field's range is an error naming the range.
  if (errno == ERANGE || x < min || x > max)
    throw UsageError(flag + " must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "], got '" + *v + "'");
  return x;
}

double Args::get_double(const std::string& flag, double fallback) const {
  auto v = get(flag);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(v->c_str(), &end);
  if (v->empty() || *end != '\0' || errno != 0)
    throw UsageError(flag + " needs a number, got '" + *v + "'");
  return x;
}

std::string read_all_stdin() {
  std::string data;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) data.append(buf, n);
  if (std::ferror(stdin)) throw std::runtime_error("<stdin>: read failed");
  return data;
}

std::string read_text_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw std::runtime_error(path + ": is a directory, not a file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw std::runtime_error(path + ": read failed");
  return data;
}

// `--limit NAME=VALUE` (any number, before or after the command's flags): sets one of the
// library's process-wide limits (ai00.h "Limits") for this run; removed from `args`.
void apply_limit_flags(std::vector<std::string>& args) {
  std::vector<std::string> rest;
  ai00::Limits limits = ai00::Limits::current();
  bool changed = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string spec;
    if (args[i] == "--limit") {
      if (i + 1 >= args.size()) throw UsageError("--limit needs NAME=VALUE");
      spec = args[++i];
    } else if (args[i].rfind("--limit=", 0) == 0) {
      spec = args[i].substr(8);
    } else {
      rest.push_back(args[i]);
      continue;
    }
    const size_t eq = spec.find('=');
    const std::string name = spec.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : spec.substr(eq + 1);
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || value[0] == '-' || *end != '\0' || errno != 0 || v == 0)
      throw UsageError("--limit " + spec + ": expected NAME=VALUE with VALUE >= 1");
    auto set32 = [&](uint32_t& field) {
      if (v > 0xffffffffull)
        throw UsageError("--limit " + spec + ": " + name + " must be at most 4294967295");
      field = static_cast<uint32_t>(v);
    };
    if (name == "max_nesting_depth")
      set32(limits.max_nesting_depth);
    else if (name == "max_threads")
      set32(limits.max_threads);
    else if (name == "max_grammar_states")
      limits.max_grammar_states = v;
    else if (name == "max_nfa_states")
      limits.max_nfa_states = v;
    else if (name == "max_input_bytes")
      limits.max_input_bytes = v;
    else if (name == "max_file_bytes")
      limits.max_file_bytes = v;
    else if (name == "max_string_bytes")
      limits.max_string_bytes = v;
    else if (name == "max_tokens")
      limits.max_tokens = v;
    else
      throw UsageError("--limit: unknown limit '" + name +
                       "' (max_nesting_depth, max_threads, max_grammar_states, max_nfa_states, "
                       "max_input_bytes, max_file_bytes, max_string_bytes, max_tokens)");
    changed = true;
  }
  if (changed) limits.apply();
  args = std::move(rest);
}

void write_stdout(const std::string& bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  std::fflush(stdout);
}

}  // namespace ai00::cli

namespace {

void print_help() {
  std::fprintf(stdout, "usage: ai00 <command> [options] [--limit NAME=VALUE]...\n\ncommands:\n");
  for (const auto& [name, c] : ai00::cli::commands()) std::fprintf(stdout, "%s\n", c.usage);
  std::fprintf(stdout,
               "\nevery command takes --limit NAME=VALUE (repeatable) to change a library limit:\n"
               "  max_nesting_depth (256), max_threads (1024), max_grammar_states (50000),\n"
               "  max_nfa_states (200000), max_input_bytes (67108864), max_file_bytes\n"
               "  (1099511627776), max_string_bytes (1048576), max_tokens (16777216)\n");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ai00::cli;
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0) {
    print_help();
    return argc < 2 ? kExitError : kExitOk;
  }
  // A command is one word ("info") or two ("grammar check"); the longer match wins.
  std::string name = argv[1];
  int first_arg = 2;
  if (argc >= 3 && commands().count(name + " " + argv[2])) {
    name += std::string(" ") + argv[2];
    first_arg = 3;
  }
  auto it = commands().find(name);
  if (it == commands().end()) {
    std::fprintf(stderr, "ai00: unknown command '%s' (try `ai00 help`)\n", name.c_str());
    return kExitError;
  }
  std::vector<std::string> args(argv + first_arg, argv + argc);
  try {
    apply_limit_flags(args);
    return it->second.run(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "ai00 %s: %s\nusage:\n%s\n", name.c_str(), e.what(), it->second.usage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ai00 %s: %s\n", name.c_str(), e.what());
  }
  return kExitError;
}
