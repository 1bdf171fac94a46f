// An append-only array stored in 2 MiB chunks: growing never copies, and each
// chunk is offered to the kernel as one transparent huge page, since first
// touch of fresh memory (one page fault per 4 KiB) is slow on these machines.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace tracecompact {

template <typename T>
class ChunkedVector {
  static_assert(std::is_trivially_copyable_v<T>, "records are plain data");
  static constexpr size_t kChunkBytes = size_t{2} << 20;
  static constexpr size_t kPerChunk = kChunkBytes / sizeof(T);

  struct FreeChunk {
    void operator()(T* chunk) const { std::free(chunk); }
  };

 public:
  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;

  void push_back(const T& value) {
    if (size_ == chunks_.size() * kPerChunk) add_chunk();
    chunks_.back()[size_ % kPerChunk] = value;
    ++size_;
  }
  T& operator[](size_t i) { return chunks_[i / kPerChunk][i % kPerChunk]; }
  const T& operator[](size_t i) const { return chunks_[i / kPerChunk][i % kPerChunk]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  template <typename Ref, typename Owner>
  class Iterator {
   public:
    Iterator(Owner* owner, size_t i) : owner_(owner), i_(i) {}
    Ref operator*() const { return (*owner_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return i_ != other.i_; }

   private:
    Owner* owner_;
    size_t i_;
  };
  auto begin() const { return Iterator<const T&, const ChunkedVector>(this, 0); }
  auto end() const { return Iterator<const T&, const ChunkedVector>(this, size_); }

 private:
  void add_chunk() {
    void* memory = std::aligned_alloc(kChunkBytes, kChunkBytes);
    if (!memory) throw std::bad_alloc();
    ::madvise(memory, kChunkBytes, MADV_HUGEPAGE);
    chunks_.emplace_back(static_cast<T*>(memory));
  }

  std::vector<std::unique_ptr<T[], FreeChunk>> chunks_;
  size_t size_ = 0;
};

}  // namespace tracecompact
