// A partition point searched outward from a hint: where successive lookups
// land near each other (flows and annotations met in time order on a stream),
// a few probes replace a binary search over the whole range, and they touch
// memory the last lookup already brought into the cache.
#pragma once

#include <algorithm>
#include <cstddef>

namespace tracecompact {

// The first position in [begin, end) at which `is_past(position)` holds, or
// `end`; `is_past` is false and then true along the range. Steps of 1, 2, 4, ...
// from `hint` (clamped into the range) bracket the answer; a binary search
// finishes. The same answer as std::partition_point, whatever the hint.
template <typename IsPast>
size_t gallop_partition_point(size_t begin, size_t end, size_t hint, IsPast is_past) {
  hint = std::clamp(hint, begin, end);
  size_t low = begin, high = end;  // the answer lies in [low, high]
  size_t step = 1;
  if (hint < end && !is_past(hint)) {
    low = hint + 1;
    size_t probe = low;
    while (probe < end && !is_past(probe)) {
      low = probe + 1;
      probe = low + step;
      step *= 2;
    }
    high = std::min(probe, end);
  } else {
    high = hint;
    while (high > begin) {
      const size_t probe = high - std::min(step, high - begin);
      if (!is_past(probe)) {
        low = probe + 1;
        break;
      }
      high = probe;
      step *= 2;
    }
  }
  while (low < high) {  // is_past(high) holds, or high is end
    const size_t middle = low + (high - low) / 2;
    if (is_past(middle))
      high = middle;
    else
      low = middle + 1;
  }
  return low;
}

}  // namespace tracecompact
