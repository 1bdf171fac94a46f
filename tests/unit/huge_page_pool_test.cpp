#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "util/huge_page_pool.h"
#include "util/io_bytes.h"

namespace {

using tracecompact::huge_pool_allocate;
using tracecompact::huge_pool_deallocate;
using tracecompact::huge_pool_slab_count;

struct Allocation {
  char* memory;
  size_t bytes;
  char fill;
};

bool holds_only(const Allocation& a) {
  return std::all_of(a.memory, a.memory + a.bytes, [&](char c) { return c == a.fill; });
}

// Sizes on both sides of each route: malloc, shared slabs, mappings of their own.
const std::vector<size_t> kSizes = {100,
                                    size_t{64} << 10,
                                    (size_t{64} << 10) + 1,
                                    262208,
                                    524872,
                                    size_t{1} << 20,
                                    (size_t{1} << 20) + 1,
                                    size_t{2} << 20,
                                    (size_t{4} << 20) + 64};

}  // namespace

TEST_CASE("pooled buffers are separate and page-aligned from 64 KiB on and keep their bytes",
          "[util]") {
  std::vector<Allocation> live;
  char fill = 1;
  for (int round = 0; round < 3; ++round)
    for (size_t bytes : kSizes) {
      Allocation a{static_cast<char*>(huge_pool_allocate(bytes)), bytes, fill++};
      if (bytes >= tracecompact::kHugePoolSmallest)
        CHECK(reinterpret_cast<uintptr_t>(a.memory) % 4096 == 0);
      std::memset(a.memory, a.fill, a.bytes);
      live.push_back(a);
    }
  std::mt19937 shuffle(7);
  std::shuffle(live.begin(), live.end(), shuffle);
  // Freeing half and allocating again reuses the freed pages for other buffers.
  for (size_t i = 0; i < live.size() / 2; ++i) huge_pool_deallocate(live[i].memory, live[i].bytes);
  live.erase(live.begin(), live.begin() + static_cast<std::ptrdiff_t>(live.size() / 2));
  for (size_t bytes : kSizes) {
    Allocation a{static_cast<char*>(huge_pool_allocate(bytes)), bytes, fill++};
    std::memset(a.memory, a.fill, a.bytes);
    live.push_back(a);
  }
  CHECK(std::all_of(live.begin(), live.end(), holds_only));
  for (const Allocation& a : live) huge_pool_deallocate(a.memory, a.bytes);
}

TEST_CASE("slabs go back to the system when their buffers do except one spare", "[util]") {
  const size_t before = huge_pool_slab_count();
  std::vector<void*> batches;
  for (int i = 0; i < 20; ++i) batches.push_back(huge_pool_allocate(262208));
  CHECK(huge_pool_slab_count() >= 3);  // 7 such buffers to a slab
  for (void* batch : batches) huge_pool_deallocate(batch, 262208);
  CHECK(huge_pool_slab_count() <= before + 1);
  // The spare is used again rather than a fresh slab mapped.
  void* again = huge_pool_allocate(size_t{1} << 20);
  CHECK(huge_pool_slab_count() <= before + 1);
  huge_pool_deallocate(again, size_t{1} << 20);
}

TEST_CASE("threads allocate and free pooled buffers side by side", "[util]") {
  auto churn = [](char fill, bool& intact) {
    std::vector<Allocation> live;
    for (int i = 0; i < 300; ++i) {
      const size_t bytes = kSizes[static_cast<size_t>(i) % kSizes.size()];
      Allocation a{static_cast<char*>(huge_pool_allocate(bytes)), bytes, fill};
      std::memset(a.memory, fill, bytes);
      live.push_back(a);
      if (live.size() > 6) {
        intact = intact && holds_only(live.front());
        huge_pool_deallocate(live.front().memory, live.front().bytes);
        live.erase(live.begin());
      }
    }
    for (const Allocation& a : live) {
      intact = intact && holds_only(a);
      huge_pool_deallocate(a.memory, a.bytes);
    }
  };
  bool first_intact = true, second_intact = true;
  std::thread other([&] { churn('b', second_intact); });
  churn('a', first_intact);
  other.join();
  CHECK(first_intact);
  CHECK(second_intact);
}

TEST_CASE("io bytes grow and shrink and swap like any vector", "[util]") {
  tracecompact::IoBytes grown;
  for (int i = 0; i < 3000000; ++i) grown.push_back(static_cast<char>(i % 251));
  tracecompact::IoBytes other(size_t{300} << 10, 'x');
  grown.swap(other);
  CHECK(grown.size() == (size_t{300} << 10));
  CHECK(std::all_of(grown.begin(), grown.end(), [](char c) { return c == 'x'; }));
  bool same = other.size() == 3000000;
  for (int i = 0; same && i < 3000000; ++i)
    same = other[static_cast<size_t>(i)] == static_cast<char>(i % 251);
  CHECK(same);
  other.resize(10);
  other.shrink_to_fit();
  CHECK(other.size() == 10);
}

TEST_CASE("a buffer takes the tightest free run of the pool", "[util]") {
  constexpr size_t kPage = 4096;
  // One slab: a (128 pages), b (256), c (64), then 64 pages free.
  void* a = huge_pool_allocate(128 * kPage);
  void* b = huge_pool_allocate(256 * kPage);
  void* c = huge_pool_allocate(64 * kPage);
  REQUIRE(static_cast<char*>(b) == static_cast<char*>(a) + 128 * kPage);
  REQUIRE(static_cast<char*>(c) == static_cast<char*>(b) + 256 * kPage);
  huge_pool_deallocate(a, 128 * kPage);
  // Free now: 128 pages at the front, 64 at the end; 64 pages fit the end exactly.
  void* d = huge_pool_allocate(64 * kPage);
  CHECK(static_cast<char*>(d) == static_cast<char*>(c) + 64 * kPage);
  // And the front still takes 128 pages whole.
  void* e = huge_pool_allocate(128 * kPage);
  CHECK(e == a);
  for (auto [memory, pages] : {std::pair{b, 256}, {c, 64}, {d, 64}, {e, 128}})
    huge_pool_deallocate(memory, static_cast<size_t>(pages) * kPage);
}
