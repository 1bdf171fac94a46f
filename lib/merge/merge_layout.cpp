#include "merge/merge_layout.h"

#include <algorithm>
#include <map>

#include "tracecompact/error.h"

namespace tracecompact {

std::string in_file(const std::string& path) {
  return path.empty() ? std::string() : " (in " + path + ")";
}

void check_rank_metadata(const std::vector<const TraceMetadata*>& metadata) {
  for (const TraceMetadata* m : metadata) {
    // An integer, but more than the tool's 64-bit times hold (the reference's
    // Python integers do): said as such rather than as missing.
    if (!m->base_time_beyond_int64.empty())
      fail_input("baseTimeNanoseconds: the integer " + m->base_time_beyond_int64 +
                 " does not fit in 64 bits" + in_file(m->source));
    if (!m->base_time_ns)
      fail_input("all PP traces must contain integer baseTimeNanoseconds" + in_file(m->source));
  }
  for (const TraceMetadata* m : metadata) {
    if (!m->has_distributed_info)
      fail_input("trace is missing distributedInfo" + in_file(m->source));
    if (!m->rank)
      fail_input("trace distributedInfo is missing an integer rank" + in_file(m->source));
  }
  std::map<int64_t, const TraceMetadata*> seen;
  for (const TraceMetadata* m : metadata)
    if (const auto [first, inserted] = seen.emplace(*m->rank, m); !inserted)
      fail_input("PP traces contain duplicate distributed ranks (rank " + std::to_string(*m->rank) +
                 " in " + first->second->source + " and " + m->source + ")");
}

namespace {

// The first PP group (traces in input order) holding every rank orders them;
// else the sorted global ranks do.
void assign_pp_ranks(const std::vector<const TraceMetadata*>& metadata, MergeLayout& layout) {
  auto holds_all = [&](const PPGroup& group) {
    return std::all_of(layout.ranks.begin(), layout.ranks.end(), [&](const RankPlacement& r) {
      return position_in_group(group, r.global_rank).has_value();
    });
  };
  for (const TraceMetadata* m : metadata) {
    if (const auto found = find_pp_group(*m, holds_all)) {
      const PPGroup& group = m->pp_groups[*found];
      for (auto& r : layout.ranks)
        r.pp_rank = static_cast<int64_t>(*position_in_group(group, r.global_rank));
      return;
    }
  }
  std::vector<int64_t> sorted;
  for (const auto& r : layout.ranks) sorted.push_back(r.global_rank);
  std::sort(sorted.begin(), sorted.end());
  for (auto& r : layout.ranks)
    r.pp_rank = std::lower_bound(sorted.begin(), sorted.end(), r.global_rank) - sorted.begin();
}

void align(MergeLayout& layout) {
  layout.base_ns = layout.ranks.front().base_time_ns;
  for (const auto& r : layout.ranks) layout.base_ns = std::min(layout.base_ns, r.base_time_ns);
  for (auto& r : layout.ranks)
    // The difference of two int64 is below 2^64: exact in uint64.
    r.shift = TimestampShift::from_nanoseconds(static_cast<uint64_t>(r.base_time_ns) -
                                               static_cast<uint64_t>(layout.base_ns));
  for (size_t i = 0; i < layout.ranks.size(); ++i) layout.pp_order.push_back(i);
  std::stable_sort(layout.pp_order.begin(), layout.pp_order.end(), [&](size_t a, size_t b) {
    return layout.ranks[a].pp_rank < layout.ranks[b].pp_rank;
  });
}

}  // namespace

MergeLayout lay_out_ranks(const std::vector<const TraceMetadata*>& metadata) {
  check_rank_metadata(metadata);
  MergeLayout layout;
  for (const TraceMetadata* m : metadata) {
    RankPlacement placement;
    placement.global_rank = *m->rank;
    placement.base_time_ns = *m->base_time_ns;
    layout.ranks.push_back(placement);
  }
  assign_pp_ranks(metadata, layout);
  align(layout);
  layout.first_backend_json = metadata[layout.pp_order.front()]->backend_json;
  return layout;
}

bool MergeLayout::same_as(const MergeLayout& other) const {
  auto same_placement = [](const RankPlacement& a, const RankPlacement& b) {
    return a.global_rank == b.global_rank && a.pp_rank == b.pp_rank &&
           a.base_time_ns == b.base_time_ns;
  };
  // The shifts follow from the bases.
  return base_ns == other.base_ns && pp_order == other.pp_order &&
         first_backend_json == other.first_backend_json &&
         std::equal(ranks.begin(), ranks.end(), other.ranks.begin(), other.ranks.end(),
                    same_placement);
}

}  // namespace tracecompact
