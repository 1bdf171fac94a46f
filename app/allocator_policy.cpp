#include "allocator_policy.h"

#include <malloc.h>

#include <cstdlib>
#include <new>

#include "util/huge_page_pool.h"
#include "util/sanitizers.h"

namespace tracecompact_cli {

void set_allocator_policy() {
  // A fixed mmap threshold: above it, the plan's large transient arrays go back
  // to the system when freed (glibc's default raises the threshold after the
  // first such free and keeps later ones in the heap: 15 MB more peak RSS at
  // 1 GB); below it, small buffers are reused from the heap instead of being
  // mapped and faulted afresh each time, which costs ~11 us a page on some of
  // these machines. One arena, so that a buffer freed by one thread serves the
  // next one's allocation (the threads allocate per batch, not per event).
  // 100 MB: 15.3 k -> 11.0 k page faults, 0.45 -> 0.41 s; peak RSS +2.5 MB
  // (docs/performance_history.md, session 23).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  mallopt(M_ARENA_MAX, 1);
  // A block over the threshold is its own mapping now, unless a free chunk of
  // the heap can hold it: the library may offer its large arrays as huge pages
  // (util/huge_page_pool.h).
  tracecompact::large_blocks_are_mapped_alone();
}

}  // namespace tracecompact_cli

// Blocks of 4 MiB and more (the plan's arrays, most of them mapped on their own
// by glibc) are offered as transparent huge pages, as
// glibc's glibc.malloc.hugetlb=1 tunable would: a first touch then costs per
// 2 MiB about what it costs per 4 KiB page (~11 us on some of these machines).
// Each block holds at most one huge page it has not filled. Under a sanitizer
// its own operator new stays.
#if !TRACECOMPACT_SANITIZER_ALLOCATOR
void* operator new(std::size_t bytes) {
  void* memory = std::malloc(bytes == 0 ? 1 : bytes);
  if (!memory) throw std::bad_alloc();
  tracecompact::advise_huge_pages_if_large(memory, bytes);
  return memory;
}
void operator delete(void* memory) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
  std::free(memory);
}
#endif
