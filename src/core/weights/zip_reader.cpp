// ZIP index (see zip_reader.h). Format: PKWARE APPNOTE 6.3 sections 4.3.7 (local header),
// 4.3.12 (central directory), 4.3.14-16 (zip64 end records), 4.5.3 (zip64 extra field).
#include "core/weights/zip_reader.h"

#include <algorithm>
#include <cstring>

#include "core/weights/weights_internal.h"

namespace ai00::internal {

using weights_detail::checked_add;
using weights_detail::fail;
using weights_detail::Reader;

namespace {

constexpr uint32_t kLocalSig = 0x04034b50u;
constexpr uint32_t kCentralSig = 0x02014b50u;
constexpr uint32_t kEndSig = 0x06054b50u;
constexpr uint32_t kEnd64Sig = 0x06064b50u;
constexpr uint32_t kLocator64Sig = 0x07064b50u;

uint32_t peek32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Applies the zip64 extra field (id 1) to the sizes/offset that were saturated at 0xFFFFFFFF.
void apply_zip64_extra(Reader& extra, ZipEntry& e, bool usize, bool csize, bool offset) {
  while (extra.remaining() >= 4) {
    const uint16_t id = extra.u16("extra field id");
    const uint16_t len = extra.u16("extra field length");
    const size_t end = extra.pos() + len;
    extra.need(len, "extra field");
    if (id == 1) {
      if (usize) e.size = extra.u64("zip64 uncompressed size");
      if (csize) e.compressed_size = extra.u64("zip64 compressed size");
      if (offset) e.header_offset = extra.u64("zip64 local header offset");
    }
    extra.seek(end);
  }
}

}  // namespace

ZipArchive::ZipArchive(const uint8_t* data, size_t size, std::string path)
    : data_(data), size_(size), path_(std::move(path)) {
  if (size_ < 22) fail(path_, "", 0, "ZIP archive truncated: no end of central directory");
  // The end record is 22 bytes plus a comment of at most 65535 bytes.
  size_t pos = size_ - 22;
  const size_t lowest = size_ > 22 + 65535 ? size_ - 22 - 65535 : 0;
  while (peek32(data_ + pos) != kEndSig) {
    if (pos == lowest)
      fail(path_, "", size_, "ZIP end of central directory not found (truncated?)");
    --pos;
  }
  Reader r(data_, size_, path_, pos + 10);
  uint64_t count = r.u16("entry count");
  uint64_t cd_size = r.u32("central directory size");
  uint64_t cd_offset = r.u32("central directory offset");
  if ((count == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) && pos >= 20 &&
      peek32(data_ + pos - 20) == kLocator64Sig) {
    Reader loc(data_, size_, path_, pos - 20 + 8);
    const uint64_t end64 = loc.u64("zip64 end record offset");
    if (size_ < 56 || end64 > size_ - 56 || peek32(data_ + end64) != kEnd64Sig) {
      fail(path_, "", end64, "bad zip64 end of central directory record");
    }
    Reader z(data_, size_, path_, end64 + 32);
    count = z.u64("zip64 entry count");
    cd_size = z.u64("zip64 central directory size");
    cd_offset = z.u64("zip64 central directory offset");
  }
  uint64_t cd_end = 0;
  if (!checked_add(cd_offset, cd_size, &cd_end) || cd_end > size_) {
    fail(path_, "", pos,
         "ZIP central directory [" + std::to_string(cd_offset) + ", +" + std::to_string(cd_size) +
             ") lies outside the file");
  }
  if (count > cd_size / 46)
    fail(path_, "", pos, "ZIP entry count larger than the central directory");
  read_central_directory(cd_offset, cd_size, count);
}

void ZipArchive::read_central_directory(uint64_t cd_offset, uint64_t cd_size, uint64_t count) {
  Reader r(data_, static_cast<size_t>(cd_offset + cd_size), path_, static_cast<size_t>(cd_offset));
  for (uint64_t i = 0; i < count; ++i) {
    const size_t start = r.pos();
    if (r.u32("central directory signature") != kCentralSig) {
      r.fail_at(start, "bad ZIP central directory entry signature");
    }
    ZipEntry e;
    r.bytes(4, "versions");
    e.flags = r.u16("flags");
    e.method = r.u16("compression method");
    r.bytes(8, "time, date, crc");
    e.compressed_size = r.u32("compressed size");
    e.size = r.u32("uncompressed size");
    const uint16_t name_len = r.u16("name length");
    const uint16_t extra_len = r.u16("extra length");
    const uint16_t comment_len = r.u16("comment length");
    r.bytes(8, "disk, attributes");
    e.header_offset = r.u32("local header offset");
    e.name = r.str(name_len, "entry name");
    Reader extra(r.bytes(extra_len, "extra field"), extra_len, path_);
    apply_zip64_extra(extra, e, e.size == 0xffffffffu, e.compressed_size == 0xffffffffu,
                      e.header_offset == 0xffffffffu);
    r.bytes(comment_len, "entry comment");
    index_.emplace(e.name, entries_.size());
    entries_.push_back(std::move(e));
  }
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const uint8_t* ZipArchive::open(const ZipEntry& e, uint64_t* data_offset) const {
  if (e.flags & 1u) fail(path_, e.name, e.header_offset, "encrypted ZIP entry");
  if (e.method != 0) {
    fail(path_, e.name, e.header_offset,
         "compressed ZIP entry (method " + std::to_string(e.method) +
             "); only stored entries are supported, as written by torch.save");
  }
  if (e.header_offset > size_ || size_ - e.header_offset < 30 ||
      peek32(data_ + e.header_offset) != kLocalSig) {
    fail(path_, e.name, e.header_offset, "bad ZIP local header");
  }
  Reader r(data_, size_, path_, static_cast<size_t>(e.header_offset + 26));
  const uint16_t name_len = r.u16("name length");
  const uint16_t extra_len = r.u16("extra length");
  const uint64_t start = e.header_offset + 30 + name_len + extra_len;
  uint64_t end = 0;
  if (e.compressed_size != e.size || !checked_add(start, e.size, &end) || end > size_) {
    fail(path_, e.name, start,
         "entry data (" + std::to_string(e.size) + " bytes) runs past the end of the file");
  }
  *data_offset = start;
  return data_ + start;
}

}  // namespace ai00::internal