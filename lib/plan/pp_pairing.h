// Greedy nearest-midpoint pairing of PP blocks (spec 10): all (|s_mid - d_mid|,
// source, destination) candidates in ascending order, each block used once.
// `mid` is start + end of a block. Pairs come back in the order they are taken.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace tracecompact {

using BlockPairs = std::vector<std::pair<size_t, size_t>>;

// Chooses the exhaustive form for small inputs and the lazy one otherwise.
BlockPairs pair_nearest_midpoints(const std::vector<double>& source_mids,
                                  const std::vector<double>& destination_mids);

// Sorts every candidate: O(S*D log(S*D)) time and memory. The reference form.
BlockPairs pair_nearest_midpoints_exhaustive(const std::vector<double>& source_mids,
                                             const std::vector<double>& destination_mids);

// Same result in O((S + D) log D) for typical inputs: each source enumerates its
// destinations lazily by distance, and a heap always yields the globally
// smallest unused candidate.
BlockPairs pair_nearest_midpoints_lazy(const std::vector<double>& source_mids,
                                       const std::vector<double>& destination_mids);

}  // namespace tracecompact
