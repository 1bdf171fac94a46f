// An append-only array of plain records grown with realloc. Large blocks are
// mmapped by glibc, so growing remaps pages instead of copying them: there is
// never a second copy alive, unlike a std::vector's doubling, and the records
// are contiguous (std::sort works in place, unlike ChunkedVector).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>

#include "util/huge_page_pool.h"

namespace tracecompact {

template <typename T>
class GrowableArray {
  static_assert(std::is_trivially_copyable_v<T>, "records are plain data");

 public:
  GrowableArray() = default;
  GrowableArray(const GrowableArray&) = delete;
  GrowableArray& operator=(const GrowableArray&) = delete;
  ~GrowableArray() { std::free(data_); }

  void push_back(const T& value) {
    if (size_ == capacity_) grow();
    data_[size_++] = value;
  }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  size_t size() const { return size_; }
  const T& operator[](size_t i) const { return data_[i]; }
  void release() {
    std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

 private:
  void grow() {
    const size_t capacity = capacity_ ? capacity_ * 2 : 1024;
    void* grown = std::realloc(data_, capacity * sizeof(T));
    if (!grown) throw std::bad_alloc();
    advise_huge_pages_if_large(grown, capacity * sizeof(T));
    data_ = static_cast<T*>(grown);
    capacity_ = capacity;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace tracecompact
