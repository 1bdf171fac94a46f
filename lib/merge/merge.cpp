#include "merge/merge.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "core/single_trace.h"
#include "core/summary.h"
#include "index/index_pass.h"
#include "index/trace_metadata.h"
#include "merge/rank_files.h"
#include "plan/compaction_plan.h"
#include "util/helper_thread.h"
#include "util/phase_timer.h"
#include "util/spare_cores.h"
#include "util/task_beside.h"
#include "util/thread_policy.h"
#include "verify/verifier.h"
#include "writer/metadata_event.h"
#include "writer/rank_events.h"

namespace tracecompact {
namespace fs = std::filesystem;

namespace {

struct Rank {
  RankFile file;
  std::unique_ptr<TraceInput> input;
  TraceIndex index;
  TraceMetadata metadata;
  std::unique_ptr<CompactionPlan> plan;
  int64_t global_rank = 0;
  int64_t pp_rank = 0;
  TimestampShift shift;                          // (base - min base) ns, applied as / 1000.0 µs
  std::vector<int64_t> ordered_pids;             // non-GPU pids, then GPU pids
  std::unordered_map<int64_t, int64_t> pid_map;  // old pid -> merged pid
  std::unordered_set<int64_t> gpu_pids;
  uint64_t flow_endpoints_mapped = 0;
  CompactionCounts counts;  // the plan's, kept once the plan is gone

