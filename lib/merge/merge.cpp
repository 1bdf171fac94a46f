#include "merge/merge.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "core/summary.h"
#include "merge/merge_layout.h"
#include "merge/merge_rank.h"
#include "merge/merge_summary.h"
#include "merge/merged_arrows.h"
#include "merge/merged_document.h"
#include "merge/rank_files.h"
#include "merge/rank_preview.h"
#include "util/helper_thread.h"
#include "util/phase_timer.h"
#include "util/spare_cores.h"
#include "util/thread_policy.h"
#include "verify/verifier.h"

namespace tracecompact {
namespace fs = std::filesystem;

namespace {

std::vector<Rank> ranks_of(const std::vector<RankFile>& files) {
  std::vector<Rank> ranks(files.size());
  const auto record_budget = std::make_shared<RecordBudget>();
  for (size_t i = 0; i < files.size(); ++i) {
    ranks[i].file = files[i];
    ranks[i].record_budget = record_budget;
  }
  return ranks;
}

void rethrow_first(const std::vector<std::exception_ptr>& errors) {
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

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
        ranks[i].index_and_plan(requested_threads, threads > 1, &spare);
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
  rethrow_first(errors);
}

std::vector<const TraceMetadata*> metadata_of(const std::vector<Rank>& ranks) {
  std::vector<const TraceMetadata*> metadata;
  for (const auto& rank : ranks) metadata.push_back(&rank.metadata);
  return metadata;
}

// spec 11 checks, each over all traces before the next, then the layout.
MergeLayout check_and_lay_out(const std::vector<Rank>& ranks) {
  const auto metadata = metadata_of(ranks);
  check_rank_metadata(metadata);
  // The merge renumbers every integer pid (spec 11); ours are 64-bit.
  for (const auto& rank : ranks)
    if (const auto& pid = rank.first_pid_beyond_int64; pid.value)
      fail_input(rank.input->display_name() + ": event " + std::to_string(pid.event) +
                 ": pid: the integer " + std::to_string(pid.value) +
                 " does not fit in 64 bits (a merge renumbers integer pids)");
  return lay_out_ranks(metadata);
}

std::vector<Rank*> place_ranks(std::vector<Rank>& ranks, const MergeLayout& layout) {
  std::vector<Rank*> pp_order;
  for (size_t i = 0; i < ranks.size(); ++i) ranks[i].place(layout.ranks[i]);
  for (size_t i : layout.pp_order) pp_order.push_back(&ranks[i]);
  return pp_order;
}

// Puts the written output in place and marks the end of `phase`. With --verify
// the finished output is read first, so that a failed check leaves no output
// behind and an existing file as it was; the caller frees what the writing
// needed before, as the check's peak then adds to it.
void put_output_in_place(OutputFile& file, const std::vector<Rank*>& pp_order, bool verify,
                         PhaseTimer& timer, const char* phase) {
  if (!verify) {
    file.commit();
    timer.mark(phase);
    return;
  }
  const std::string written = file.finish_writing();
  timer.mark(phase);
  std::vector<VerifyRank> verify_ranks;
  for (const Rank* rank : pp_order)
    verify_ranks.push_back({rank->input.get(), &rank->pid_map, rank->shift.offset_us});
  verify_merged_output(verify_ranks, written);
  file.commit();
  timer.mark("verify");
}

// What a merge hands back once its output is committed.
struct MergeWritten {
  std::vector<Rank> ranks;
  std::vector<Rank*> pp_order;
  PPArrowCounts counts;
};

// Every rank read first, then laid out and written in PP order.
MergeWritten merge_after_all_ranks(std::vector<Rank> ranks, const MergeRequest& request,
                                   PhaseTimer& timer) {
  index_ranks(ranks, request.threads);
  timer.mark("pass 1 and plans (all ranks)");
  const MergeLayout layout = check_and_lay_out(ranks);
  std::vector<Rank*> pp_order = place_ranks(ranks, layout);
  int64_t next_pid = 1;
  for (Rank* rank : pp_order) rank->number_pids(next_pid);
  const Rank& first = *pp_order.front();
  std::optional<MergedArrows> arrows(std::in_place,
                                     pass_workers(request.threads, first.input->chunk_size()) > 0);
  size_t annotations = 0;
  for (const Rank* rank : pp_order) annotations += rank->plan->pp_annotation_count();
  arrows->expect(annotations);
  // Each rank's annotation records go once they are read into the list: pass 2
  // needs none of them, and the blocks' peak must not add to theirs.
  for (Rank* rank : pp_order) {
    arrows->add_rank(*rank);
    rank->plan->release_annotation_records();
  }
  arrows->build_blocks();
  timer.mark("merged layout and arrow blocks");
  OutputFile file(request.output);
  std::optional<MergedDocument> document(std::in_place, file.sink(), pp_order, layout.base_ns,
                                         request.threads);
  document->begin();
  for (Rank* rank : pp_order) {
    document->write_rank(*rank);
    rank->release_index();
    // Drawn beside the ranks after the first: all indexes and the first rank's
    // pass-2 buffers at once are the merge's peak, which the drawing would add to.
    arrows->start_drawing();
  }
  document->finish(ranks, *arrows);
  const PPArrowCounts counts = arrows->result().counts;
  document.reset();
  arrows.reset();
  put_output_in_place(file, pp_order, request.verify, timer, "pass 2 (write)");
  return {std::move(ranks), std::move(pp_order), counts};
}

// Pass 1 of the ranks, in the order they are written, on threads of their own
// (each rank on one) while the caller writes the ranks already read. Cores
// beyond the readers (`lendable`, where there are fewer ranks than cores) are
// lent to the ranks being read while the caller waits, and taken back once
// the rank it waits for is read. Every rank is read, failed or not, so that
// the first failure in file order is the one reported.
class RankIndexers {
 public:
  RankIndexers(std::vector<Rank>& ranks, const std::vector<Rank*>& order, unsigned threads,
               unsigned requested_threads, unsigned lendable)
      : ranks_(ranks),
        order_(order),
        lendable_(lendable),
        done_(ranks.size()),
        errors_(ranks.size()) {
    for (unsigned t = 0; t < threads; ++t)
      pool_.push_back(start_helper_thread([this, requested_threads] { work(requested_threads); }));
  }
  ~RankIndexers() { join(); }
  RankIndexers(const RankIndexers&) = delete;
  RankIndexers& operator=(const RankIndexers&) = delete;

