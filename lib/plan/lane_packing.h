// Interval partitioning (spec 3): the fewest lanes such that no lane holds two
// overlapping intervals, with the reference's exact tie-breaks.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace tracecompact {

// Places intervals one at a time; they must come sorted by (start, end), ties
// in event order. Times are never NaN: JSON numbers are finite (their sum may
// be infinite).
//
// Spec 3 keeps a heap of busy lanes and a heap of free ones. With starts in
// order, a lane is free for an interval exactly when its last end is at most
// the interval's start (one freed earlier ended before an earlier start), so
// "the smallest free lane" is the first lane whose end is at most the start.
// While there are few lanes (the usual case: a handful per group) each lane's
// end sits in an array scanned in lane order, a fraction of the heaps' work;
// past kScannedLanes the heaps take over (a scan per interval would be
// quadratic in the lanes).
class LanePacker {
 public:
  uint32_t place(double start, double end);  // the interval's lane
  uint32_t lane_count() const { return lane_count_; }

  static constexpr uint32_t kScannedLanes = 16;

 private:
  uint32_t place_in_heaps(double start, double end);
  void move_to_heaps();

  std::array<double, kScannedLanes> lane_ends_{};  // while !in_heaps_
  bool in_heaps_ = false;

  using Busy = std::pair<double, uint32_t>;  // (end, lane): the earliest end leaves first
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy_;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free_lanes_;
  uint32_t lane_count_ = 0;
};

}  // namespace tracecompact
