// Slice indexes in some order, in one malloc'd buffer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "index/trace_index.h"
#include "util/counting_sort.h"
#include "util/huge_page_pool.h"
#include "util/radix_sort.h"

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
    advise_huge_pages_if_large(memory, std::max<size_t>(size, 1) * sizeof(uint32_t));
    return static_cast<uint32_t*>(memory);
  }

 private:
  struct Free {
    void operator()(uint32_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint32_t, Free> data_;
  size_t size_ = 0;
};

// How bucketed_slices sorts a bucket that event order leaves unsorted. Both
// sort the 4-byte indexes themselves, looking starts up in the records: keys
// copied out beside them (12 bytes per slice of the bucket) were the plan's
// peak of memory.
enum class BucketSort {
  kRadix,       // by an in-place radix sort on start: large buckets (lane packing)
  kComparison,  // by std::sort: buckets that are mostly in order already (streams)
};

// Slice indexes by (bucket, start, tiebreak, index), and where each bucket
// begins (bucket_begin[b], with one more entry for the end). Slices are counted
// into their buckets in event order; a bucket is then left as it is where event
// order is already its order (profilers mostly write a stream's kernels in time
// order), else sorted as `how` says (the rare equal starts look the tie-break up
// in the records).
template <typename Bucket, typename Tiebreak>
SliceOrder bucketed_slices(const ChunkedVector<SliceRecord>& slices, size_t bucket_count,
                           Bucket bucket, Tiebreak tiebreak, BucketSort how,
                           std::vector<uint32_t>& bucket_begin) {
  SliceOrder order(slices.size());
  bucket_begin = place_by_key(
      bucket_count,
      [&](auto visit) {
        for (uint32_t i = 0; i < slices.size(); ++i) visit(i);
      },
      [&](uint32_t i) { return bucket(slices[i]); },
      [&](uint32_t position, uint32_t i) { order[position] = i; });
  auto before = [&](uint32_t a, uint32_t b) {
    const double sa = slices[a].start(), sb = slices[b].start();
    if (sa != sb) return sa < sb;
    const double ta = tiebreak(slices[a]), tb = tiebreak(slices[b]);
    if (ta != tb) return ta < tb;
    return a < b;
  };
  for (size_t b = 0; b < bucket_count; ++b) {
    uint32_t* const first = order.begin() + bucket_begin[b];
    uint32_t* const last = order.begin() + bucket_begin[b + 1];
    if (std::is_sorted(first, last, before)) continue;
    if (how == BucketSort::kComparison) {
      std::sort(first, last, before);
      continue;
    }
    // The first digit's pass reads the records in event order; after it, each
    // range covers a small stretch of time, whose records lie close together.
    radix_sort_by_double(
        first, last, [&](uint32_t i) { return slices[i].start(); }, before);
  }
  return order;
}

}  // namespace tracecompact
