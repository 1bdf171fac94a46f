#include "sink/prepared_file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "sink/file_system.h"
#include "tracecompact/error.h"
#include "util/helper_thread.h"

namespace tracecompact {

PreparedFileSink::PreparedFileSink(int fd, std::string display_name, uint64_t step, uint64_t lead)
    : plain_(fd, display_name),
      fd_(fd),
      step_(step),
      lead_(lead),
      display_name_(std::move(display_name)) {
  // File systems where reserved blocks read back as zeros without disk reads (on
  // a network file system the readahead would fetch the range over the wire).
  // Reserving grows the file, so under a file size limit it could cross the
  // limit before the data does.
  if (file_system_kind(fd_) == FileSystemKind::other || !file_size_unlimited()) return;
  try {
    helper_ = start_helper_thread([this] { prepare_ahead(); });
    preparing_ = true;
  } catch (const std::system_error&) {
    // No thread to spare: plain writes.
  }
}

PreparedFileSink::~PreparedFileSink() {
  stop_helper();
}

void PreparedFileSink::write(const char* data, size_t size) {
  plain_.write(data, size);
  if (!preparing_) return;
  {
    std::lock_guard lock(mutex_);
    written_ += size;
  }
  changed_.notify_one();
}

void PreparedFileSink::finish() {
  stop_helper();
  // The reserved stretch past the data goes, so that the file ends where the data
  // does (also after a reservation that failed half way and still grew the file).
  if (preparing_ && ::ftruncate(fd_, static_cast<off_t>(written_)) != 0)
    fail_io("cannot write " + display_name_ + ": " + std::strerror(errno));
}

void PreparedFileSink::stop_helper() {
  if (!helper_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_one();
  helper_.join();
}

void PreparedFileSink::prepare_ahead() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // Small outputs are not prepared at all: reserving starts after the first step.
    changed_.wait(lock,
                  [&] { return stopping_ || (written_ >= step_ && prepared_ < written_ + lead_); });
    if (stopping_) return;
    const uint64_t from = std::max(prepared_, written_ / step_ * step_);
    lock.unlock();
    // Mode 0 also extends the file's size; finish() cuts it back. A failure (no
    // space, not supported) only ends the preparing: the writes go on as before.
    const bool reserved =
        ::fallocate(fd_, 0, static_cast<off_t>(from), static_cast<off_t>(step_)) == 0;
    // The kernel reads ahead at most max(read_ahead_kb, max_sectors_kb) per call,
    // 128 KiB by default, so the stretch is asked for in pieces of that size.
    constexpr uint64_t kReadahead = uint64_t{128} << 10;
    for (uint64_t at = from; reserved && at < from + step_; at += kReadahead)
      ::posix_fadvise(fd_, static_cast<off_t>(at),
                      static_cast<off_t>(std::min(kReadahead, from + step_ - at)),
                      POSIX_FADV_WILLNEED);
    lock.lock();
    if (!reserved) return;
    prepared_ = from + step_;
  }
}

}  // namespace tracecompact
