// State bundles: many named States in one buffer or file ("a whole village in one file";
// docs/prefix-cache.md "State bundles").
//
// Format (little-endian), version 1:
//   header, 32 bytes:
//     0  char[8] magic "AI00BNDL"
//     8  u32     version (1)
//    12  u32     header bytes (32)
//    16  u64     entry count
//    24  u64     FNV-1a 64 of bytes 0..24
//   then `count` entries, back to back; entry at offset E:
//     E+0   u32     name bytes n (1 .. 4096), UTF-8, unique within the bundle
//     E+4   u32     reserved (0)
//     E+8   u64     model fingerprint of the State
//     E+16  u64     m, bytes of the serialized State
//     E+24  u64     FNV-1a 64 of the n name bytes followed by the m State bytes
//     E+32  u8[n]   name
//     E+32+n u8[m]  State::serialize() (its own magic, version, fingerprint and checksums)
//   and nothing after the last entry.
// A State's record carries its sampler state, so a loaded State continues exactly.
//
// Errors: saving throws InvalidArgument naming the entry index for an empty, oversize, invalid
// UTF-8 or duplicated name. Opening throws ModelFileError naming the entry index, its name when
// known and the byte offset for a truncated or corrupt bundle, a checksum mismatch and a
// duplicated name; loading an entry throws MismatchError (index, name, offset) when it belongs
// to another model. Files: IoError with the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/mapped_file.h"
#include "core/model/state.h"

namespace ai00::internal {

class Model;

// One entry of a bundle to save: a caller-given name and a borrowed State.
struct BundleItem {
  std::string_view name;
  const State* state = nullptr;
};

// Bytes of the bundle save_state_bundle() writes.
size_t state_bundle_size(const std::vector<BundleItem>& items);
// Writes the bundle into out[0..capacity); InvalidArgument if capacity < state_bundle_size().
void save_state_bundle(const std::vector<BundleItem>& items, uint8_t* out, size_t capacity);
std::vector<uint8_t> save_state_bundle(const std::vector<BundleItem>& items);
// Writes the bundle to `path` through a temporary file renamed into place.
void save_state_bundle_file(const std::vector<BundleItem>& items, const std::string& path);

// A bundle opened for reading: every entry header, name and checksum is verified by open(); the
// State bytes are parsed only by load().
class StateBundle {
 public:
  // `bytes` are copied (or the file mapped); `source` names the bundle in error messages.
  static StateBundle open(const uint8_t* bytes, size_t size, const std::string& source);
  static StateBundle open_file(const std::string& path);

  size_t size() const { return entries_.size(); }
  const std::string& name(size_t index) const;
  uint64_t fingerprint(size_t index) const;
  // Index of the entry named `name`, or size() when there is none.
  size_t find(std::string_view name) const;
  // The State of entry `index` for `model` (MismatchError for another model's entry).
  State load(const Model& model, size_t index) const;
  // Every State, in order (MismatchError at the first entry of another model).
  std::vector<State> load_all(const Model& model) const;

 private:
  struct Entry {
    std::string name;
    uint64_t fingerprint = 0;
    size_t offset = 0;        // of the entry header
    size_t state_offset = 0;  // of the State bytes
    size_t state_size = 0;
  };
  explicit StateBundle(MappedFile file) : file_(std::move(file)) {}
  void parse(const std::string& source);

  MappedFile file_;
  std::string source_;
  std::vector<Entry> entries_;
};

}  // namespace ai00::internal
