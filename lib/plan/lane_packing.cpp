#include "plan/lane_packing.h"

namespace tracecompact {

uint32_t LanePacker::place(double start, double end) {
  if (!in_heaps_) {
    uint32_t lane = 0;
    while (lane < lane_count_ && !(lane_ends_[lane] <= start)) ++lane;
    if (lane < kScannedLanes) {
      lane_ends_[lane] = end;
      if (lane == lane_count_) ++lane_count_;
      return lane;
    }
    move_to_heaps();
  }
  return place_in_heaps(start, end);
}

// Every lane goes to the busy heap with its end: the next placement moves
// those that are free for it to the free heap, as spec 3's walk would have.
void LanePacker::move_to_heaps() {
  for (uint32_t lane = 0; lane < lane_count_; ++lane) busy_.emplace(lane_ends_[lane], lane);
  in_heaps_ = true;
}

uint32_t LanePacker::place_in_heaps(double start, double end) {
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
