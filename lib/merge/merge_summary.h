// The merge's summary (spec 11's cuda_graph_pp_merge): written into the merged
// document and printed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/summary.h"
#include "merge/merge_rank.h"
#include "plan/pp_arrows.h"

namespace tracecompact {

template <typename Writer>
void write_merge_summary(Writer& w, const std::vector<Rank>& ranks,
                         const std::vector<Rank*>& pp_order, const PPArrowCounts& counts) {
  auto key = [&](std::string_view k) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
  };
  key("time_alignment");
  w.String("baseTimeNanoseconds");
  key("time_offsets_us");
  w.StartObject();
  for (const auto& rank : ranks) {
    key(std::to_string(rank.global_rank));
    w.Double(rank.shift.offset_us);
  }
  w.EndObject();
  key("pp_ranks");
  w.StartArray();
  for (const Rank* rank : pp_order) {
    w.StartObject();
    key("pp_rank");
    w.Int64(rank->pp_rank);
    key("global_rank");
    w.Int64(rank->global_rank);
    w.EndObject();
  }
  w.EndArray();
  const std::pair<std::string_view, uint64_t> arrow_counts[] = {
      {"pp_send_recv_pairs", counts.send_recv_pairs},
      {"pp_send_recv_unmatched", counts.send_recv_unmatched},
      {"pp_compute_dependency_pairs", counts.compute_pairs},
      {"pp_compute_dependency_unmatched", counts.compute_unmatched},
      {"pp_unshard_compute_pairs", counts.unshard_pairs},
      {"pp_unshard_compute_unmatched", counts.unshard_unmatched}};
  for (const auto& [name, count] : arrow_counts) {
    key(name);
    w.Uint64(count);
  }
  key("per_rank_compaction");
  w.StartObject();
  for (const auto& rank : ranks) {
    key(std::to_string(rank.global_rank));
    w.StartObject();
    // The single-trace summary's keys without the PP keys.
    write_compaction_counts(w, rank.counts, rank.flow_endpoints_mapped);
    w.EndObject();
  }
  w.EndObject();
}

}  // namespace tracecompact
