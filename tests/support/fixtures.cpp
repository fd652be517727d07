#include "fixtures.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <stdexcept>

namespace ai00::test {

std::string shared_dir() {
  if (const char* env = std::getenv("AI00_SHARED_DIR"); env && *env) return env;
  return AI00_DEFAULT_SHARED_DIR;
}

std::string shared_path(const std::string& relative) { return shared_dir() + "/" + relative; }

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open fixture " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string read_text(const std::string& path) {
  auto b = read_bytes(path);
  return std::string(b.begin(), b.end());
}

std::vector<float> read_f32(const std::string& path) {
  auto b = read_bytes(path);
  if (b.size() % 4 != 0) throw std::runtime_error(path + ": size is not a multiple of 4");
  std::vector<float> out(b.size() / 4);
  std::memcpy(out.data(), b.data(), b.size());
  return out;
}

namespace {

// Every folder temp_dir() made, removed with its contents when the test process exits. A run of
// the suite makes about 70 of them, several holding model files (about 380 MB in all), and they
// used to stay behind in /tmp. AI00_KEEP_TEST_DIRS=1 keeps them for a look after a failure.
class MadeDirs {
 public:
  void add(const std::string& dir) {
    std::lock_guard<std::mutex> lock(m_);
    dirs_.push_back(dir);
  }
  ~MadeDirs() {
    const char* keep = std::getenv("AI00_KEEP_TEST_DIRS");
    if (keep && *keep && std::strcmp(keep, "0") != 0) return;
    for (const auto& d : dirs_) {
      std::error_code ec;  // best effort: a file a test still holds open must not fail the exit
      std::filesystem::remove_all(d, ec);
    }
  }

 private:
  std::mutex m_;
  std::vector<std::string> dirs_;
};

MadeDirs& made_dirs() {
  static MadeDirs dirs;
  return dirs;
}

}  // namespace

std::string temp_dir() {
  // mkdtemp: a new, empty folder every call. A name built from the pid alone can meet a folder
  // left by an earlier run whose process had the same pid.
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/ai00-test-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create " + tmpl);
  made_dirs().add(tmpl);
  return tmpl;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + path);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

double max_abs_diff(const float* a, const float* b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    if (!(d <= m)) m = d;  // NaN propagates as the max
  }
  return m;
}

}  // namespace ai00::test
