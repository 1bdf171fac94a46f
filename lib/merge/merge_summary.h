// The merge's summary (spec 11's cuda_graph_pp_merge): written into the merged
// document and printed.
#pragma once

#include <string>
#include <string_view>
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
  key("pp_send_recv_pairs");
  w.Uint64(counts.send_recv_pairs);
  key("pp_send_recv_unmatched");
  w.Uint64(counts.send_recv_unmatched);
  key("pp_compute_dependency_pairs");
  w.Uint64(counts.compute_pairs);
  key("pp_compute_dependency_unmatched");
  w.Uint64(counts.compute_unmatched);
  key("pp_unshard_compute_pairs");
  w.Uint64(counts.unshard_pairs);
  key("pp_unshard_compute_unmatched");
  w.Uint64(counts.unshard_unmatched);
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
