// Interval partitioning (spec 3): the fewest lanes such that no lane holds two
// overlapping intervals, with the reference's exact tie-breaks.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace tracecompact {

// Places intervals one at a time; they must come sorted by (start, end), ties
// in event order.
class LanePacker {
 public:
  uint32_t place(double start, double end);  // the interval's lane
  uint32_t lane_count() const { return lane_count_; }

 private:
  using Busy = std::pair<double, uint32_t>;  // (end, lane): the earliest end leaves first
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy_;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free_lanes_;
  uint32_t lane_count_ = 0;
};

}  // namespace tracecompact
