// Conformance of the JSON Schema converter against the official JSON-Schema-Test-Suite
// (docs/grammar.md "Conformance"): for every test file of one draft folder (optional/ and the
// files that need remote references skipped), each schema is converted with the default options
// and compiled; each instance is judged by whether the grammar accepts its JSON text, minified
// and pretty-printed, and compared with the suite's "valid". A schema the converter refuses
// counts its instances as misjudged and is listed separately; nothing may crash.
//
// Usage: schema_suite DIR [--floor RATE] [--skip NAME.json]...
// Prints one line per keyword file (instances, right, rate) and the total; exits 1 when the total
// rate is under RATE, 77 (ctest's skip) when DIR does not exist.
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "grammar/json_schema.h"
#include "grammar/kbnf_writer.h"
#include "grammar/matcher.h"

namespace {

using namespace ai00::internal::grammar;
namespace fs = std::filesystem;

// Files that need a remote or meta-schema reference the converter cannot resolve offline
// (the suite's own remotes server, or the draft's meta-schema by URI).
const std::set<std::string> kRemoteFiles = {"refRemote.json", "vocabulary.json", "anchor.json",
                                            "dynamicRef.json", "id.json"};

void pretty(simdjson::dom::element e, int indent, std::string& out) {
  const std::string pad(static_cast<size_t>(indent + 2), ' ');
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object o = e.get_object().value_unsafe();
      if (o.size() == 0) {
        out += "{ }";
        return;
      }
      out += "{\n";
      bool first = true;
      for (auto f : o) {
        // Every JSON whitespace byte occurs somewhere: tab before the colon, CR in empty arrays.
        out += (first ? "" : ",\n") + pad + json_quote(f.key) + "\t:  ";
        pretty(f.value, indent + 2, out);
        first = false;
      }
      out += "\n" + std::string(static_cast<size_t>(indent), ' ') + "}";
      return;
    }
    case simdjson::dom::element_type::ARRAY: {
      simdjson::dom::array a = e.get_array().value_unsafe();
      if (a.size() == 0) {
        out += "[\r\n]";
        return;
      }
      out += "[\n";
      bool first = true;
      for (auto v : a) {
        out += (first ? "" : " ,\n") + pad;
        pretty(v, indent + 2, out);
        first = false;
      }
      out += "\n" + std::string(static_cast<size_t>(indent), ' ') + "]";
      return;
    }
    default:
      out += simdjson::to_string(e);
  }
}

struct FileScore {
  std::string name;
  size_t instances = 0, right = 0, refused = 0;
};

bool accepts(const CompiledGrammar& g, const std::string& text) {
  Matcher m(g);
  return m.accept_bytes(text) && m.is_complete();
}

FileScore run_file(const fs::path& path, std::vector<std::string>& refusals,
                   std::vector<std::string>& misses) {
  FileScore score{path.filename().string()};
  simdjson::dom::parser parser;
  simdjson::padded_string json;
  simdjson::dom::array groups;
  if (simdjson::padded_string::load(path.string()).get(json) || parser.parse(json).get(groups)) {
    refusals.push_back(score.name + ": unreadable test file");
    return score;
  }
  for (simdjson::dom::element group : groups) {
    const std::string what =
        score.name + " / " + std::string(group["description"].get_string().value_unsafe());
    simdjson::dom::array tests = group["tests"].get_array().value_unsafe();
    std::string error;
    std::optional<CompiledGrammar> g;
    try {
      auto kbnf = json_schema_to_kbnf(simdjson::to_string(group["schema"].value_unsafe()));
      if (!kbnf.ok())
        error = kbnf.error().message;
      else
        g.emplace(CompiledGrammar::compile_kbnf(kbnf.value().kbnf, nullptr));
    } catch (const std::exception& e) {
      error = std::string("compile: ") + e.what();
    }
    for (simdjson::dom::element t : tests) {
      ++score.instances;
      if (!g) {
        ++score.refused;
        continue;
      }
      const bool valid = t["valid"].get_bool().value_unsafe();
      simdjson::dom::element data = t["data"].value_unsafe();
      std::string spaced;
      pretty(data, 0, spaced);
      const std::string compact = simdjson::to_string(data);
      const bool a = accepts(*g, compact), b = accepts(*g, " " + spaced + "\n");
      if (a == valid && b == valid) {
        ++score.right;
      } else {
        misses.push_back(what + " / " + std::string(t["description"].get_string().value_unsafe()) +
                         (a != b  ? " (whitespace)"
                          : valid ? " (refused)"
                                  : " (accepted)"));
      }
    }
    if (!g) refusals.push_back(what + ": " + error);
  }
  return score;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: schema_suite DIR [--floor RATE] [--skip NAME.json]... [-v]\n");
    return 2;
  }
  const fs::path dir = argv[1];
  double floor = 0;
  bool verbose = false;
  std::set<std::string>
      skip;  // --skip: named by the caller (tests/grammar/CMakeLists.txt says why)
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--floor" && i + 1 < argc) {
      floor = std::atof(argv[++i]);
    } else if (a == "--skip" && i + 1 < argc) {
      skip.insert(argv[++i]);
    } else if (a == "-v") {
      verbose = true;
    } else {
      std::fprintf(stderr, "schema_suite: unknown argument `%s`\n", a.c_str());
      return 2;
    }
  }
  if (!fs::is_directory(dir)) {
    std::printf(
        "schema_suite: %s not found: the JSON-Schema-Test-Suite is not installed "
        "(docs/grammar.md, Conformance); skipped\n",
        dir.string().c_str());
    return 77;
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> refusals, misses;
  size_t total = 0, right = 0, refused = 0;
  std::printf("%-28s %9s %7s %8s %7s\n", "file", "instances", "right", "refused", "rate");
  for (const auto& f : files) {
    const std::string name = f.filename().string();
    if (kRemoteFiles.count(name) || skip.count(name)) {
      std::printf("%-28s skipped (%s)\n", name.c_str(),
                  kRemoteFiles.count(name) ? "remote or meta-schema references" : "--skip");
      continue;
    }
    FileScore s = run_file(f, refusals, misses);
    total += s.instances;
    right += s.right;
    refused += s.refused;
    std::printf("%-28s %9zu %7zu %8zu %6.1f%%\n", s.name.c_str(), s.instances, s.right, s.refused,
                s.instances ? 100.0 * s.right / s.instances : 100.0);
  }
  if (fs::is_directory(dir / "optional"))
    std::printf("%-28s skipped (optional behaviour: formats, bignums, ECMA-262 corners)\n",
                "optional/");
  const double rate = total ? 100.0 * right / total : 0;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-28s %9zu %7zu %8zu %6.1f%%  (%.1f s)\n", "TOTAL", total, right, refused, rate,
              secs);
  std::printf("\nrefused schemas (%zu):\n", refusals.size());
  for (const auto& r : refusals) std::printf("  %s\n", r.c_str());
  if (verbose) {
    std::printf("\nmisjudged instances of converted schemas (%zu):\n", misses.size());
    for (const auto& m : misses) std::printf("  %s\n", m.c_str());
  }
  if (rate < floor) {
    std::printf("FAILED: rate %.1f%% is under the floor %.1f%%\n", rate, floor);
    return 1;
  }
  return 0;
}
