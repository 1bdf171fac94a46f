// Writes a new regular file on a local disk with O_DIRECT: whole aligned blocks
// go from two reused buffers straight to the device, past the page cache. On a
// virtual machine whose host takes freed memory back, filling fresh page-cache
// pages costs more than the disk write itself (1 GB: 2.1-2.4 s buffered against
// 0.45-0.5 s direct, measured with dd). The run does not read its output back
// (--verify reads it from the disk). The last, partial block goes through the
// page cache in finish(). Where the file system refuses O_DIRECT (at the flag or
// at a write), it writes through the page cache like FdSink.
//
// A direct write returns only once the device has the data, so the writes are
// made on a device thread of the sink's own: the caller fills the next buffer
// (a copy of 2 MiB) while the device takes the last one, instead of one after
// the other. A device thread's failure reaches the caller when it hands over
// its next buffer, or at finish().
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sink/byte_sink.h"
#include "util/ordered_handoff.h"

namespace tracecompact {

class DirectFileSink final : public ByteSink {
 public:
  // `fd`: an empty regular file opened for writing, owned by the caller.
  // `buffer_size`: bytes per device write (rounded down to kAlignment). Writes of
  // 2 MiB kept pass 2 shorter than 8 MiB ones, which stall the caller longer.
  static constexpr size_t kLargestBuffer = size_t{2} << 20;
  DirectFileSink(int fd, std::string display_name, size_t buffer_size = kLargestBuffer);
  // The buffer size for an output of about `expected_bytes` (0: unknown): an
  // eighth of it, 256 KiB to kLargestBuffer, so that a small output does not
  // first touch two buffers larger than itself.
  static size_t buffer_size_for(uint64_t expected_bytes);
  // Without finish(): the whole buffers handed over are written, the rest dropped.
  ~DirectFileSink() override;
  DirectFileSink(const DirectFileSink&) = delete;
  DirectFileSink& operator=(const DirectFileSink&) = delete;

  void write(const char* data, size_t size) override;
  void finish() override;

  // Whether writes still bypass the page cache (false after a fallback). Ask it
  // between writes: a fallback happens on the device thread.
  bool direct() const;

  // Offsets, lengths and memory of O_DIRECT writes are multiples of this: 4 KiB
  // covers devices with 512-byte and 4 KiB logical blocks.
  static constexpr size_t kAlignment = 4096;

 private:
  // The buffers come from the huge-page pool (util/huge_page_pool.h), 4 KiB-aligned
  // as O_DIRECT needs; under a sanitizer from its allocator, which checks accesses.
  struct FreeBuffer {
    size_t bytes;  // no initializer: GCC would not see the type as default-constructible here
    void operator()(char* p) const;
  };
  static char* allocate_buffer(size_t bytes);
  struct Buffer {
    std::unique_ptr<char, FreeBuffer> bytes;
    size_t size = 0;  // bytes filled (caller) or to write (device thread)
  };

  Buffer& filling() { return buffers_[handoff_->filling()]; }
  void hand_over();  // the filling buffer to the device thread; waits for a free one
  void write_at_end(const char* data, size_t size);
  bool stop_direct();  // clears O_DIRECT; false if the file system would not

  FdSink plain_;
  const int fd_;
  const std::string display_name_;
  const size_t buffer_size_;
  std::vector<Buffer> buffers_;  // the handoff's slots
  // Written on the device thread once it runs (a fallback), read by any.
  std::atomic<bool> direct_ = false;
  // The device thread; none when the sink writes plainly from the start. Last:
  // its thread uses the buffers.
  std::optional<OrderedHandoff> handoff_;
};

}  // namespace tracecompact
