// Memory for the run's large reused buffers (read chunks, event batches,
// segments, rendered output, write-behind blocks, direct-write buffers), backed
// by transparent huge pages. On these machines the first touch of a fresh 4 KiB
// page costs ~11 us, while a 2 MiB huge page costs about as much as a few small
// ones: 64 MiB touched page by page took 187-251 ms, as huge pages 6-9 ms. The
// buffers are a few hundred KiB each, so they share huge pages ("slabs"): a
// buffer takes whole 4 KiB pages of a slab, and a slab goes back to the system
// when its last buffer does (but for one empty slab kept for the next buffer),
// so the peak stays what the buffers hold.
#pragma once

#include <cstddef>

namespace tracecompact {

// Smaller requests go to malloc: they would not fill enough of a huge page.
inline constexpr size_t kHugePoolSmallest = size_t{64} << 10;
// Requests up to half a slab share slabs; larger ones get mappings of their
// own, huge pages for each whole 2 MiB and small ones for the rest, so that no
// request holds a huge page it fills only in part.
inline constexpr size_t kHugePoolSlabBytes = size_t{2} << 20;

// At least 4 KiB-aligned from kHugePoolSmallest on. Throws std::bad_alloc.
void* huge_pool_allocate(size_t bytes);
// `bytes` as passed to huge_pool_allocate.
void huge_pool_deallocate(void* memory, size_t bytes) noexcept;

// Offers the whole 2 MiB ranges inside [memory, memory + bytes) as transparent
// huge pages (a hint; nothing happens without THP). For memory the caller
// alone uses: a huge page is cleared and counted whole at its first touch.
void advise_huge_pages(void* memory, size_t bytes) noexcept;

// Large blocks (the plan's arrays) get that advice from this size on, once the
// program has said that malloc maps most of them on its own (a fixed mmap
// threshold below it: app/allocator_policy.cpp). Then a huge page is rarely
// shared with another block, and each block holds at most one it has not filled.
// glibc still serves a block from its heap when a free chunk there is large
// enough (freed neighbours merge), and there the advice outlives the block and
// reaches later small allocations: more memory counted, never wrong output.
// Without the fixed threshold that is the rule, so then no advice.
inline constexpr size_t kHugePagesFrom = size_t{4} << 20;
void large_blocks_are_mapped_alone() noexcept;
void advise_huge_pages_if_large(void* memory, size_t bytes) noexcept;

// For tests: slabs now mapped.
size_t huge_pool_slab_count();

}  // namespace tracecompact
