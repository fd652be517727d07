// Test helpers: where the shared fixtures live and small file readers.
// Fixtures are found through the AI00_SHARED_DIR environment variable, or the default compiled
// in by CMake (<repo>/../shared); they are never copied into the repository.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ai00::test {

std::string shared_dir();
std::string shared_path(const std::string& relative);      // shared_dir() + "/" + relative
std::vector<uint8_t> read_bytes(const std::string& path);  // throws std::runtime_error
std::vector<float> read_f32(const std::string& path);      // little-endian float32 array
std::string read_text(const std::string& path);
// A fresh, empty scratch directory under $TMPDIR or /tmp (unique per call), removed with its
// contents when the process exits (kept if AI00_KEEP_TEST_DIRS is set and not 0).
std::string temp_dir();
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);

// max_i |a[i] - b[i]|; sizes must match (else +inf).
double max_abs_diff(const float* a, const float* b, size_t n);

}  // namespace ai00::test
