// State bundles: writing and reading the container of state_bundle.h.
#include "core/model/state_bundle.h"

#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "base/utf8.h"
#include "core/model/model.h"

namespace ai00::internal {
namespace {

constexpr char kMagic[8] = {'A', 'I', '0', '0', 'B', 'N', 'D', 'L'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 32;
constexpr size_t kEntryHeaderBytes = 32;
constexpr size_t kMaxName = 4096;

std::string entry_label(size_t index, const std::string& name) {
  return "entry " + std::to_string(index) + (name.empty() ? "" : " ('" + name + "')");
}

void check_items(const std::vector<BundleItem>& items) {
  std::set<std::string_view> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string at = "state bundle: entry " + std::to_string(i) + ": ";
    if (items[i].state == nullptr) throw InvalidArgument(at + "the State is null");
    const std::string_view name = items[i].name;
    if (name.empty()) throw InvalidArgument(at + "the name is empty");
    if (name.size() > kMaxName)
      throw InvalidArgument(at + "the name has " + std::to_string(name.size()) +
                            " bytes, more than " + std::to_string(kMaxName));
    if (!utf8::is_valid(name)) throw InvalidArgument(at + "the name is not valid UTF-8");
    if (!seen.insert(name).second)
      throw InvalidArgument(at + "the name '" + std::string(name) + "' is used twice");
  }
}

}  // namespace

size_t state_bundle_size(const std::vector<BundleItem>& items) {
  check_items(items);
  size_t total = kHeaderBytes;
  for (const BundleItem& it : items)
    total += kEntryHeaderBytes + it.name.size() + it.state->serialized_size();
  return total;
}

void save_state_bundle(const std::vector<BundleItem>& items, uint8_t* out, size_t capacity) {
  const size_t need = state_bundle_size(items);
  if (out == nullptr || capacity < need)
    throw InvalidArgument("state bundle: buffer of " + std::to_string(capacity) + " bytes, need " +
                          std::to_string(need));
  std::memset(out, 0, kHeaderBytes);
  std::memcpy(out, kMagic, 8);
  store_le<uint32_t>(out, 8, kVersion);
  store_le<uint32_t>(out, 12, static_cast<uint32_t>(kHeaderBytes));
  store_le<uint64_t>(out, 16, static_cast<uint64_t>(items.size()));
  store_le<uint64_t>(out, 24, fnv1a64(out, 24));
  size_t off = kHeaderBytes;
  for (const BundleItem& it : items) {
    const size_t n = it.name.size(), m = it.state->serialized_size();
    uint8_t* e = out + off;
    store_le<uint32_t>(e, 0, static_cast<uint32_t>(n));
    store_le<uint32_t>(e, 4, 0);
    store_le<uint64_t>(e, 8, it.state->fingerprint());
    store_le<uint64_t>(e, 16, static_cast<uint64_t>(m));
    std::memcpy(e + kEntryHeaderBytes, it.name.data(), n);
    it.state->serialize_into(e + kEntryHeaderBytes + n, m);
    store_le<uint64_t>(e, 24, fnv1a64(e + kEntryHeaderBytes, n + m));
    off += kEntryHeaderBytes + n + m;
  }
}

std::vector<uint8_t> save_state_bundle(const std::vector<BundleItem>& items) {
  std::vector<uint8_t> out(state_bundle_size(items));
  save_state_bundle(items, out.data(), out.size());
  return out;
}

void save_state_bundle_file(const std::vector<BundleItem>& items, const std::string& path) {
  const std::vector<uint8_t> bytes = save_state_bundle(items);
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) throw IoError("cannot open '" + tmp + "' for writing");
  bool bad = std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fflush(f) != 0;
  bad = (std::fclose(f) != 0) || bad;
  if (bad || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw IoError("error writing '" + path + "'");
  }
}

StateBundle StateBundle::open(const uint8_t* bytes, size_t size, const std::string& source) {
  if (bytes == nullptr && size > 0) throw InvalidArgument("state bundle: null buffer");
  StateBundle b(MappedFile::from_bytes(std::vector<uint8_t>(bytes, bytes + size), source));
  b.parse(source);
  return b;
}

