// One rank of a merge as it goes through the run: its input, its pass 1 and
// plan, where the layout puts it, and its pids renumbered.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "index/trace_index.h"
#include "index/trace_metadata.h"
#include "merge/merge_layout.h"
#include "merge/rank_files.h"
#include "plan/compaction_plan.h"
#include "source/trace_input.h"
#include "tracecompact/error.h"

namespace tracecompact {

class SpareCores;

struct Rank {
  RankFile file;
  std::shared_ptr<RecordBudget> record_budget;  // the merge's, shared by its ranks
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
  CompactionCounts counts;                            // the plan's, kept once the plan is gone
  TraceIndex::PidBeyondInt64 first_pid_beyond_int64;  // the index's, kept with it gone

  // Opens the rank's file, once.
  void open_input();

  // Pass 1 and the plan. `side_by_side`: other ranks are read at the same time
  // (this one on the calling thread, taking cores from `spare` if given); else
  // it parses on the pass's workers.
  void index_and_plan(unsigned requested_threads, bool side_by_side, SpareCores* spare);
  // Where the layout puts it.
  void place(const RankPlacement& placement);
  // Its integer pids, non-GPU first, numbered on from `next_pid` (spec 11);
  // the ranks before it in PP order have theirs.
  void number_pids(int64_t& next_pid);
  // Once the rank is written, its index and plan go: the ranks after it are
  // written with less memory held, and the arrows are drawn in what they free.
  void release_index();
};

// `error` naming the rank's file, as " (in <path>)" after its message, if it is
// about the input and does not name the file already (gzip errors do; I/O
// errors keep theirs, which may be the output's). Among several ranks, "GPU
// slice 3 lacks pid/tid/ts/dur/stream" alone does not say where.
Error naming_rank_file(const Rank& rank, const Error& error);

// Runs `step` for `rank`; an Error it throws comes out naming the rank's file.
template <typename Step>
void for_rank(const Rank& rank, Step&& step) {
  try {
    step();
  } catch (const Error& error) {
    throw naming_rank_file(rank, error);
  }
}

}  // namespace tracecompact
