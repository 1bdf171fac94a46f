#include "util/huge_page_pool.h"

#include <sys/mman.h>

#include <array>
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace tracecompact {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kPagesPerSlab = kHugePoolSlabBytes / kPage;
constexpr size_t kWordsPerSlab = kPagesPerSlab / 64;

size_t whole_pages(size_t bytes) {
  return (bytes + kPage - 1) / kPage;
}

uintptr_t round_down_to_huge(uintptr_t address) {
  return address & ~(kHugePoolSlabBytes - 1);
}
uintptr_t round_up_to_huge(uintptr_t address) {
  return round_down_to_huge(address + kHugePoolSlabBytes - 1);
}

// `bytes` (whole pages) mapped from a 2 MiB boundary and offered as huge
// pages. Without transparent huge pages the hint is ignored: small pages.
char* map_from_huge_boundary(size_t bytes) {
  const size_t mapped = bytes + kHugePoolSlabBytes;
  void* raw = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = round_up_to_huge(start);
  const uintptr_t end = aligned + bytes;
  if (aligned > start) ::munmap(raw, aligned - start);
  if (start + mapped > end) ::munmap(reinterpret_cast<void*>(end), start + mapped - end);
  ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);
  return reinterpret_cast<char*>(aligned);
}

// One huge page shared by buffers, each a run of whole 4 KiB pages.
struct Slab {
  char* base = nullptr;
  std::array<uint64_t, kWordsPerSlab> used{};  // a bit per page
  size_t used_pages = 0;

  bool page_used(size_t page) const { return (used[page / 64] >> (page % 64)) & 1; }
  void set_pages(size_t first, size_t count, bool in_use) {
    assert(first + count <= kPagesPerSlab && (in_use || used_pages >= count));
    for (size_t page = first; page < first + count; ++page) {
      const uint64_t bit = uint64_t{1} << (page % 64);
      assert(page_used(page) != in_use);  // a page taken twice, or freed twice
      used[page / 64] = in_use ? used[page / 64] | bit : used[page / 64] & ~bit;
    }
    used_pages = in_use ? used_pages + count : used_pages - count;
  }
  // The smallest run of at least `count` free pages: {first page, length};
  // length 0 if there is none.
  std::pair<size_t, size_t> tightest_free_run(size_t count) const {
    std::pair<size_t, size_t> best{0, 0};
    if (kPagesPerSlab - used_pages < count) return best;
    size_t run = 0;
    for (size_t page = 0; page <= kPagesPerSlab; ++page) {
      if (page < kPagesPerSlab && !page_used(page)) {
        ++run;
        continue;
      }
      if (run >= count && (best.second == 0 || run < best.second)) best = {page - run, run};
      run = 0;
    }
    return best;
  }
};

class SlabPool {
 public:
  void* allocate(size_t bytes) {
    const size_t pages = whole_pages(bytes);
    std::lock_guard lock(mutex_);
    // Best fit: the tightest free run of any slab, so that the large runs stay
    // whole for large buffers and fewer slabs are needed.
    Slab* chosen = nullptr;
    std::pair<size_t, size_t> chosen_run{0, 0};
    for (Slab& slab : slabs_) {
      const auto run = slab.tightest_free_run(pages);
      if (run.second != 0 && (!chosen || run.second < chosen_run.second)) {
        chosen = &slab;
        chosen_run = run;
      }
    }
    if (chosen) {
      chosen->set_pages(chosen_run.first, pages, true);
      return chosen->base + chosen_run.first * kPage;
    }
    slabs_.reserve(slabs_.size() + 1);  // before mapping: nothing to undo if this throws
    Slab& slab = slabs_.emplace_back();
    try {
      slab.base = map_from_huge_boundary(kHugePoolSlabBytes);
    } catch (...) {
      slabs_.pop_back();
      throw;
    }
    slab.set_pages(0, pages, true);
    return slab.base;
  }

  void deallocate(void* memory, size_t bytes) noexcept {
    const auto address = reinterpret_cast<uintptr_t>(memory);
    char* const base = reinterpret_cast<char*>(round_down_to_huge(address));
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < slabs_.size(); ++i) {
      Slab& slab = slabs_[i];
      if (slab.base != base) continue;
      slab.set_pages(static_cast<size_t>(static_cast<char*>(memory) - base) / kPage,
                     whole_pages(bytes), false);
      if (slab.used_pages == 0) release_if_spare(i);
      return;
    }
    assert(!"freed memory that no slab holds");
  }

  size_t slab_count() {
    std::lock_guard lock(mutex_);
    return slabs_.size();
  }

 private:
  // One empty slab is kept, so that a buffer freed and made again (a batch
  // regrown, a rank's buffers after the previous rank's) does not map and
  // clear a fresh huge page each time.
  void release_if_spare(size_t empty) {
    for (size_t i = 0; i < slabs_.size(); ++i) {
      if (i == empty || slabs_[i].used_pages != 0) continue;
      ::munmap(slabs_[empty].base, kHugePoolSlabBytes);
      slabs_[empty] = slabs_.back();
      slabs_.pop_back();
      return;
    }
  }

  std::mutex mutex_;
  std::vector<Slab> slabs_;
};

SlabPool& slab_pool() {
  static SlabPool* const pool = new SlabPool;  // never destroyed: buffers may outlive main
  return *pool;
}

}  // namespace

void* huge_pool_allocate(size_t bytes) {
  if (bytes > static_cast<size_t>(PTRDIFF_MAX)) throw std::bad_alloc();  // no rounding overflows
  if (bytes < kHugePoolSmallest) {
    void* memory = std::malloc(bytes == 0 ? 1 : bytes);
    if (!memory) throw std::bad_alloc();
    return memory;
  }
  if (bytes <= kHugePoolSlabBytes / 2) return slab_pool().allocate(bytes);
  return map_from_huge_boundary(whole_pages(bytes) * kPage);
}

void huge_pool_deallocate(void* memory, size_t bytes) noexcept {
  if (!memory) return;
  if (bytes < kHugePoolSmallest) return std::free(memory);
  if (bytes <= kHugePoolSlabBytes / 2) return slab_pool().deallocate(memory, bytes);
  ::munmap(memory, whole_pages(bytes) * kPage);
}

void advise_huge_pages(void* memory, size_t bytes) noexcept {
  const auto start = reinterpret_cast<uintptr_t>(memory);
  const uintptr_t first = round_up_to_huge(start);
  const uintptr_t end = round_down_to_huge(start + bytes);
  if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

namespace {
std::atomic<bool> large_blocks_mapped_alone{false};
}  // namespace

void large_blocks_are_mapped_alone() noexcept {
  large_blocks_mapped_alone = true;
}

void advise_huge_pages_if_large(void* memory, size_t bytes) noexcept {
  if (bytes >= kHugePagesFrom && large_blocks_mapped_alone.load(std::memory_order_relaxed))
    advise_huge_pages(memory, bytes);
}

size_t huge_pool_slab_count() {
  return slab_pool().slab_count();
}

}  // namespace tracecompact
