// Writes a new regular file on a local disk with O_DIRECT: whole aligned blocks
// go from one reused buffer straight to the device, past the page cache. On a
// virtual machine whose host takes freed memory back, filling fresh page-cache
// pages costs more than the disk write itself (1 GB: 2.1-2.4 s buffered against
// 0.45-0.5 s direct, measured with dd). The run does not read its output back
// (--verify reads it from the disk). The last, partial block goes through the
// page cache in finish(). Where the file system refuses O_DIRECT (at the flag or
// at a write), it writes through the page cache like FdSink.
#pragma once

#include <memory>
#include <string>

#include "sink/byte_sink.h"

namespace tracecompact {

class DirectFileSink final : public ByteSink {
 public:
  // `fd`: an empty regular file opened for writing, owned by the caller.
  // `buffer_size`: bytes per device write (rounded down to kAlignment). Writes of
  // 2 MiB kept pass 2 shorter than 8 MiB ones, which stall the caller longer.
  DirectFileSink(int fd, std::string display_name, size_t buffer_size = size_t{2} << 20);
  ~DirectFileSink() override;
  DirectFileSink(const DirectFileSink&) = delete;
  DirectFileSink& operator=(const DirectFileSink&) = delete;

  void write(const char* data, size_t size) override;
  void finish() override;

  // Whether writes still bypass the page cache (false after a fallback).
  bool direct() const { return direct_; }

  // Offsets, lengths and memory of O_DIRECT writes are multiples of this: 4 KiB
  // covers devices with 512-byte and 4 KiB logical blocks.
  static constexpr size_t kAlignment = 4096;

 private:
  void flush_whole_blocks();
  void write_at_end(const char* data, size_t size);
  bool stop_direct();  // clears O_DIRECT; false if the file system would not

  struct FreeAligned {
    void operator()(char* p) const;
  };
  FdSink plain_;
  const int fd_;
  const std::string display_name_;
  const size_t buffer_size_;
  std::unique_ptr<char, FreeAligned> buffer_;
  size_t buffered_ = 0;  // bytes waiting in buffer_
  bool direct_ = false;
};

}  // namespace tracecompact
