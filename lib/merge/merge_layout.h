// Where each rank of a merge goes (spec 11), from the ranks' top-level facts
// alone: its PP rank, its time offset and the order the ranks are written in.
// A pipelined merge works it out from what it reads ahead of pass 1 and again
// from pass 1, and compares the two.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index/trace_metadata.h"
#include "json/number_format.h"

namespace tracecompact {

struct RankPlacement {
  int64_t global_rank = 0;  // distributedInfo.rank
  int64_t pp_rank = 0;
  int64_t base_time_ns = 0;
  TimestampShift shift;  // (base - min base) ns, applied as / 1000.0 µs
};

struct MergeLayout {
  std::vector<RankPlacement> ranks;  // in input order
  std::vector<size_t> pp_order;      // input positions, by PP rank (stable)
  int64_t base_ns = 0;               // the smallest base
  std::string first_backend_json;    // distributedInfo.backend of the first PP rank

  // Both lay the ranks out alike: a merge written from one is the other's.
  bool same_as(const MergeLayout& other) const;
};

// " (in <path>)", put after a message's spec wording to say which trace of the
// merge it is about ("trace is missing distributedInfo" alone does not); empty
// for no path.
std::string in_file(const std::string& path);

// spec 11's checks of the ranks' metadata, each over all ranks before the next.
void check_rank_metadata(const std::vector<const TraceMetadata*>& metadata);

// The checks, then the PP ranks and the alignment. Fails as the merge does.
MergeLayout lay_out_ranks(const std::vector<const TraceMetadata*>& metadata);

}  // namespace tracecompact
