// Writes a new regular file while a helper thread keeps the next stretch ahead of
// the writer reserved (fallocate) and in the page cache (readahead of reserved,
// unwritten blocks fills pages with zeros without reading the disk). write() then
// copies into pages that exist: allocating page-cache pages, costly on virtual
// machines whose host takes freed memory back, moves off the writer's thread.
// Only on local file systems known to handle this (ext4, XFS, btrfs, tmpfs);
// elsewhere, or once a reservation fails (no space, not supported), it is a
// plain write() sink. finish() cuts the file back to the bytes written.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "sink/byte_sink.h"

namespace tracecompact {

class PreparedFileSink final : public ByteSink {
 public:
  // `fd`: an empty regular file opened for writing, owned by the caller. The
  // helper reserves `step` bytes at a time, up to `lead` bytes past the data.
  PreparedFileSink(int fd, std::string display_name, uint64_t step = uint64_t{8} << 20,
                   uint64_t lead = uint64_t{64} << 20);
  ~PreparedFileSink() override;
  PreparedFileSink(const PreparedFileSink&) = delete;
  PreparedFileSink& operator=(const PreparedFileSink&) = delete;

  void write(const char* data, size_t size) override;
  void finish() override;

  // Whether a helper prepares the file: its file system is one it knows.
  bool preparing() const { return preparing_; }

 private:
  void prepare_ahead();  // the helper thread
  void stop_helper();

  FdSink plain_;
  const int fd_;
  const uint64_t step_, lead_;
  const std::string display_name_;
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t written_ = 0;   // bytes written so far
  uint64_t prepared_ = 0;  // file bytes reserved (and size extended) by the helper
  bool stopping_ = false;
  bool preparing_ = false;
  std::thread helper_;
};

}  // namespace tracecompact