  // Waits until `rank` is read; false if it or any other rank failed.
  bool wait_for(const Rank& rank) {
    std::unique_lock lock(mutex_);
    const size_t i = position(rank);
    if (!done_[i] && !failed_) {
      waiting_for_ = i;
      lent_ = lendable_;
      spare_.give(lent_);
      changed_.wait(lock, [&] { return done_[i] || failed_; });
      if (lent_ > 0) lent_ -= spare_.take(lent_);  // after a failure: what is left
      waiting_for_.reset();
    }
    return !failed_;
  }
  // Every rank read, and none failed: a failed rank has no plan for the arrows
  // (the writer, between waiting for its rank and asking this, may meet a
  // failure that came in meanwhile; it stops at the failed rank's turn).
  bool all_read() {
    std::lock_guard lock(mutex_);
    return read_count_ == ranks_.size() && !failed_;
  }
  // Waits for every rank; rethrows the first failure in file order.
  void finish() {
    join();
    rethrow_first(errors_);
  }

 private:
  void work(unsigned requested_threads) {
    for (size_t taken = next_++; taken < order_.size(); taken = next_++) {
      Rank& rank = *order_[taken];
      std::exception_ptr error;
      try {
        rank.index_and_plan(requested_threads, true, &spare_);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      const size_t i = position(rank);
      // The writer's cores go back to it before the next rank can take them.
      if (waiting_for_ == i) lent_ -= spare_.take(lent_);
      done_[i] = true;
      ++read_count_;
      if (error) {
        errors_[i] = error;
        failed_ = true;
      }
      changed_.notify_all();
    }
  }
  size_t position(const Rank& rank) const { return static_cast<size_t>(&rank - ranks_.data()); }
  void join() {
    for (auto& thread : pool_)
      if (thread.joinable()) thread.join();
  }

  std::vector<Rank>& ranks_;
  const std::vector<Rank*>& order_;
  const unsigned lendable_;
  SpareCores spare_;
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<bool> done_;  // by file position
  std::vector<std::exception_ptr> errors_;
  size_t read_count_ = 0;
  bool failed_ = false;
  std::optional<size_t> waiting_for_;  // the rank the writer waits for
  unsigned lent_ = 0;                  // of its cores, not yet taken back
  std::vector<std::thread> pool_;      // last: its threads use the rest
};

// Ranks written in PP order as soon as each is read, while threads of their own
// read the ranks after it: the writes of early ranks overlap the reading of
// later ones. The layout is the one worked out from what was read ahead of
// pass 1 (`assumed`). Returns none when pass 1 finds another (the output is
// dropped and the caller starts over); else what it wrote is, byte for byte,
// the merge of every rank read first, faults included.
std::optional<MergeWritten> merge_while_reading(std::vector<Rank> ranks, const MergeLayout& assumed,
                                                const MergeRequest& request, PhaseTimer& timer) {
  std::vector<Rank*> pp_order = place_ranks(ranks, assumed);
  std::optional<OutputFile> file;
  std::optional<MergedDocument> document;
  std::optional<MergedArrows> arrows;
  std::exception_ptr write_error;
  {
    // Ranks read side by side, as when every rank is read first; the writer
    // competes with them for the cores once the first rank is read. (One rank
    // read at a time, one ahead of the writer, kept the cores less busy.)
    const unsigned readers = ranks_at_once(request.threads, ranks.size());
    const unsigned cores = wanted_cores(request.threads);
    RankIndexers indexers(ranks, pp_order, readers, request.threads,
                          cores > readers ? cores - readers : 0);
    try {
      file.emplace(request.output);
      int64_t next_pid = 1;
      size_t numbered = 0;  // ranks with pids numbered (and arrow input given), in PP order
      auto number_next = [&] {
        pp_order[numbered]->number_pids(next_pid);
        arrows->add_rank(*pp_order[numbered++]);
      };
      bool drawing = false;
      size_t first_gathered_beside = pp_order.size();  // the ranks added by the drawing's thread
      for (size_t k = 0; k < pp_order.size(); ++k) {
        Rank& rank = *pp_order[k];
        if (!indexers.wait_for(rank)) break;  // the output is dropped anyway
        if (!document) {
          arrows.emplace(pass_workers(request.threads, rank.input->chunk_size()) > 0);
          document.emplace(file->sink(), pp_order, assumed.base_ns, request.threads);
          document->begin();
        }
        if (numbered == k) number_next();
        // Every rank read: the arrows' input is complete, and the ranks not
        // added yet are added and the arrows drawn beside the writing.
        if (!drawing && indexers.all_read()) {
          first_gathered_beside = numbered;
          std::vector<const Rank*> remaining;
          for (; numbered < pp_order.size(); ++numbered) {
            pp_order[numbered]->number_pids(next_pid);
            remaining.push_back(pp_order[numbered]);
          }
          arrows->add_remaining_and_draw(std::move(remaining));
          drawing = true;
        }
        const bool added = k < first_gathered_beside || arrows->gathered();
        if (added) rank.plan->release_annotation_records();
        document->write_rank(rank);
        if (!added) arrows->wait_gathered();
        rank.release_index();
      }
    } catch (...) {
      write_error = std::current_exception();
    }
    indexers.finish();  // a failed pass 1 comes before what the writing ran into
  }
  const MergeLayout found = check_and_lay_out(ranks);
  if (!found.same_as(assumed)) return std::nullopt;
  if (write_error) std::rethrow_exception(write_error);
  timer.mark("pass 1, plans and pass 2 (ranks written while later ones are read)");
  document->finish(ranks, *arrows);
  const PPArrowCounts counts = arrows->result().counts;
  document.reset();
  arrows.reset();
  put_output_in_place(*file, pp_order, request.verify, timer, "arrows and the end of the document");
  return MergeWritten{std::move(ranks), std::move(pp_order), counts};
}

// The layout from every rank's metadata read ahead of pass 1, if all have it.
std::optional<MergeLayout> assumed_layout(std::vector<Rank>& ranks) {
  std::vector<TraceMetadata> previews;
  for (Rank& rank : ranks) {
    try {
      rank.open_input();
    } catch (const std::exception&) {
      return std::nullopt;  // reported by pass 1, in file order
    }
    auto preview = preview_rank_metadata(*rank.input);
    if (!preview) return std::nullopt;
    previews.push_back(std::move(*preview));
  }
  std::vector<const TraceMetadata*> metadata;
  for (const auto& preview : previews) metadata.push_back(&preview);
  try {
    return lay_out_ranks(metadata);
  } catch (const std::exception&) {
    return std::nullopt;
  }
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
  const std::vector<RankFile> files = find_rank_files(merge_directory(request.input), selection);
  std::vector<Rank> ranks = ranks_of(files);
  std::optional<MergeWritten> pipelined;
  // Only a file can be dropped and written again if the layout read ahead was
  // wrong: not stdout, nor a device or pipe.
  if (request.pipelined && request.output.path != "-" && !written_in_place(request.output.path) &&
      ranks_at_once(request.threads, ranks.size()) > 1) {
    if (const auto assumed = assumed_layout(ranks)) {
      if (request.after_preview) request.after_preview();
      pipelined = merge_while_reading(std::move(ranks), *assumed, request, timer);
      if (!pipelined) ranks = ranks_of(files);  // start over
    }
  }
  MergeWritten written =
      pipelined ? std::move(*pipelined) : merge_after_all_ranks(std::move(ranks), request, timer);
  RunResult result;
  result.output_path = request.output.path;
  result.timings = timer.phases();
  result.summary_json = render_merge_summary(written.ranks, written.pp_order, written.counts,
                                             request.output.path, request.verify);
  return result;
}

}  // namespace tracecompact
