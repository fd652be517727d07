// A read-only view of a whole file: memory-mapped when possible, otherwise read into memory.
// Owns the mapping; movable, not copyable. Thread-safe to read from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ai00::internal {

class MappedFile {
 public:
  // Throws IoError naming the path and the OS reason.
  static MappedFile open(const std::string& path);
  // Wraps bytes already in memory (tests, buffers handed over the C ABI).
  static MappedFile from_bytes(std::vector<uint8_t> bytes, std::string name);

  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const uint8_t* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }
  const std::string& path() const noexcept { return path_; }
  bool is_mapped() const noexcept { return mapped_; }

 private:
  void release() noexcept;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  std::vector<uint8_t> owned_;  // used when not mapped
  std::string path_;
};

}  // namespace ai00::internal