// The top-level facts of a trace that the PP rules read: its distributed rank,
// PP groups and base time (spec 10 and 11).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "index/trace_index.h"

namespace tracecompact {

struct TraceMetadata {
  bool has_distributed_info = false;  // present and an object
  std::optional<int64_t> rank;        // distributedInfo.rank when an integer
  std::string backend_json = "null";  // raw JSON of distributedInfo.backend
  // `ranks` of each pg_config group named torchtitan_real_pp / mesh_pp, in order;
  // non-numeric entries are nullopt.
  std::vector<std::vector<std::optional<double>>> pp_groups;
  bool pg_config_invalid = false;       // not a list of objects: an error once it is read
  std::optional<int64_t> base_time_ns;  // baseTimeNanoseconds when an integer
};

// Fails when the PP groups are needed but pg_config is malformed.
void check_pg_config(const TraceMetadata& metadata);

TraceMetadata read_trace_metadata(const TraceIndex& index);

// Position of `rank` in `group` (numeric equality), if it is there.
std::optional<size_t> position_in_group(const std::vector<std::optional<double>>& group,
                                        int64_t rank);

// spec 10: the PP rank of a single trace (0 when unknown).
int64_t single_trace_pp_rank(const TraceMetadata& metadata);

}  // namespace tracecompact
