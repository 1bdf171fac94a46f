#include "merge/merged_document.h"

#include "core/single_trace.h"
#include "merge/merge_summary.h"
#include "util/thread_policy.h"
#include "writer/metadata_event.h"
#include "writer/rank_events.h"

namespace tracecompact {
namespace {

const std::string kTraceName = "Merged pipeline-parallel CUDA graph trace";

void write_process_metadata(const Rank& rank, JsonOut& out) {
  for (size_t position = 0; position < rank.ordered_pids.size(); ++position) {
    const int64_t old_pid = rank.ordered_pids[position];
    const int64_t pid = rank.pid_map.at(old_pid);
    const std::string role =
        rank.gpu_pids.count(old_pid) ? "GPU" : "process " + std::to_string(old_pid);
    write_metadata_event(out, "process_name", pid, 0, "name", [&](JsonOut& o) {
      o.string("PP rank " + std::to_string(rank.pp_rank) + " (global rank " +
               std::to_string(rank.global_rank) + ") | " + role);
    });
    write_metadata_event(out, "process_sort_index", pid, 0, "sort_index", [&](JsonOut& o) {
      o.integer(rank.pp_rank * 1000 + static_cast<int64_t>(position));
    });
  }
}

}  // namespace

MergedDocument::MergedDocument(ByteSink& sink, const std::vector<Rank*>& pp_order, int64_t base_ns,
                               unsigned threads)
    : out_(sink), pp_order_(pp_order), base_ns_(base_ns), threads_(threads) {}

void MergedDocument::begin() {
  const Rank& first = *pp_order_.front();
  top_level_ = first.index.top_level;
  events_key_position_ = first.index.events_key_position;
  first_rank_chunk_size_ = first.input->chunk_size();
  out_.start_object();
  write_top_level(0, events_key_position_);
  out_.key("traceEvents");
  out_.start_array();
}

void MergedDocument::write_rank(Rank& rank) {
  for_rank(rank, [&] { write_rank_events_of(rank); });
}

void MergedDocument::write_rank_events_of(Rank& rank) {
  MergeEdit edit;
  edit.pid_map = &rank.pid_map;
  edit.ts_shift = rank.shift;
  edit.first_flow_id = static_cast<uint64_t>(rank.pp_rank + 1) * 1000000000ull;
  edit.name_prefix = "PP rank " + std::to_string(rank.pp_rank) + " | ";
  // Each rank rendered on the pass's workers.
  const unsigned workers = pass_workers(threads_, rank.input->chunk_size());
  rank.flow_endpoints_mapped =
      write_rank_events(*rank.input, *rank.plan, &edit, workers, out_).flow_endpoints_mapped;
  write_plan_events(*rank.plan, &edit, workers, out_);
  write_process_metadata(rank, out_);
}

void MergedDocument::finish(const std::vector<Rank>& ranks, MergedArrows& arrows) {
  write_pp_arrows(
      arrows.result(), [&](int64_t pid) { return arrows.pp_rank_of(pid); },
      pass_workers(threads_, first_rank_chunk_size_), out_);
  out_.end_array();
  write_top_level(events_key_position_, top_level_.size());
  if (!wrote_compaction_) {
    out_.key("cuda_graph_stream_compaction");
    write_stream_compaction_value(out_);
  }
  if (!wrote_name_) {
    out_.key("traceName");
    out_.string(kTraceName);
  }
  out_.key("cuda_graph_pp_merge");
  out_.start_object();
  write_merge_summary(out_.writer(), ranks, pp_order_, arrows.result().counts);
  out_.end_object();
  out_.end_object();
  out_.stream().drain();
}

void MergedDocument::write_top_level(size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    const TopLevelValue& value = top_level_[i];
    if (value.key == "cuda_graph_pp_merge") continue;  // written last, with the counts of pass 2
    out_.key(value.key);
    if (value.key == "cuda_graph_stream_compaction") {
      write_stream_compaction_value(out_);
      wrote_compaction_ = true;
    } else if (value.key == "baseTimeNanoseconds") {
      out_.integer(base_ns_);
    } else if (value.key == "traceName") {
      out_.string(kTraceName);
      wrote_name_ = true;
    } else if (value.key == "distributedInfo") {
      write_distributed_info();
    } else {
      out_.raw(value.text);
    }
  }
}

void MergedDocument::write_distributed_info() {
  out_.start_object();
  out_.key("backend");
  out_.raw(pp_order_.front()->metadata.backend_json);
  out_.key("ranks");
  out_.start_array();
  for (const Rank* rank : pp_order_) out_.integer(rank->global_rank);
  out_.end_array();
  out_.key("pp_rank_count");
  out_.integer(static_cast<int64_t>(pp_order_.size()));
  out_.end_object();
}

}  // namespace tracecompact
