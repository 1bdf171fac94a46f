// Interval partitioning (spec 3): the fewest lanes such that no lane holds two
// overlapping intervals, with the reference's exact tie-breaks.
#pragma once

#include <cstdint>
#include <vector>

namespace tracecompact {

struct Interval {
  double start;
  double end;
};

// `intervals` must already be sorted by (start, end), ties in event order.
// Returns the lane of each interval; `lane_count` receives the number of lanes.
std::vector<uint32_t> pack_sorted_intervals(const std::vector<Interval>& intervals,
                                            uint32_t& lane_count);

}  // namespace tracecompact
