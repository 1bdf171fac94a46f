// The top-level facts of a trace that the PP rules read: its distributed rank,
// PP groups and base time (spec 10 and 11).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "index/trace_index.h"

namespace tracecompact {

// An entry of a PP group's `ranks`, as Python's `==` compares it with an
// integer rank: integers exactly, booleans as 0 and 1, floats by value (so
// 3.0 is rank 3, but 2^53 is not rank 2^53 + 1), anything else never.
class GroupRank {
 public:
  static GroupRank integer(int64_t value) { return {Kind::kInteger, value, 0}; }
  static GroupRank number(double value) { return {Kind::kNumber, 0, value}; }
  static GroupRank other() { return {Kind::kOther, 0, 0}; }
  bool equals(int64_t rank) const;

 private:
  enum class Kind : uint8_t { kOther, kInteger, kNumber };
  GroupRank(Kind kind, int64_t integer, double number)
      : kind_(kind), integer_(integer), number_(number) {}
  Kind kind_;
  int64_t integer_;
  double number_;
};

using PPGroup = std::vector<GroupRank>;

struct TraceMetadata {
  std::string source;                 // the trace's file (its display name), for messages
  bool has_distributed_info = false;  // present and an object
  std::optional<int64_t> rank;        // distributedInfo.rank when an integer
  std::string backend_json = "null";  // raw JSON of distributedInfo.backend
  // `ranks` of each pg_config group named torchtitan_real_pp / mesh_pp, in order.
  std::vector<PPGroup> pp_groups;
  // Where pg_config stops being a list of objects, as the number of PP groups
  // before that point: a walk over the groups fails there (null, a number, a
  // non-empty string or object, an element that is not an object). An empty
  // string or object walks as an empty list.
  std::optional<size_t> pg_config_invalid_after;
  std::optional<int64_t> base_time_ns;  // baseTimeNanoseconds when an integer
  std::string base_time_beyond_int64;   // its digits when an integer beyond int64
};

// The first PP group, in order, that `wanted` accepts. Like the reference's
// walk, it fails on a malformed pg_config only if it gets there first.
std::optional<size_t> find_pp_group(const TraceMetadata& metadata,
                                    const std::function<bool(const PPGroup&)>& wanted);

TraceMetadata read_trace_metadata(const TraceIndex& index);

// Position of `rank` in `group` (Python's `ranks.index(rank)`), if it is there.
std::optional<size_t> position_in_group(const PPGroup& group, int64_t rank);

// spec 10: the PP rank of a single trace (0 when unknown).
int64_t single_trace_pp_rank(const TraceMetadata& metadata);

}  // namespace tracecompact
