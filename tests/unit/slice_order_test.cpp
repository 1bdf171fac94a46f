// The plan's linear-time orders against a plain stable sort: bucketed_slices
// (both ways of sorting a bucket) and counting_sort, on keys full of ties.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

#include "plan/slice_order.h"
#include "util/counting_sort.h"

namespace tracecompact {
namespace {

// Slices on `streams` streams with few distinct starts and durations, in an event
// order that is sorted in some streams and shuffled in others.
ChunkedVector<SliceRecord> crowded_slices(unsigned seed, uint32_t streams, size_t count) {
  std::mt19937 random(seed);
  ChunkedVector<SliceRecord> slices;
  double clock = 0;
  for (size_t i = 0; i < count; ++i) {
    SliceRecord slice{};
    slice.stream = static_cast<uint32_t>(random() % streams);
    // Even streams advance in time (in order); odd ones jump around.
    slice.ts = slice.stream % 2 == 0 ? (clock += random() % 2) : static_cast<double>(random() % 50);
    slice.dur = static_cast<double>(random() % 3);
    slices.push_back(slice);
  }
  return slices;
}

}  // namespace

TEST_CASE("bucketed slices equal a stable sort by bucket, start and tie-break") {
  for (const unsigned seed : {1u, 2u, 3u}) {
    INFO("seed " << seed);
    const auto slices = crowded_slices(seed, 7, 20000);
    auto bucket = [](const SliceRecord& s) { return s.stream; };
    auto end = [](const SliceRecord& s) { return s.end(); };
    std::vector<uint32_t> expected(slices.size());
    std::iota(expected.begin(), expected.end(), 0u);
    std::stable_sort(expected.begin(), expected.end(), [&](uint32_t a, uint32_t b) {
      return std::make_tuple(slices[a].stream, slices[a].start(), slices[a].end()) <
             std::make_tuple(slices[b].stream, slices[b].start(), slices[b].end());
    });
    for (const BucketSort how : {BucketSort::kRadix, BucketSort::kComparison}) {
      std::vector<uint32_t> bucket_begin;
      const SliceOrder order = bucketed_slices(slices, 7, bucket, end, how, bucket_begin);
      CHECK(std::vector<uint32_t>(order.begin(), order.end()) == expected);
      REQUIRE(bucket_begin.size() == 8);
      for (uint32_t b = 0; b < 7; ++b)
        for (uint32_t p = bucket_begin[b]; p < bucket_begin[b + 1]; ++p)
          CHECK(slices[order[p]].stream == b);
    }
  }
}

TEST_CASE("counting sort keeps the order of equal keys and says where each key begins") {
  std::mt19937 random(4);
  std::vector<uint32_t> items(5000);
  std::vector<uint32_t> key(items.size());
  for (uint32_t i = 0; i < items.size(); ++i) {
    items[i] = (i * 7919u) % 5000u;  // a permutation, not in order
    key[i] = static_cast<uint32_t>(random() % 13);
  }
  std::vector<uint32_t> expected = items;
  std::stable_sort(expected.begin(), expected.end(),
                   [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
  std::vector<uint32_t> key_begin;
  counting_sort(
      items, 13, [&](uint32_t i) { return key[i]; }, &key_begin);
  CHECK(items == expected);
  REQUIRE(key_begin.size() == 14);
  CHECK(key_begin.back() == items.size());
  for (uint32_t k = 0; k < 13; ++k)
    for (uint32_t p = key_begin[k]; p < key_begin[k + 1]; ++p) CHECK(key[items[p]] == k);
}

}  // namespace tracecompact
