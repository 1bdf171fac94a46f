#include "sink/write_behind_sink.h"

#include <algorithm>
#include <cstring>

#include "util/outsized_buffer.h"

namespace tracecompact {

WriteBehindSink::WriteBehindSink(ByteSink& inner, size_t block_size, size_t depth)
    : inner_(inner),
      block_size_(block_size),
      blocks_(depth < 2 ? 2 : depth),
      handoff_(
          blocks_.size(), OrderedHandoff::AtStop::kDropHanded, [this] { prepare_blocks(); },
          [this](size_t slot) {
            const Block& block = blocks_[slot];
            inner_.write(block.bytes.data() + block.begin, block.size - block.begin);
          }) {}

size_t WriteBehindSink::depth_for(uint64_t expected_bytes, size_t block_size) {
  if (expected_bytes == 0 || block_size == 0) return kDeepest;
  const uint64_t quarter_in_blocks = expected_bytes / 4 / block_size;
  return static_cast<size_t>(std::clamp<uint64_t>(quarter_in_blocks, 2, kDeepest));
}

// Without finish() the blocks not yet written are dropped (the handoff's stop).
WriteBehindSink::~WriteBehindSink() = default;

// The sink is made before pass 1, long before the first write: fresh memory is
// slow to touch here, so the writer thread touches the blocks in the meantime.
void WriteBehindSink::prepare_blocks() {
  for (auto& block : blocks_) block.bytes.resize(block_size_);
}

void WriteBehindSink::wait_for_blocks() {
  if (caller_has_blocks_) return;
  handoff_.wait_for_set_up();
  caller_has_blocks_ = true;
}

void WriteBehindSink::write(const char* data, size_t size) {
  wait_for_blocks();
  while (size > 0) {
    Block& block = filling();
    // A block may hold storage adopted from the caller: any size will do for
    // filling, but not a tiny one, nor one left outsized by a huge event.
    if (block.size == 0 && (block.bytes.size() < std::max<size_t>(block_size_ / 16, 1) ||
                            block.bytes.size() > 4 * block_size_))
      IoBytes(block_size_).swap(block.bytes);
    const size_t take = std::min(size, block.bytes.size() - block.size);
    std::memcpy(block.bytes.data() + block.size, data, take);
    block.size += take;
    data += take;
    size -= take;
    if (block.size == block.bytes.size()) submit_current();
  }
}

// The caller owns the filling block; submitting waits until the writer has
// freed the next one.
void WriteBehindSink::submit_current() {
  handoff_.hand_over();
  Block& next = filling();
  next.begin = 0;
  next.size = 0;
}

void WriteBehindSink::adopt(IoBytes& bytes, size_t begin, size_t end) {
  if (begin == end) return;
  wait_for_blocks();
  if (filling().size > 0) submit_current();  // what came before
  Block& block = filling();
  // Storage left outsized by a huge event is not passed on to be kept.
  drop_if_outsized(block.bytes, block_size_);
  block.bytes.swap(bytes);
  block.begin = begin;
  block.size = end;
  submit_current();
}

void WriteBehindSink::finish() {
  wait_for_blocks();
  if (filling().size > 0) submit_current();
  handoff_.wait_until_processed();
  inner_.finish();  // the writer is idle: the caller may use the inner sink now
}

}  // namespace tracecompact
