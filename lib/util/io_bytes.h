// The byte buffers that carry trace text between the stages. Their storage
// circulates (a rendered batch's buffer becomes a write-behind block, then a
// render worker's again), so they share one type, allocated from the huge-page
// pool (util/huge_page_pool.h). Under a sanitizer they come from the sanitizer's
// allocator instead, which checks every access.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#include "util/huge_page_pool.h"
#include "util/sanitizers.h"

namespace tracecompact {

template <typename T>
struct IoAllocator {
  using value_type = T;

  IoAllocator() = default;
  template <typename U>
  IoAllocator(const IoAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    if constexpr (kSanitizerAllocator) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(huge_pool_allocate(n * sizeof(T)));
  }
  void deallocate(T* memory, size_t n) noexcept {
    if constexpr (kSanitizerAllocator) return ::operator delete(memory);
    huge_pool_deallocate(memory, n * sizeof(T));
  }
  template <typename U>
  bool operator==(const IoAllocator<U>&) const noexcept {
    return true;
  }
};

using IoBytes = std::vector<char, IoAllocator<char>>;

}  // namespace tracecompact
