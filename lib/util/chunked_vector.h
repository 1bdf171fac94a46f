// An append-only array stored in chunks: growing never copies. Chunks double
// from 4 KiB up to 2 MiB (small traces stay small); full-size chunks are offered
// to the kernel as transparent huge pages, since first touch of fresh memory
// (one page fault per 4 KiB) is slow on these machines, and come touched ahead
// of use while the growing thread has a WarmChunkSupply (util/warm_chunks.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/warm_chunks.h"

namespace tracecompact {

template <typename T>
class ChunkedVector {
  static_assert(std::is_trivially_copyable_v<T>, "records are plain data");
  static constexpr size_t kChunkBytes = kIndexChunkBytes;
  static constexpr size_t kPerChunk = kChunkBytes / sizeof(T);
  static constexpr size_t kFirstChunk = kPerChunk >> 9;  // 4 KiB worth of records
  static constexpr size_t kGrowing = 10;                 // chunks of 1, 2, ... 512 x kFirstChunk
  static constexpr size_t kGrowingTotal = kFirstChunk * ((size_t{1} << kGrowing) - 1);

  // (chunk, position) of element i.
  static std::pair<size_t, size_t> locate(size_t i) {
    if (i < kGrowingTotal) {
      const size_t k = 63 - static_cast<size_t>(__builtin_clzll(i / kFirstChunk + 1));
      return {k, i - kFirstChunk * ((size_t{1} << k) - 1)};
    }
    const size_t rest = i - kGrowingTotal;
    return {kGrowing + rest / kPerChunk, rest % kPerChunk};
  }
  static size_t chunk_capacity(size_t k) { return k < kGrowing ? kFirstChunk << k : kPerChunk; }

  struct FreeChunk {
    void operator()(T* chunk) const { std::free(chunk); }
  };

 public:
  ChunkedVector() = default;
  ChunkedVector(ChunkedVector&& other) noexcept { swap(other); }
  ChunkedVector& operator=(ChunkedVector&& other) noexcept {
    ChunkedVector old(std::move(other));
    swap(old);
    return *this;
  }

  // Into the last chunk's free room, found without locate(): pass 1 appends a
  // record or two per event.
  void push_back(const T& value) {
    if (tail_ == tail_end_) add_chunk(chunk_capacity(chunks_.size()));
    *tail_++ = value;
    ++size_;
  }
  T& operator[](size_t i) {
    const auto [chunk, position] = locate(i);
    return chunks_[chunk][position];
  }
  const T& operator[](size_t i) const {
    const auto [chunk, position] = locate(i);
    return chunks_[chunk][position];
  }
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
  void add_chunk(size_t capacity) {
    const size_t bytes = capacity * sizeof(T);
    if (chunks_.size() == chunks_.capacity())  // before the chunk: no leak if this throws
      chunks_.reserve(std::max<size_t>(16, 2 * chunks_.capacity()));
    void* memory = bytes >= kChunkBytes / 2 ? take_index_chunk() : std::malloc(bytes);
    if (!memory) throw std::bad_alloc();
    chunks_.emplace_back(static_cast<T*>(memory));
    tail_ = chunks_.back().get();
    tail_end_ = tail_ + capacity;
  }
  void swap(ChunkedVector& other) noexcept {
    std::swap(chunks_, other.chunks_);
    std::swap(size_, other.size_);
    std::swap(tail_, other.tail_);
    std::swap(tail_end_, other.tail_end_);
  }

  std::vector<std::unique_ptr<T[], FreeChunk>> chunks_;
  size_t size_ = 0;
  T* tail_ = nullptr;  // the last chunk's free room: [tail_, tail_end_)
  T* tail_end_ = nullptr;
};

}  // namespace tracecompact
