#include "util/warm_chunks.h"

#include <sys/mman.h>

#include <cstdlib>
#include <exception>
#include <new>

#include "util/helper_thread.h"

namespace tracecompact {
namespace {

thread_local WarmChunkSupply* thread_supply = nullptr;

void* allocate_chunk() {
  void* memory = std::aligned_alloc(kIndexChunkBytes, kIndexChunkBytes);
  if (memory) ::madvise(memory, kIndexChunkBytes, MADV_HUGEPAGE);
  return memory;
}

// One write per 4 KiB page faults the chunk in (one fault if it is a huge page).
void touch(void* chunk) {
  volatile char* bytes = static_cast<char*>(chunk);
  for (size_t at = 0; at < kIndexChunkBytes; at += 4096) bytes[at] = 0;
}

}  // namespace

void* take_index_chunk() {
  if (thread_supply)
    if (void* warm = thread_supply->take()) return warm;
  void* memory = allocate_chunk();
  if (!memory) throw std::bad_alloc();
  return memory;
}

WarmChunkSupply::WarmChunkSupply(size_t ahead) : ahead_(ahead) {
  if (thread_supply) return;  // the thread has one: this one stays inactive
  ready_.reserve(ahead_);
  try {
    helper_ = start_helper_thread([this] { keep_ready(); });
  } catch (const std::exception&) {
    return;  // no thread to spare: the index allocates its chunks itself
  }
  thread_supply = this;
}

WarmChunkSupply::~WarmChunkSupply() {
  if (thread_supply == this) thread_supply = nullptr;
  if (!helper_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  helper_.join();
  for (void* chunk : ready_) std::free(chunk);
}

void* WarmChunkSupply::take() {
  void* chunk = nullptr;
  {
    std::lock_guard lock(mutex_);
    wanted_ = ahead_;  // the index has reached full-size chunks: keep some ready
    if (!ready_.empty()) {
      chunk = ready_.back();
      ready_.pop_back();
    }
  }
  changed_.notify_all();
  return chunk;
}

void WarmChunkSupply::keep_ready() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stopping_ || ready_.size() < wanted_; });
    if (stopping_) return;
    lock.unlock();
    void* chunk = allocate_chunk();
    if (chunk) touch(chunk);
    lock.lock();
    if (!chunk) return;  // out of memory: the caller's own allocation reports it
    ready_.push_back(chunk);
  }
}

}  // namespace tracecompact
