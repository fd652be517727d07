#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "base/error.h"
#include "base/limits.h"

namespace ai00::internal {

MappedFile MappedFile::open(const std::string& path) {
  MappedFile f;
  f.path_ = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    throw IoError(path + ": cannot stat: " + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw IoError(path + ": is a directory, not a file");
  }
  f.size_ = static_cast<size_t>(st.st_size);
  if (uint64_t max = limits().max_file_bytes; f.size_ > max) {  // before mapping or reading
    ::close(fd);
    throw_limit(ErrorKind::io, path, std::to_string(f.size_) + " bytes", "max_file_bytes", max);
  }
  if (f.size_ == 0) {  // mmap of length 0 fails; an empty file is a valid (empty) view
    ::close(fd);
    return f;
  }
  void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p != MAP_FAILED) {
    f.data_ = static_cast<const uint8_t*>(p);
    f.mapped_ = true;
    ::close(fd);
    return f;
  }
  // Not mappable (a pipe, some FUSE mounts): read it instead.
  f.owned_.resize(f.size_);
  size_t got = 0;
  while (got < f.size_) {
    ssize_t n = ::read(fd, f.owned_.data() + got, f.size_ - got);
    if (n <= 0) {
      int e = errno;
      ::close(fd);
      throw IoError(path + ": read failed at byte " + std::to_string(got) + ": " +
                    (n == 0 ? "unexpected end of file" : std::strerror(e)));
    }
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  f.data_ = f.owned_.data();
  return f;
}

MappedFile MappedFile::from_bytes(std::vector<uint8_t> bytes, std::string name) {
  MappedFile f;
  f.owned_ = std::move(bytes);
  f.data_ = f.owned_.data();
  f.size_ = f.owned_.size();
  f.path_ = std::move(name);
  return f;
}

MappedFile::MappedFile(MappedFile&& o) noexcept { *this = std::move(o); }

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this == &o) return *this;
  release();
  mapped_ = o.mapped_;
  size_ = o.size_;
  path_ = std::move(o.path_);
  owned_ = std::move(o.owned_);
  data_ = mapped_ ? o.data_ : owned_.data();
  o.data_ = nullptr;
  o.size_ = 0;
  o.mapped_ = false;
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() noexcept {
  if (mapped_ && data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
  owned_.clear();
}

}  // namespace ai00::internal