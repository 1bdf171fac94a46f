#include "sink/write_behind_sink.h"

#include <algorithm>
#include <cstring>

#include "util/helper_thread.h"
#include "util/outsized_buffer.h"

namespace tracecompact {

WriteBehindSink::WriteBehindSink(ByteSink& inner, size_t block_size, size_t depth)
    : inner_(inner), block_size_(block_size), blocks_(depth < 2 ? 2 : depth) {
  thread_ = start_helper_thread([this] {
    if (prepare_blocks()) consume();
  });
}

WriteBehindSink::~WriteBehindSink() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

// The sink is made before pass 1, long before the first write: fresh memory is
// slow to touch here, so the writer thread touches the blocks in the meantime.
bool WriteBehindSink::prepare_blocks() {
  std::exception_ptr failure;
  try {
    for (auto& block : blocks_) block.bytes.resize(block_size_);
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    blocks_ready_ = true;
    if (failure) error_ = failure;
  }
  changed_.notify_all();
  return !failure;
}

void WriteBehindSink::wait_for_blocks() {
  if (caller_has_blocks_) return;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return blocks_ready_; });
  if (error_) std::rethrow_exception(error_);
  caller_has_blocks_ = true;
}

void WriteBehindSink::write(const char* data, size_t size) {
  wait_for_blocks();
  while (size > 0) {
    Block& block = blocks_[submitted_ % blocks_.size()];
    // A block may hold storage adopted from the caller: any size will do for
    // filling, but not a tiny one, nor one left outsized by a huge event.
    if (block.size == 0 && (block.bytes.size() < std::max<size_t>(block_size_ / 16, 1) ||
                            block.bytes.size() > 4 * block_size_))
      std::vector<char>(block_size_).swap(block.bytes);
    const size_t take = std::min(size, block.bytes.size() - block.size);
    std::memcpy(block.bytes.data() + block.size, data, take);
    block.size += take;
    data += take;
    size -= take;
    if (block.size == block.bytes.size()) submit_current();
  }
}

// The caller owns block submitted_ % depth while filling it; submitting waits
// until the writer has freed the next one.
void WriteBehindSink::submit_current() {
  std::unique_lock lock(mutex_);
  if (error_) std::rethrow_exception(error_);
  ++submitted_;
  changed_.notify_all();
  changed_.wait(lock, [&] { return submitted_ - written_ < blocks_.size() || error_; });
  if (error_) std::rethrow_exception(error_);
  Block& next = blocks_[submitted_ % blocks_.size()];
  next.begin = 0;
  next.size = 0;
}

void WriteBehindSink::adopt(std::vector<char>& bytes, size_t begin, size_t end) {
  if (begin == end) return;
  wait_for_blocks();
  if (blocks_[submitted_ % blocks_.size()].size > 0) submit_current();  // what came before
  Block& block = blocks_[submitted_ % blocks_.size()];
  // Storage left outsized by a huge event is not passed on to be kept.
  drop_if_outsized(block.bytes, block_size_);
  block.bytes.swap(bytes);
  block.begin = begin;
  block.size = end;
  submit_current();
}

void WriteBehindSink::finish() {
  wait_for_blocks();
  if (blocks_[submitted_ % blocks_.size()].size > 0) submit_current();
  {
    std::unique_lock lock(mutex_);
    closing_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return written_ == submitted_ || error_; });
    if (error_) std::rethrow_exception(error_);
  }
  inner_.finish();  // the writer is idle: the caller may use the inner sink now
}

void WriteBehindSink::consume() {
  for (;;) {
    size_t index;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || written_ < submitted_ || closing_; });
      if (stopping_ || written_ == submitted_) {
        if (stopping_ || closing_) return;
        continue;
      }
      index = written_ % blocks_.size();
    }
    try {
      const Block& block = blocks_[index];
      inner_.write(block.bytes.data() + block.begin, block.size - block.begin);
    } catch (...) {
      std::lock_guard lock(mutex_);
      error_ = std::current_exception();
      changed_.notify_all();
      return;
    }
    {
      std::lock_guard lock(mutex_);
      ++written_;
    }
    changed_.notify_all();
  }
}

}  // namespace tracecompact
