// The summary printed after a run (spec 9 and 11), as pretty JSON in the spec's key order.
#pragma once

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "plan/compaction_plan.h"
#include "plan/pp_arrows.h"

namespace tracecompact {

using SummaryWriter = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

template <typename Writer>
void write_count_map(Writer& writer, const std::map<std::string, uint64_t>& counts) {
  writer.StartObject();
  for (const auto& [key, count] : counts) {  // std::map: keys sorted as the spec asks
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    writer.Uint64(count);
  }
  writer.EndObject();
}

// The keys of spec 9 from `measured_slices` to `cuda_graph_launches`.
template <typename Writer>
void write_compaction_counts(Writer& writer, const CompactionCounts& counts,
                             uint64_t flow_endpoints_mapped) {
  writer.Key("measured_slices");
  writer.Uint64(counts.measured_slices);
  writer.Key("original_streams");
  writer.Uint64(counts.original_streams);
  writer.Key("compacted_lanes");
  writer.Uint64(counts.compacted_lanes);
  writer.Key("slice_groups");
  write_count_map(writer, counts.slice_groups);
  writer.Key("lanes_by_group");
  write_count_map(writer, counts.lanes_by_group);
  writer.Key("gpu_flow_endpoints_mapped");
  writer.Uint64(flow_endpoints_mapped);
  writer.Key("gpu_annotations_mapped");
  writer.Uint64(counts.gpu_annotations_mapped);
  writer.Key("gpu_annotations_coalesced");
  writer.Uint64(counts.gpu_annotations_coalesced);
  writer.Key("kernel_annotations_converted");
  writer.Uint64(counts.kernel_annotations_converted);
  writer.Key("kernel_annotation_blocks");
  writer.Uint64(counts.kernel_annotation_blocks);
  writer.Key("gpu_annotations_retained");
  writer.Uint64(counts.gpu_annotations_retained);
  writer.Key("cuda_graph_launches");
  writer.Uint64(counts.cuda_graph_launches);
}

struct LocalFlowSummary {  // spec 10, single-trace mode
  int64_t pp_rank = 0;
  PPArrowCounts counts;
};
template <typename Writer>
void write_local_flow_keys(Writer& writer, const LocalFlowSummary& flows) {
  writer.Key("pp_rank");
  writer.Int64(flows.pp_rank);
  writer.Key("pp_compute_dependency_pairs");
  writer.Uint64(flows.counts.compute_pairs);
  writer.Key("pp_compute_dependency_unmatched");
  writer.Uint64(flows.counts.compute_unmatched);
  writer.Key("pp_unshard_compute_pairs");
  writer.Uint64(flows.counts.unshard_pairs);
  writer.Key("pp_unshard_compute_unmatched");
  writer.Uint64(flows.counts.unshard_unmatched);
}

inline void summary_key(SummaryWriter& writer, std::string_view key) {
  writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}
inline void summary_string(SummaryWriter& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

}  // namespace tracecompact