StateBundle StateBundle::open_file(const std::string& path) {
  StateBundle b(MappedFile::open(path));
  b.parse(path);
  return b;
}

void StateBundle::parse(const std::string& source) {
  source_ = source;
  const uint8_t* p = file_.data();
  const size_t size = file_.size();
  auto fail = [&](size_t off, const std::string& what) -> void {
    throw ModelFileError(source + ": state bundle, byte offset " + std::to_string(off) + ": " +
                         what);
  };
  if (size < kHeaderBytes)
    fail(size, "truncated header (" + std::to_string(size) + " bytes, need 32)");
  if (std::memcmp(p, kMagic, 8) != 0) fail(0, "bad magic (not AI00BNDL)");
  if (load_le<uint32_t>(p, 8) != kVersion)
    fail(8, "unsupported version " + std::to_string(load_le<uint32_t>(p, 8)));
  if (load_le<uint32_t>(p, 12) != kHeaderBytes) fail(12, "header size is not 32");
  if (fnv1a64(p, 24) != load_le<uint64_t>(p, 24)) fail(24, "header checksum mismatch");
  const uint64_t count = load_le<uint64_t>(p, 16);
  std::set<std::string> names;
  size_t off = kHeaderBytes;
  for (uint64_t i = 0; i < count; ++i) {
    const std::string label = entry_label(static_cast<size_t>(i), "");
    if (size - off < kEntryHeaderBytes) fail(off, label + ": truncated entry header");
    const size_t n = load_le<uint32_t>(p + off, 0);
    const uint64_t m = load_le<uint64_t>(p + off, 16);
    if (n == 0 || n > kMaxName) fail(off, label + ": name length " + std::to_string(n));
    if (size - off - kEntryHeaderBytes < n) fail(off, label + ": truncated name");
    Entry e;
    e.name.assign(reinterpret_cast<const char*>(p + off + kEntryHeaderBytes), n);
    const std::string named = entry_label(static_cast<size_t>(i), e.name);
    if (m > size - off - kEntryHeaderBytes - n)
      fail(off + 16, named + ": State of " + std::to_string(m) + " bytes runs past the end (" +
                         std::to_string(size) + " bytes)");
    if (fnv1a64(p + off + kEntryHeaderBytes, n + static_cast<size_t>(m)) !=
        load_le<uint64_t>(p + off, 24))
      fail(off + 24, named + ": checksum mismatch (corrupt name or State bytes)");
    if (!names.insert(e.name).second) fail(off, named + ": the name is used twice");
    e.fingerprint = load_le<uint64_t>(p + off, 8);
    e.offset = off;
    e.state_offset = off + kEntryHeaderBytes + n;
    e.state_size = static_cast<size_t>(m);
    entries_.push_back(std::move(e));
    off = entries_.back().state_offset + entries_.back().state_size;
  }
  if (off != size) fail(off, std::to_string(size - off) + " trailing bytes after the last entry");
}

const std::string& StateBundle::name(size_t index) const {
  if (index >= entries_.size())
    throw InvalidArgument("state bundle: index " + std::to_string(index) + " is past the " +
                          std::to_string(entries_.size()) + " entries");
  return entries_[index].name;
}

uint64_t StateBundle::fingerprint(size_t index) const {
  name(index);  // range check
  return entries_[index].fingerprint;
}

size_t StateBundle::find(std::string_view name) const {
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].name == name) return i;
  return entries_.size();
}

State StateBundle::load(const Model& model, size_t index) const {
  const Entry& e = entries_[(name(index), index)];
  const std::string where = source_ + ": state bundle, " + entry_label(index, e.name) +
                            " at byte offset " + std::to_string(e.offset) + ": ";
  if (e.fingerprint != model.fingerprint())
    throw MismatchError(where + "the State belongs to another model (fingerprint " +
                        std::to_string(e.fingerprint) + ", this model " +
                        std::to_string(model.fingerprint()) + ")");
  try {
    return State::deserialize(model, file_.data() + e.state_offset, e.state_size);
  } catch (const Error& err) {
    throw_error(err.kind(), where + err.what());
  }
}

std::vector<State> StateBundle::load_all(const Model& model) const {
  std::vector<State> out;
  out.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) out.push_back(load(model, i));
  return out;
}

}  // namespace ai00::internal
