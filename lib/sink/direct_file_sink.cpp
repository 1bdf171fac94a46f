#include "sink/direct_file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "sink/file_system.h"
#include "tracecompact/error.h"
#include "util/huge_page_pool.h"
#include "util/sanitizers.h"

namespace tracecompact {

char* DirectFileSink::allocate_buffer(size_t bytes) {
  if constexpr (kSanitizerAllocator)
    return static_cast<char*>(std::aligned_alloc(kAlignment, bytes));
  try {
    return static_cast<char*>(huge_pool_allocate(bytes));
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

void DirectFileSink::FreeBuffer::operator()(char* p) const {
  if constexpr (kSanitizerAllocator)
    std::free(p);
  else
    huge_pool_deallocate(p, bytes);
}

DirectFileSink::DirectFileSink(int fd, std::string display_name, size_t buffer_size)
    : plain_(fd, display_name),
      fd_(fd),
      display_name_(std::move(display_name)),
      buffer_size_(std::max(kAlignment, buffer_size / kAlignment * kAlignment)) {
  // Only local disks: on a network file system O_DIRECT turns every write into a
  // synchronous round trip, and tmpfs has no device to write to.
  if (file_system_kind(fd_) != FileSystemKind::local_disk) return;
  // Two buffers: one filling while the other is written (the write-behind
  // queue before this sink absorbs a slow write).
  buffers_.resize(2);
  // The pool aligns its pages from kHugePoolSmallest on; a sanitizer's
  // aligned_alloc gets the exact size, so that it checks every byte past it.
  const size_t allocated =
      kSanitizerAllocator ? buffer_size_ : std::max(buffer_size_, kHugePoolSmallest);
  for (Buffer& buffer : buffers_) {
    buffer.bytes = std::unique_ptr<char, FreeBuffer>(allocate_buffer(allocated), {allocated});
    if (!buffer.bytes) {
      buffers_.clear();
      return;
    }
  }
  const int flags = ::fcntl(fd_, F_GETFL);
  direct_ = flags >= 0 && ::fcntl(fd_, F_SETFL, flags | O_DIRECT) == 0;
  if (!direct_) return;
  try {
    handoff_.emplace(
        buffers_.size(), OrderedHandoff::AtStop::kProcessHanded, nullptr,
        [this](size_t slot) { write_at_end(buffers_[slot].bytes.get(), buffers_[slot].size); });
  } catch (const std::exception&) {  // std::system_error, or no memory for it
    // No thread to spare: plain writes.
    if (!stop_direct()) fail_io("cannot write " + display_name_ + ": " + std::strerror(errno));
  }
}

size_t DirectFileSink::buffer_size_for(uint64_t expected_bytes) {
  constexpr size_t kSmallest = size_t{256} << 10;
  if (expected_bytes == 0) return kLargestBuffer;
  const uint64_t eighth = expected_bytes / 8 / kAlignment * kAlignment;
  return static_cast<size_t>(std::clamp<uint64_t>(eighth, kSmallest, kLargestBuffer));
}

// Without finish() the buffers handed over are still written (the handoff's stop).
DirectFileSink::~DirectFileSink() = default;

bool DirectFileSink::direct() const {
  return direct_;
}

void DirectFileSink::write(const char* data, size_t size) {
  if (!handoff_) {  // never direct
    plain_.write(data, size);
    return;
  }
  while (size > 0) {
    Buffer& buffer = filling();
    const size_t taken = std::min(size, buffer_size_ - buffer.size);
    std::memcpy(buffer.bytes.get() + buffer.size, data, taken);
    buffer.size += taken;
    data += taken;
    size -= taken;
    if (buffer.size == buffer_size_) hand_over();
  }
}

void DirectFileSink::finish() {
  if (!handoff_) return;
  // The whole blocks of the last buffer go direct; the tail, shorter than a
  // block, through the page cache, so that the file ends where the data does.
  Buffer& last = filling();
  const size_t whole = last.size / kAlignment * kAlignment;
  const char* const tail = last.bytes.get() + whole;
  const size_t tail_size = last.size - whole;
  last.size = whole;  // a second finish() finds nothing left
  if (whole > 0) hand_over();
  handoff_->wait_until_processed();
  // The device thread is idle now: the tail and the flags are the caller's.
  if (direct_ && !stop_direct())
    fail_io("cannot write " + display_name_ + ": " + std::strerror(errno));
  plain_.write(tail, tail_size);
}

void DirectFileSink::hand_over() {
  handoff_->hand_over();
  filling().size = 0;
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
