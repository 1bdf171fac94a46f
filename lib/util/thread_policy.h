// What --threads means, in one place. A pass over one input has a calling
// thread that reads and tokenizes and hands batches of events to workers;
// a merge also handles several ranks side by side in pass 1.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>

namespace tracecompact {

inline unsigned core_count() {
  return std::max(1u, std::thread::hardware_concurrency());
}

// Workers for a pass over one input. requested: 0 = one per core, up to 4 (one
// tokenizing thread feeds no more); 1 = none, the calling thread does it all;
// N = N. An input read in one small chunk is done before threads would start.
inline unsigned pass_workers(unsigned requested, size_t input_chunk_size) {
  constexpr size_t kSmallInput = size_t{2} << 20;
  if (input_chunk_size < kSmallInput || requested == 1) return 0;
  return requested == 0 ? std::clamp(core_count(), 1u, 4u) : requested;
}

// Ranks a merge indexes side by side (0 = one per core), at most `ranks`.
inline unsigned ranks_at_once(unsigned requested, size_t ranks) {
  const unsigned wanted = requested ? requested : core_count();
  return static_cast<unsigned>(std::clamp<size_t>(ranks, 1, wanted));
}

}  // namespace tracecompact
