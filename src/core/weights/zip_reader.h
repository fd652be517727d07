// Minimal ZIP archive index over bytes in memory (the container of PyTorch `.pth` files).
// Reads the end-of-central-directory record (and its zip64 form), the central directory and each
// entry's local header. Only *stored* (uncompressed) entries can be opened, which is what
// torch.save writes; a compressed or encrypted entry gets a clear error when it is opened.
// Ownership: entries point into the caller's bytes, which must outlive them.
// Errors: ModelFileError "<path>: byte offset N: ..." on any malformed structure; never reads
// out of bounds. Thread-safety: immutable after construction.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ai00::internal {

struct ZipEntry {
  std::string name;
  uint16_t method = 0;  // 0 = stored
  uint16_t flags = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;           // uncompressed size
  uint64_t header_offset = 0;  // local header
  uint64_t data_offset = 0;    // first data byte (valid for stored entries after open)
};

class ZipArchive {
 public:
  // Indexes the archive; throws ModelFileError on a malformed archive.
  ZipArchive(const uint8_t* data, size_t size, std::string path);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const ZipEntry* find(const std::string& name) const;
  // The bytes of a stored entry (bounds-checked; throws for compressed/encrypted entries).
  const uint8_t* open(const ZipEntry& e, uint64_t* data_offset) const;

 private:
  void read_central_directory(uint64_t cd_offset, uint64_t cd_size, uint64_t count);
  const uint8_t* data_;
  size_t size_;
  std::string path_;
  std::vector<ZipEntry> entries_;
  std::unordered_map<std::string, size_t> index_;  // name -> entries_ (first of duplicates)
};

}  // namespace ai00::internal