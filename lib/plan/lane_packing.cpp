#include "plan/lane_packing.h"

namespace tracecompact {

uint32_t LanePacker::place(double start, double end) {
  // A lane whose slice ends exactly at this start is free for it.
  while (!busy_.empty() && busy_.top().first <= start) {
    free_lanes_.push(busy_.top().second);
    busy_.pop();
  }
  uint32_t lane;
  if (!free_lanes_.empty()) {
    lane = free_lanes_.top();
    free_lanes_.pop();
  } else {
    lane = lane_count_++;
  }
  busy_.emplace(end, lane);
  return lane;
}

std::vector<uint32_t> pack_sorted_intervals(const std::vector<Interval>& intervals,
                                            uint32_t& lane_count) {
  LanePacker packer;
  std::vector<uint32_t> lanes;
  lanes.reserve(intervals.size());
  for (const auto& interval : intervals)
    lanes.push_back(packer.place(interval.start, interval.end));
  lane_count = packer.lane_count();
  return lanes;
}

}  // namespace tracecompact
