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

}  // namespace tracecompact
