#include "source/prefetch_source.h"

#include <cstring>
#include "util/helper_thread.h"

namespace tracecompact {

PrefetchSource::PrefetchSource(std::unique_ptr<ByteSource> inner, size_t block_size, size_t depth)
    : inner_(std::move(inner)), blocks_(depth) {
  for (auto& block : blocks_) block.bytes.resize(block_size);
  thread_ = start_helper_thread([this] { produce(); });
}

PrefetchSource::~PrefetchSource() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void PrefetchSource::produce() {
  try {
    for (;;) {
      Block* block;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || filled_ - consumed_ < blocks_.size(); });
        if (stopping_) return;
        block = &blocks_[filled_ % blocks_.size()];
      }
      // Fill the block outside the lock; the consumer never touches it until filled_ moves.
      size_t size = 0;
      while (size < block->bytes.size()) {
        const size_t got = inner_->read(block->bytes.data() + size, block->bytes.size() - size);
        if (got == 0) break;
        size += got;
      }
      block->size = size;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (size > 0) ++filled_;
        if (size < block->bytes.size()) finished_ = true;
      }
      changed_.notify_all();
      if (size < block->bytes.size()) return;
    }
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
      finished_ = true;
    }
    changed_.notify_all();
  }
}

size_t PrefetchSource::read(char* destination, size_t capacity) {
  size_t copied = 0;
  while (copied < capacity) {
    Block* block;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return consumed_ < filled_ || finished_; });
      if (consumed_ == filled_) {
        if (error_ && copied == 0) std::rethrow_exception(error_);
        return copied;  // the end (or an error, reported on the next call)
      }
      block = &blocks_[consumed_ % blocks_.size()];
    }
    const size_t n = std::min(capacity - copied, block->size - offset_);
    std::memcpy(destination + copied, block->bytes.data() + offset_, n);
    copied += n;
    offset_ += n;
    if (offset_ == block->size) {
      offset_ = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++consumed_;
      }
      changed_.notify_all();
    }
  }
  return copied;
}

}  // namespace tracecompact