  // Once the rank is written, its index and plan go: the ranks after it are
  // written with less memory held, and the arrows are drawn in what they free.
  void release_index() {
    counts = plan->counts();
    plan.reset();
    index = TraceIndex();
  }
};

// Pass 1 and planning of every rank, `threads` at a time; the first failure (in
// file order) is reported, whatever the thread count. The ranks are read last
// to first: pass 2 writes them in PP order, mostly the ranks' order, and a host
// whose page cache cannot hold all of them still has the last ones read.
void index_ranks(std::vector<Rank>& ranks, unsigned requested_threads) {
  const unsigned threads = ranks_at_once(requested_threads, ranks.size());
  std::vector<std::exception_ptr> errors(ranks.size());
  std::atomic<size_t> next{0};
  // Ranks side by side use the cores; cores beyond the ranks, and those of
  // threads that find no rank left, go to the ranks still being read.
  SpareCores spare;
  const unsigned wanted = wanted_cores(requested_threads);
  if (threads > 1 && wanted > threads) spare.give(wanted - threads);
  auto worker = [&] {
    for (size_t taken = next++; taken < ranks.size(); taken = next++) {
      const size_t i = ranks.size() - 1 - taken;
      try {
        Rank& rank = ranks[i];
        rank.input = std::make_unique<TraceInput>(TraceInput::open_path(rank.file.path));
        // A lone rank parses on workers from the start.
        const unsigned workers =
            threads > 1 ? 0 : pass_workers(requested_threads, rank.input->chunk_size());
        SpareCores* rank_spare =
            threads > 1 && worth_workers(rank.input->chunk_size()) ? &spare : nullptr;
        rank.index = build_index(*rank.input, workers, rank_spare);
        rank.metadata = read_trace_metadata(rank.index);
        BorrowedCores plan_helper(rank_spare);
        rank.plan = std::make_unique<CompactionPlan>(rank.index,
                                                     workers > 1 || plan_helper.take_up_to(1) > 0);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
    spare.give(1);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.push_back(start_helper_thread(worker));
  worker();
  for (auto& thread : pool) thread.join();
  for (auto& error : errors)
    if (error) std::rethrow_exception(error);
}

// spec 11 checks, each over all traces before the next.
void check_ranks(const std::vector<Rank>& ranks) {
  for (const auto& rank : ranks)
    if (!rank.metadata.base_time_ns)
      fail_input("all PP traces must contain integer baseTimeNanoseconds");
  for (const auto& rank : ranks) {
    if (!rank.metadata.has_distributed_info) fail_input("trace is missing distributedInfo");
    if (!rank.metadata.rank) fail_input("trace distributedInfo is missing an integer rank");
  }
  std::set<int64_t> seen;
  for (const auto& rank : ranks)
    if (!seen.insert(*rank.metadata.rank).second)
      fail_input("PP traces contain duplicate distributed ranks");
  // The merge renumbers every integer pid (spec 11); ours are 64-bit.
  for (const auto& rank : ranks)
    if (const auto& pid = rank.index.first_pid_beyond_int64; pid.value)
      fail_input(rank.index.display_name + ": event " + std::to_string(pid.event) +
                 ": pid: the integer " + std::to_string(pid.value) +
                 " does not fit in 64 bits (a merge renumbers integer pids)");
}

// The first PP group (traces in input order) holding every rank orders them;
// else the sorted global ranks do.
void assign_pp_ranks(std::vector<Rank>& ranks) {
  for (auto& rank : ranks) rank.global_rank = *rank.metadata.rank;
  auto holds_all = [&](const PPGroup& group) {
    return std::all_of(ranks.begin(), ranks.end(), [&](const Rank& r) {
      return position_in_group(group, r.global_rank).has_value();
    });
  };
  for (const auto& rank : ranks) {
    if (const auto found = find_pp_group(rank.metadata, holds_all)) {
      const PPGroup& group = rank.metadata.pp_groups[*found];
      for (auto& r : ranks)
        r.pp_rank = static_cast<int64_t>(*position_in_group(group, r.global_rank));
      return;
    }
  }
  std::vector<int64_t> sorted;
  for (const auto& rank : ranks) sorted.push_back(rank.global_rank);
  std::sort(sorted.begin(), sorted.end());
  for (auto& rank : ranks)
    rank.pp_rank =
        std::lower_bound(sorted.begin(), sorted.end(), rank.global_rank) - sorted.begin();
}

void align_and_layout(std::vector<Rank>& ranks, std::vector<Rank*>& pp_order, int64_t& base_ns) {
  base_ns = *ranks.front().metadata.base_time_ns;
  for (const auto& rank : ranks) base_ns = std::min(base_ns, *rank.metadata.base_time_ns);
  for (auto& rank : ranks)
    // The difference of two int64 is below 2^64: exact in uint64.
    rank.shift = TimestampShift::from_nanoseconds(
        static_cast<uint64_t>(*rank.metadata.base_time_ns) - static_cast<uint64_t>(base_ns));
  for (auto& rank : ranks) pp_order.push_back(&rank);
  std::stable_sort(pp_order.begin(), pp_order.end(),
                   [](const Rank* a, const Rank* b) { return a->pp_rank < b->pp_rank; });
  int64_t next_pid = 1;
  for (Rank* rank : pp_order) {
    for (const auto& stream : rank->index.streams)
      rank->gpu_pids.insert(stream.pid);  // slices' streams
    rank->ordered_pids = rank->index.int_pids;
    std::stable_sort(rank->ordered_pids.begin(), rank->ordered_pids.end(),
                     [&](int64_t a, int64_t b) {
                       return std::make_pair(rank->gpu_pids.count(a) > 0, a) <
                              std::make_pair(rank->gpu_pids.count(b) > 0, b);
                     });
    for (int64_t pid : rank->ordered_pids) rank->pid_map[pid] = next_pid++;
  }
}

// The merged PP arrows are written last: their blocks are built before pass 2
// and, with threads to spare, drawn on a thread of their own once start_drawing()
// is called, while pass 2 writes the ranks' events (else when pass 2 asks for
// them), as a single trace does.
class MergedArrows {
 public:
  MergedArrows(const std::vector<Rank*>& pp_order, bool draw_beside)
      : draw_beside_(draw_beside), drawing_(drawing(pp_order, pp_rank_of_pid_)) {}

  void start_drawing() {
    if (draw_beside_) drawing_.start();
  }
  // Waits for the drawing (or draws now); rethrows what the drawing threw.
  const PPArrowResult& result() { return drawing_.result(); }
  int64_t pp_rank_of(int64_t merged_pid) const { return pp_rank_of_pid_.at(merged_pid); }

 private:
  // The drawing over every rank's PP annotations, which own their blocks; notes
  // each merged pid's PP rank on the way.
  static std::packaged_task<PPArrowResult()> drawing(
      const std::vector<Rank*>& pp_order, std::unordered_map<int64_t, int64_t>& pp_rank_of_pid) {
    PPAnnotationList annotations;
    size_t total = 0;
    for (const Rank* rank : pp_order) total += rank->plan->pp_annotation_count();
    annotations.items.reserve(total);
    PPLaneSets lanes;
    for (const Rank* rank : pp_order) {
      for (const auto& [old_pid, new_pid] : rank->pid_map) pp_rank_of_pid[new_pid] = rank->pp_rank;
      rank->plan->append_pp_annotations(annotations, rank->shift.offset_us, &rank->pid_map);
      const PPLaneSets rank_lanes = rank->plan->pp_lane_sets();
      for (const auto& key : rank_lanes.main_compute)
        lanes.main_compute.insert({rank->pid_map.at(key.pid), key.tid});
      for (const auto& key : rank_lanes.unshard)
        lanes.unshard.insert({rank->pid_map.at(key.pid), key.tid});
    }
    return std::packaged_task<PPArrowResult()>(
        [blocks = build_pp_blocks(std::move(annotations), lanes)]() mutable {
          return draw_pp_arrows(std::move(blocks), true, kFirstPPFlowId);
        });
  }

  const bool draw_beside_;
  std::unordered_map<int64_t, int64_t> pp_rank_of_pid_;  // before drawing_, which fills it
  TaskBeside<PPArrowResult> drawing_;
};

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

void write_merged_document(std::vector<Rank>& ranks, const std::vector<Rank*>& pp_order,
                           int64_t base_ns, MergedArrows& arrows, unsigned threads,
                           ByteSink& sink) {
  const Rank& first = *pp_order.front();
  JsonOut out(sink);
  auto write_events = [&] {
    out.key("traceEvents");
    out.start_array();
    // Ranks one after the other in PP order, each rendered on the pass's workers.
    for (Rank* rank : pp_order) {
      MergeEdit edit;
      edit.pid_map = &rank->pid_map;
      edit.ts_shift = rank->shift;
      edit.first_flow_id = static_cast<uint64_t>(rank->pp_rank + 1) * 1000000000ull;
      edit.name_prefix = "PP rank " + std::to_string(rank->pp_rank) + " | ";
      const unsigned workers = pass_workers(threads, rank->input->chunk_size());
      rank->flow_endpoints_mapped =
          write_rank_events(*rank->input, *rank->plan, &edit, workers, out).flow_endpoints_mapped;
      write_plan_events(*rank->plan, &edit, workers, out);
      write_process_metadata(*rank, out);
      rank->release_index();
      // Drawn beside the ranks after the first: all indexes and the first rank's
      // pass-2 buffers at once are the merge's peak, which the drawing would add to.
      arrows.start_drawing();
    }
    write_pp_arrows(
        arrows.result(), [&](int64_t pid) { return arrows.pp_rank_of(pid); },
        pass_workers(threads, first.input->chunk_size()), out);
    out.end_array();
  };
  auto write_distributed_info = [&] {
    out.start_object();
    out.key("backend");
    out.raw(first.metadata.backend_json);
    out.key("ranks");
    out.start_array();
    for (const Rank* rank : pp_order) out.integer(rank->global_rank);
    out.end_array();
    out.key("pp_rank_count");
    out.integer(static_cast<int64_t>(pp_order.size()));
    out.end_object();
  };
  static const std::string kTraceName = "Merged pipeline-parallel CUDA graph trace";
  bool wrote_compaction = false, wrote_name = false;
  // A copy: the first rank's index goes once its events are written.
  const std::vector<TopLevelValue> top = first.index.top_level;
  const size_t events_key_position = first.index.events_key_position;
  out.start_object();
  for (size_t i = 0; i <= top.size(); ++i) {
    if (i == events_key_position) write_events();
    if (i == top.size()) break;
    const TopLevelValue& value = top[i];
    if (value.key == "cuda_graph_pp_merge") continue;  // written last, with the counts of pass 2
    out.key(value.key);
    if (value.key == "cuda_graph_stream_compaction") {
      write_stream_compaction_value(out);
      wrote_compaction = true;
    } else if (value.key == "baseTimeNanoseconds") {
      out.integer(base_ns);
    } else if (value.key == "traceName") {
      out.string(kTraceName);
      wrote_name = true;
    } else if (value.key == "distributedInfo") {
      write_distributed_info();
    } else {
      out.raw(value.text);
    }
  }
  if (!wrote_compaction) {
    out.key("cuda_graph_stream_compaction");
    write_stream_compaction_value(out);
  }
  if (!wrote_name) {
    out.key("traceName");
    out.string(kTraceName);
  }
  out.key("cuda_graph_pp_merge");
  out.start_object();
  write_merge_summary(out.writer(), ranks, pp_order, arrows.result().counts);
  out.end_object();
  out.end_object();
  out.stream().drain();
}

std::string render_merge_summary(const std::vector<Rank>& ranks, const std::vector<Rank*>& pp_order,
                                 const PPArrowCounts& counts, const std::string& output,
                                 bool verified) {
  rapidjson::StringBuffer buffer;
  SummaryWriter w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("input");
  w.StartArray();
  for (const auto& rank : ranks) summary_string(w, rank.file.path);
  w.EndArray();
  w.Key("output");
  summary_string(w, output);
  write_merge_summary(w, ranks, pp_order, counts);
  if (verified) {
    w.Key("verified");
    w.Bool(true);
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::string default_merge_output(const std::string& input) {
  return (fs::path(merge_directory(input)) / "pp_traces_merged_compacted.json.gz").string();
}

RunResult run_merge(const MergeRequest& request) {
  PhaseTimer timer;
  std::optional<std::set<uint64_t>> selection;
  if (request.ranks) selection = parse_rank_selection(*request.ranks);
  const std::string directory = merge_directory(request.input);
  std::vector<Rank> ranks;
  for (auto& file : find_rank_files(directory, selection)) {
    ranks.emplace_back();
    ranks.back().file = file;
  }
  index_ranks(ranks, request.threads);
  timer.mark("pass 1 and plans (all ranks)");
  check_ranks(ranks);
  assign_pp_ranks(ranks);
  std::vector<Rank*> pp_order;
  int64_t base_ns = 0;
  align_and_layout(ranks, pp_order, base_ns);
  const bool draw_beside = pass_workers(request.threads, pp_order.front()->input->chunk_size()) > 0;
  MergedArrows arrows(pp_order, draw_beside);
  // Read into the arrow blocks: pass 2 needs none of the annotation records.
  for (Rank* rank : pp_order) rank->plan->release_annotation_records();
  timer.mark("merged layout and arrow blocks");
  {
    OutputFile file(request.output);
    write_merged_document(ranks, pp_order, base_ns, arrows, request.threads, file.sink());
    file.commit();
  }
  timer.mark("pass 2 (write)");
  if (request.verify) {
    std::vector<VerifyRank> verify_ranks;
    for (const Rank* rank : pp_order)
      verify_ranks.push_back({rank->input.get(), &rank->pid_map, rank->shift.offset_us});
    verify_merged_output(verify_ranks, request.output.path);
    timer.mark("verify");
  }
  RunResult result;
  result.output_path = request.output.path;
  result.timings = timer.phases();
  result.summary_json = render_merge_summary(ranks, pp_order, arrows.result().counts,
                                             request.output.path, request.verify);
  return result;
}

}  // namespace tracecompact
