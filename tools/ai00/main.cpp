// Entry point of the `ai00` tool: `ai00 <command> [flags]`. Errors from the library are printed
// on stderr as "ai00 <command>: <message>" and exit with code 2.
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

long long Args::get_int(const std::string& flag, long long fallback) const {
  auto v = get(flag);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || errno != 0)
    throw UsageError(flag + " needs an integer, got '" + *v + "'");
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
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_stdout(const std::string& bytes) {
  std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  std::fflush(stdout);
}

}  // namespace ai00::cli

namespace {

void print_help() {
  std::fprintf(stdout, "usage: ai00 <command> [options]\n\ncommands:\n");
  for (const auto& [name, c] : ai00::cli::commands()) std::fprintf(stdout, "%s\n", c.usage);
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
    return it->second.run(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "ai00 %s: %s\nusage:\n%s\n", name.c_str(), e.what(), it->second.usage);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ai00 %s: %s\n", name.c_str(), e.what());
  }
  return kExitError;
}
