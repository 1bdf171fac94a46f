// Writes (and deflates) behind the caller on a second thread, the output side
// of PrefetchSource: the caller fills blocks, a writer thread hands them to the
// inner sink (gzip, a file), so that compression and the kernel's page-cache
// work overlap with rendering. A writer error is rethrown to the caller at its
// next write(), adopt() or finish().
#pragma once

#include <cstdint>
#include <vector>

#include "sink/byte_sink.h"
#include "util/ordered_handoff.h"

namespace tracecompact {

class WriteBehindSink final : public ByteSink {
 public:
  static constexpr size_t kBlockBytes = size_t{1} << 20;
  static constexpr size_t kDeepest = 8;

  // `depth` blocks in flight: 8 MiB covers a direct write stalled on the device.
  explicit WriteBehindSink(ByteSink& inner, size_t block_size = kBlockBytes,
                           size_t depth = kDeepest);
  ~WriteBehindSink() override;  // without finish(): stops the writer, dropping pending blocks
  // The depth for an output of about `expected_bytes` (0: unknown): a quarter of
  // it at most, 2 to kDeepest blocks. The blocks are touched before the first
  // write, and fresh memory is slow to touch here: a 7.6 MB trace spent 15 % of
  // its run on a queue that could hold all of its output.
  static size_t depth_for(uint64_t expected_bytes, size_t block_size = kBlockBytes);

  WriteBehindSink(const WriteBehindSink&) = delete;
  WriteBehindSink& operator=(const WriteBehindSink&) = delete;

  void write(const char* data, size_t size) override;
  // Queues the buffer itself: rendered batches reach the writer without a copy.
  void adopt(IoBytes& bytes, size_t begin, size_t end) override;
  // Writes every pending block, then finishes the inner sink.
  void finish() override;

 private:
  struct Block {
    IoBytes bytes;     // storage circulates: adopt() swaps it with the caller's
    size_t begin = 0;  // the data is bytes[begin, size)
    size_t size = 0;
  };
  Block& filling() { return blocks_[handoff_.filling()]; }
  void submit_current();   // hands the caller's block to the writer
  void prepare_blocks();   // the writer thread, first
  void wait_for_blocks();  // the caller, before it first touches a block

  ByteSink& inner_;
  const size_t block_size_;
  std::vector<Block> blocks_;       // the handoff's slots
  bool caller_has_blocks_ = false;  // the set-up is over
  OrderedHandoff handoff_;          // last: its thread uses the blocks
};

}  // namespace tracecompact
