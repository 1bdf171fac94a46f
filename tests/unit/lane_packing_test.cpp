// spec 3: interval partitioning and its tie-breaks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <random>
#include <utility>
#include <vector>

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

namespace {

// Spec 3 word for word: a heap of busy lanes keyed by (end, lane), a heap of
// free lane numbers.
std::vector<uint32_t> pack_by_spec(const std::vector<Interval>& intervals, uint32_t& lane_count) {
  using Busy = std::pair<double, uint32_t>;
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free_lanes;
  std::vector<uint32_t> lanes;
  lane_count = 0;
  for (const auto& interval : intervals) {
    while (!busy.empty() && busy.top().first <= interval.start) {
      free_lanes.push(busy.top().second);
      busy.pop();
    }
    uint32_t lane = lane_count;
    if (!free_lanes.empty()) {
      lane = free_lanes.top();
      free_lanes.pop();
    } else {
      ++lane_count;
    }
    busy.emplace(interval.end, lane);
    lanes.push_back(lane);
  }
  return lanes;
}

}  // namespace

TEST_CASE("packing gives spec 3's lanes below and beyond the scanned lanes", "[packing]") {
  std::mt19937_64 random(29);
  size_t beyond = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    // Times on a coarse grid, so that starts, ends and zero durations tie often;
    // the depth of overlap varies from a lane or two to several dozen.
    const int grid = 1 + static_cast<int>(random() % 50);
    const int longest = static_cast<int>(random() % 200);
    std::vector<Interval> intervals(1 + random() % 400);
    for (auto& interval : intervals) {
      interval.start = static_cast<double>(random() % (grid * 10)) / 10.0;
      interval.end = interval.start + static_cast<double>(random() % (longest + 1)) / 10.0;
      if (random() % 50 == 0) interval.end = HUGE_VAL;
    }
    std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
      return a.start != b.start ? a.start < b.start : a.end < b.end;
    });
    uint32_t expected_count = 0, count = 0;
    const auto expected = pack_by_spec(intervals, expected_count);
    REQUIRE(pack_sorted_intervals(intervals, count) == expected);
    REQUIRE(count == expected_count);
    if (count > tracecompact::LanePacker::kScannedLanes) ++beyond;
  }
  CHECK(beyond > 300);  // the move to heaps is exercised, at every point
}
