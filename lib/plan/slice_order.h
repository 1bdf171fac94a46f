// Slice indexes in some order, in one malloc'd buffer: sorted as 16-byte keys
// that are then compacted in place to the 4-byte indexes and the buffer shrunk,
// so that a sort of all slices costs 16 bytes per slice at its peak, not 20.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "index/trace_index.h"

namespace tracecompact {

class SliceOrder {
 public:
  SliceOrder() = default;
  explicit SliceOrder(size_t size) : data_(allocate(size)), size_(size) {}
  SliceOrder(uint32_t* adopted, size_t size) : data_(adopted), size_(size) {}

  uint32_t& operator[](size_t i) { return data_.get()[i]; }
  uint32_t operator[](size_t i) const { return data_.get()[i]; }
  const uint32_t* begin() const { return data_.get(); }
  const uint32_t* end() const { return data_.get() + size_; }
  uint32_t* begin() { return data_.get(); }
  uint32_t* end() { return data_.get() + size_; }
  size_t size() const { return size_; }

  static uint32_t* allocate(size_t size) {
    void* memory = std::malloc(std::max<size_t>(size, 1) * sizeof(uint32_t));
    if (!memory) throw std::bad_alloc();
    return static_cast<uint32_t*>(memory);
  }

 private:
  struct Free {
    void operator()(uint32_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint32_t, Free> data_;
  size_t size_ = 0;
};

// Slice indexes by (bucket, start, tiebreak, index). The 16-byte keys keep the
// sort in cache; the rare equal starts look the tie-break up in the records.
template <typename Bucket, typename Tiebreak>
SliceOrder sorted_slices(const ChunkedVector<SliceRecord>& slices, Bucket bucket,
                         Tiebreak tiebreak) {
  struct Key {
    uint32_t bucket;
    uint32_t slice;
    double start;
  };
  const size_t n = slices.size();
  auto* keys = static_cast<Key*>(std::malloc(std::max<size_t>(n, 1) * sizeof(Key)));
  if (!keys) throw std::bad_alloc();
  for (uint32_t i = 0; i < n; ++i) keys[i] = {bucket(slices[i]), i, slices[i].ts};
  std::sort(keys, keys + n, [&](const Key& a, const Key& b) {
    if (a.bucket != b.bucket) return a.bucket < b.bucket;
    if (a.start != b.start) return a.start < b.start;
    const double ta = tiebreak(slices[a.slice]), tb = tiebreak(slices[b.slice]);
    if (ta != tb) return ta < tb;
    return a.slice < b.slice;
  });
  // Index i lands in bytes [4i, 4i + 4), inside keys already read (keys[i / 4]).
  auto* bytes = reinterpret_cast<unsigned char*>(keys);
  for (size_t i = 0; i < n; ++i) {
    uint32_t slice;
    std::memcpy(&slice, bytes + i * sizeof(Key) + offsetof(Key, slice), sizeof slice);
    std::memcpy(bytes + i * sizeof slice, &slice, sizeof slice);
  }
  void* shrunk = std::realloc(keys, std::max<size_t>(n, 1) * sizeof(uint32_t));
  return SliceOrder(static_cast<uint32_t*>(shrunk ? shrunk : static_cast<void*>(keys)), n);
}

}  // namespace tracecompact
