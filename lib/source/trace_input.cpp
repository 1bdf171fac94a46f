#include "source/trace_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sink/temp_files.h"
#include "source/prefetch_source.h"
#include "tracecompact/error.h"

namespace tracecompact {
namespace {

std::string read_head(const std::string& path, const std::string& display_name) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_io("cannot read " + display_name + ": " + std::strerror(errno));
  char head[2];
  const ssize_t got = ::pread(fd, head, sizeof head, 0);
  const int saved = errno;
  ::close(fd);
  if (got < 0) fail_io("cannot read " + display_name + ": " + std::strerror(saved));
  return std::string(head, static_cast<size_t>(got));
}

void copy_fd(int input_fd, int fd, const std::string& display_name, const std::string& path) {
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t got = ::read(input_fd, buffer.data(), buffer.size());
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot read " + display_name + ": " + std::strerror(errno));
    }
    for (ssize_t done = 0; done < got;) {
      const ssize_t wrote = ::write(fd, buffer.data() + done, static_cast<size_t>(got - done));
      if (wrote < 0) {
        if (errno == EINTR) continue;
        fail_io("cannot spool " + display_name + " to " + path + ": " + std::strerror(errno));
      }
      done += wrote;
    }
  }
}

// Copies a stream (stdin, a pipe) to a private temporary file, removed again
// if the copy fails.
std::string spool_to_temp(int input_fd, const std::string& display_name) {
  std::string path;
  const int fd = create_scratch_file("in", path);
  try {
    copy_fd(input_fd, fd, display_name, path);
  } catch (...) {
    ::close(fd);
    remove_temp_file(path);
    throw;
  }
  ::close(fd);
  return path;
}

}  // namespace

TraceInput TraceInput::open_path(const std::string& path) {
  TraceInput input;
  input.display_name_ = path == "-" ? "<stdin>" : path;
  if (path == "-") {
    input.spool_path_ = spool_to_temp(STDIN_FILENO, input.display_name_);
    input.path_ = input.spool_path_;
  } else {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0)
      fail_io("cannot read " + path + ": " + std::strerror(errno));
    if (S_ISDIR(info.st_mode)) fail_usage("input must be a trace file without --merge-pp-ranks");
    if (S_ISREG(info.st_mode)) {
      input.path_ = path;
    } else {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) fail_io("cannot read " + path + ": " + std::strerror(errno));
      input.spool_path_ = spool_to_temp(fd, path);
      ::close(fd);
      input.path_ = input.spool_path_;
    }
  }
  input.gzip_ = starts_with_gzip_magic(read_head(input.path_, input.display_name_));
  struct stat info {};
  if (::stat(input.path_.c_str(), &info) == 0) input.size_ = static_cast<uint64_t>(info.st_size);
  return input;
}

TraceInput TraceInput::from_memory(std::string bytes, std::string display_name) {
  TraceInput input;
  input.memory_ = std::make_shared<std::string>(std::move(bytes));
  input.display_name_ = std::move(display_name);
  input.gzip_ = starts_with_gzip_magic(*input.memory_);
  input.size_ = input.memory_->size();
  return input;
}

TraceInput::TraceInput(TraceInput&& other) noexcept {
  *this = std::move(other);
}

TraceInput& TraceInput::operator=(TraceInput&& other) noexcept {
  path_ = std::move(other.path_);
  spool_path_ = std::move(other.spool_path_);
  other.spool_path_.clear();
  memory_ = std::move(other.memory_);
  display_name_ = std::move(other.display_name_);
  gzip_ = other.gzip_;
  size_ = other.size_;
  return *this;
}

TraceInput::~TraceInput() {
  if (!spool_path_.empty()) remove_temp_file(spool_path_);
}

size_t TraceInput::chunk_size() const {
  constexpr size_t kLargest = size_t{4} << 20, kSmallest = size_t{4} << 10;
  if (gzip_ || size_ >= kLargest) return kLargest;
  return std::max<size_t>(kSmallest, static_cast<size_t>(size_) + 1);
}

// The stored bytes from `offset` on, read in order.
std::unique_ptr<ByteSource> TraceInput::stored_bytes_from(uint64_t offset) const {
  if (memory_) {
    auto source = std::make_unique<MemorySource>(*memory_);
    source->seek(offset);
    return source;
  }
  auto source = std::make_unique<FileSource>(path_, display_name_);
  source->seek(offset);
  return source;
}

std::unique_ptr<ByteSource> TraceInput::open() const {
  std::unique_ptr<ByteSource> raw = stored_bytes_from(0);
  if (!gzip_) return raw;
  raw = std::make_unique<GzipSource>(std::move(raw), display_name_);
  // Read-ahead pays where inflating can overlap parsing; plain bytes are read
  // straight into the caller's buffer (one copy fewer), memory is already there.
  if (memory_) return raw;
  return std::make_unique<PrefetchSource>(std::move(raw));
}

std::unique_ptr<ByteSource> TraceInput::open_at(uint64_t offset) const {
  return gzip_ ? nullptr : stored_bytes_from(offset);
}

std::unique_ptr<RandomAccessInput> TraceInput::open_random_access() const {
  if (gzip_) return nullptr;
  if (memory_) return std::make_unique<RandomAccessMemory>(*memory_);
  return std::make_unique<RandomAccessFile>(path_, display_name_);
}

}  // namespace tracecompact
