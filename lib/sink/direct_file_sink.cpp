#include "sink/direct_file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "sink/file_system.h"
#include "tracecompact/error.h"

namespace tracecompact {

void DirectFileSink::FreeAligned::operator()(char* p) const {
  std::free(p);
}

DirectFileSink::DirectFileSink(int fd, std::string display_name, size_t buffer_size)
    : plain_(fd, display_name),
      fd_(fd),
      display_name_(std::move(display_name)),
      buffer_size_(std::max(kAlignment, buffer_size / kAlignment * kAlignment)) {
  // Only local disks: on a network file system O_DIRECT turns every write into a
  // synchronous round trip, and tmpfs has no device to write to.
  if (file_system_kind(fd_) != FileSystemKind::local_disk) return;
  buffer_.reset(static_cast<char*>(std::aligned_alloc(kAlignment, buffer_size_)));
  if (!buffer_) return;
  const int flags = ::fcntl(fd_, F_GETFL);
  direct_ = flags >= 0 && ::fcntl(fd_, F_SETFL, flags | O_DIRECT) == 0;
}

DirectFileSink::~DirectFileSink() = default;

void DirectFileSink::write(const char* data, size_t size) {
  while (direct_ && size > 0) {
    const size_t taken = std::min(size, buffer_size_ - buffered_);
    std::memcpy(buffer_.get() + buffered_, data, taken);
    buffered_ += taken;
    data += taken;
    size -= taken;
    if (buffered_ == buffer_size_) flush_whole_blocks();
  }
  if (size > 0) plain_.write(data, size);  // not (or no longer) direct
}

void DirectFileSink::finish() {
  if (!direct_) return;
  flush_whole_blocks();
  // The tail is shorter than a block: it goes through the page cache, so that the
  // file ends where the data does without padding or truncating.
  const size_t tail = buffered_;
  buffered_ = 0;
  if (direct_ && !stop_direct())
    fail_io("cannot write " + display_name_ + ": " + std::strerror(errno));
  plain_.write(buffer_.get(), tail);
}

// Writes the whole blocks of the buffer and keeps the partial one at its start
// (or writes it too, after a fallback, so that nothing waits behind later writes).
void DirectFileSink::flush_whole_blocks() {
  const size_t whole = buffered_ / kAlignment * kAlignment;
  write_at_end(buffer_.get(), whole);
  if (!direct_) {
    plain_.write(buffer_.get() + whole, buffered_ - whole);
    buffered_ = 0;
    return;
  }
  std::memmove(buffer_.get(), buffer_.get() + whole, buffered_ - whole);
  buffered_ -= whole;
}

void DirectFileSink::write_at_end(const char* data, size_t size) {
  while (direct_ && size > 0) {
    const ssize_t wrote = ::write(fd_, data, size);
    const int error = errno;
    if (wrote < 0 && error == EINTR) continue;
    // EINVAL: the file system takes the flag but not the write (alignment it
    // wants larger, or an offset left unaligned by a short write before).
    if (wrote < 0 && error == EINVAL && stop_direct()) break;
    if (wrote < 0) fail_io("cannot write " + display_name_ + ": " + std::strerror(error));
    data += wrote;
    size -= static_cast<size_t>(wrote);
  }
  if (size > 0) plain_.write(data, size);
}

bool DirectFileSink::stop_direct() {
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) return false;
  direct_ = false;
  return true;
}

}  // namespace tracecompact
