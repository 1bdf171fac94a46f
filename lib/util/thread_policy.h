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

// One tokenizing thread feeds no more parser or render workers than this.
inline constexpr unsigned kMaxPassWorkers = 4;

// The most --threads may ask for: each is a thread of its own, and a count
// beyond any machine's cores is a typo, not a request.
inline constexpr unsigned kMaxRequestedThreads = 256;

// Whether workers could help with an input: one read in a single small chunk
// is done before threads would start.
inline bool worth_workers(size_t input_chunk_size) {
  return input_chunk_size >= (size_t{2} << 20);
}

// Cores a run may keep busy: 0 = one per core.
inline unsigned wanted_cores(unsigned requested) {
  return requested ? requested : core_count();
}

// Workers for a pass over one input. requested: 0 = one per core, up to 4 (one
// tokenizing thread feeds no more); 1 = none, the calling thread does it all;
// N = N.
inline unsigned pass_workers(unsigned requested, size_t input_chunk_size) {
  if (!worth_workers(input_chunk_size) || requested == 1) return 0;
  return requested == 0 ? std::clamp(core_count(), 1u, kMaxPassWorkers) : requested;
}

// Ranks a merge indexes side by side (0 = one per core), at most `ranks`.
inline unsigned ranks_at_once(unsigned requested, size_t ranks) {
  return static_cast<unsigned>(std::clamp<size_t>(ranks, 1, wanted_cores(requested)));
}

}  // namespace tracecompact
