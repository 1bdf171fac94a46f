#include "plan/lane_packing.h"

#include <functional>
#include <queue>
#include <utility>

namespace tracecompact {

std::vector<uint32_t> pack_sorted_intervals(const std::vector<Interval>& intervals,
                                            uint32_t& lane_count) {
  using Busy = std::pair<double, uint32_t>;  // (end, lane): the earliest end leaves first
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free_lanes;
  std::vector<uint32_t> lanes(intervals.size());
  lane_count = 0;
  for (size_t i = 0; i < intervals.size(); ++i) {
    // A lane whose slice ends exactly at this start is free for it.
    while (!busy.empty() && busy.top().first <= intervals[i].start) {
      free_lanes.push(busy.top().second);
      busy.pop();
    }
    uint32_t lane;
    if (!free_lanes.empty()) {
      lane = free_lanes.top();
      free_lanes.pop();
    } else {
      lane = lane_count++;
    }
    lanes[i] = lane;
    busy.emplace(intervals[i].end, lane);
  }
  return lanes;
}

}  // namespace tracecompact
