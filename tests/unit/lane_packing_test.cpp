// spec 3: interval partitioning and its tie-breaks.
#include <catch2/catch.hpp>

#include "plan/lane_packing.h"

namespace {

struct Interval {
  double start;
  double end;
};

// The lane of each interval of a sorted list, as the plan places them.
std::vector<uint32_t> pack_sorted_intervals(const std::vector<Interval>& intervals,
                                            uint32_t& lane_count) {
  tracecompact::LanePacker packer;
  std::vector<uint32_t> lanes;
  for (const auto& interval : intervals)
    lanes.push_back(packer.place(interval.start, interval.end));
  lane_count = packer.lane_count();
  return lanes;
}

}  // namespace

TEST_CASE("overlapping intervals open new lanes and disjoint ones reuse lane 0", "[packing]") {
  uint32_t count = 0;
  CHECK(pack_sorted_intervals({{0, 10}, {5, 15}, {20, 30}}, count) ==
        std::vector<uint32_t>{0, 1, 0});
  CHECK(count == 2);
}

TEST_CASE("a lane ending exactly at the next start is free for it", "[packing]") {
  uint32_t count = 0;
  CHECK(pack_sorted_intervals({{0, 10}, {10, 20}}, count) == std::vector<uint32_t>{0, 0});
  CHECK(count == 1);
}

TEST_CASE("the smallest free lane wins over the touching one", "[packing]") {
  // Lanes 0 and 1 are busy; lane 1 ends first, then lane 0 ends at the same
  // time as the next slice starts: both are free and lane 0 is taken.
  uint32_t count = 0;
  const auto lanes = pack_sorted_intervals({{0, 10}, {1, 5}, {10, 12}}, count);
  CHECK(lanes == std::vector<uint32_t>{0, 1, 0});
}

TEST_CASE("equal starts and zero durations", "[packing]") {
  uint32_t count = 0;
  // Zero-length slices at one instant: each ends where the next starts, so one lane.
  CHECK(pack_sorted_intervals({{5, 5}, {5, 5}, {5, 5}}, count) == std::vector<uint32_t>{0, 0, 0});
  CHECK(count == 1);
  // A zero-length slice before a long one at the same start shares its lane.
  CHECK(pack_sorted_intervals({{5, 5}, {5, 9}, {5, 9}}, count) == std::vector<uint32_t>{0, 0, 1});
  CHECK(count == 2);
}

TEST_CASE("freed lanes are reused smallest first", "[packing]") {
  uint32_t count = 0;
  const auto lanes = pack_sorted_intervals({{0, 3}, {0, 2}, {0, 1}, {2, 5}, {2.5, 6}}, count);
  // At 2: lanes 2 (end 1) and 1 (end 2) are free -> 1; at 2.5: lane 2.
  CHECK(lanes == std::vector<uint32_t>{0, 1, 2, 1, 2});
  CHECK(count == 3);
}
