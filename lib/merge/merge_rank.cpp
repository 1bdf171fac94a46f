#include "merge/merge_rank.h"

#include <algorithm>
#include <utility>

#include "index/index_pass.h"
#include "util/spare_cores.h"
#include "util/thread_policy.h"

namespace tracecompact {

void Rank::open_input() {
  if (!input) input = std::make_unique<TraceInput>(TraceInput::open_path(file.path));
}

void Rank::index_and_plan(unsigned requested_threads, bool side_by_side, SpareCores* spare) {
  for_rank(*this, [&] {
    open_input();
    const unsigned workers =
        side_by_side ? 0 : pass_workers(requested_threads, input->chunk_size());
    SpareCores* rank_spare = side_by_side && worth_workers(input->chunk_size()) ? spare : nullptr;
    index = build_index(*input, workers, rank_spare, PerEventRecords::kForMerge, record_budget,
                        EventChecks::kMergeRank);
    metadata = read_trace_metadata(index);
    first_pid_beyond_int64 = index.first_pid_beyond_int64;
    BorrowedCores plan_helper(rank_spare);
    plan = std::make_unique<CompactionPlan>(index, workers > 1 || plan_helper.take_up_to(1) > 0);
  });
}

void Rank::place(const RankPlacement& placement) {
  global_rank = placement.global_rank;
  pp_rank = placement.pp_rank;
  shift = placement.shift;
}

void Rank::number_pids(int64_t& next_pid) {
  for (const auto& stream : index.streams) gpu_pids.insert(stream.pid);  // slices' streams
  ordered_pids = index.int_pids;
  std::stable_sort(ordered_pids.begin(), ordered_pids.end(), [&](int64_t a, int64_t b) {
    return std::make_pair(gpu_pids.count(a) > 0, a) < std::make_pair(gpu_pids.count(b) > 0, b);
  });
  for (int64_t pid : ordered_pids) pid_map[pid] = next_pid++;
}

void Rank::release_index() {
  counts = plan->counts();
  plan.reset();
  index = TraceIndex();
}

Error naming_rank_file(const Rank& rank, const Error& error) {
  const std::string message = error.what();
  // I/O errors name their own file, which may be the output's.
  if (error.kind() != ErrorKind::kInvalidInput || message.find(rank.file.path) != std::string::npos)
    return error;
  return Error(error.kind(), message + in_file(rank.file.path));
}

}  // namespace tracecompact
