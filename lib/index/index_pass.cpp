#include "index/index_pass.h"

#include <malloc.h>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>

#include "index/event_batches.h"
#include "index/event_stretches.h"
#include "index/identity_numbering.h"
#include "json/event_parser.h"
#include "json/number_format.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"
#include "util/growable_array.h"
#include "util/hash128.h"
#include "util/sanitizers.h"
#include "util/spare_cores.h"
#include "util/thread_policy.h"
#include "util/warm_chunks.h"

namespace tracecompact {
namespace {

// Appends event `event_index`'s record while the index's grant allows: a block
// of records at a time, the first refusal ending them (the events after are
// scanned for in pass 2). The slices indexed are credited at every block, taken
// or not, so that the ranks read later have their allowance. Returns whether
// the record was kept.
template <typename T>
bool keep_record(TraceIndex& index, ChunkedVector<T>& records, uint64_t event_index, T record) {
  const bool kept_so_far = records.size() == event_index;
  if (event_index % TraceIndex::kRecordBlock == 0) {
    index.record_grant.credit_slices(index.slices.size());
    if (kept_so_far && !index.record_grant.take(TraceIndex::kRecordBlock * sizeof(T))) return false;
  }
  if (kept_so_far) records.push_back(record);
  return kept_so_far;
}

// Builds the index from digests, in event order, on one thread.
class IndexBuilder {
 public:
  // `sites` is closed at the first splice site not kept (see SpliceSiteGate).
  IndexBuilder(TraceIndex& index, PerEventRecords records, SpliceSiteGate& sites)
      : index_(index), records_(records), sites_(sites) {}

  void add(const EventDigest& d, const std::string& arena, uint64_t event_index) {
    if (d.has_int_tid) index_.max_int_tid = std::max(index_.max_int_tid.value_or(d.tid), d.tid);
    if (d.tid_beyond_int64)
      index_.max_tid_beyond_int64 = std::max(index_.max_tid_beyond_int64, d.tid_beyond_int64);
    if (d.pid_beyond_int64 && !index_.first_pid_beyond_int64.value)
      index_.first_pid_beyond_int64 = {event_index, d.pid_beyond_int64};
    if (d.has_int_pid && (pids_.empty() || d.pid != last_pid_)) {
      pids_.insert(d.pid);  // most events repeat the previous pid
      last_pid_ = d.pid;
    }
    if (d.named_launch) ++index_.graph_launches;
    if (records_ == PerEventRecords::kForMerge && sites_.open() &&
        !keep_record(index_, index_.splice_sites, event_index, d.splice_site))
      sites_.close();
    // Where no site is kept, pass 2 may find pid and ts by their keys.
    if (d.plain_pid_ts &&
        (index_.splice_sites.size() <= event_index || d.splice_site == kNoSpliceSite))
      index_.plain_pid_ts.mark(event_index);
    const std::string_view text(arena.data() + d.text_at, d.text_length);
    switch (d.kind) {
      case EventDigest::kSlice: {
        SliceRecord slice = d.slice;
        slice.stream = stream_id({d.pid, d.tid});
        index_.slice_regions.push_back(d.has_text ? index_.region_names.intern(text)
                                                  : StringTable::kNone);
        index_.slice_events.mark(event_index);
        index_.slices.push_back(slice);
        break;
      }
      case EventDigest::kAnnotation: {
        AnnotationRecord record = d.annotation;
        record.track = annotation_track({d.pid, d.tid});
        record.name = d.has_text ? index_.annotation_names.intern(text) : StringTable::kNone;
        // Provisional: finish() numbers identities densely.
        record.identity =
            d.has_identity ? identities_.provisional_id(d.identity) : StringTable::kNone;
        index_.annotation_events.mark(event_index);
        index_.annotations.push_back(record);
        break;
      }
      case EventDigest::kAttention:
        index_.attention.mark(event_index);
        break;
      case EventDigest::kOther:
        break;
    }
    if (d.lane_role) index_.lane_names.push_back({d.pid, d.tid, d.lane_role});
  }

  // Adds a digested batch; rethrows its failure after the events before it.
  void add(const EventBatch& batch) {
    for (size_t i = 0; i < batch.digests.size(); ++i)
      add(batch.digests[i], batch.arena, batch.events[i].index);
    if (batch.error) std::rethrow_exception(batch.error);
  }

  void finish() {
    index_.int_pids.assign(pids_.begin(), pids_.end());
    std::sort(index_.int_pids.begin(), index_.int_pids.end());
    number_identities();
    pids_ = {};
    annotation_track_ids_ = {};
  }

 private:
  uint32_t stream_id(StreamKey key) {
    return intern_stream_key(index_.stream_ids, index_.streams, key);
  }

  uint32_t annotation_track(StreamKey key) {
    if (last_track_ < index_.annotation_tracks.size() &&
        index_.annotation_tracks[last_track_] == key)
      return last_track_;  // annotations come in runs on one track
    return last_track_ = intern_stream_key(annotation_track_ids_, index_.annotation_tracks, key);
  }

  TraceIndex& index_;
  const PerEventRecords records_;
  SpliceSiteGate& sites_;
  StreamKeyIds annotation_track_ids_;
  uint32_t last_track_ = UINT32_MAX;
  std::unordered_set<int64_t> pids_;
  int64_t last_pid_ = 0;
  // Identities are compared by a 128-bit digest of their canonical text (see
  // json/canonical_digest.h): the texts themselves would cost more than the whole index.
  IdentityNumbering identities_;

  void number_identities() {
    const std::vector<uint32_t> final_ids = identities_.finish();
    for (size_t i = 0; i < index_.annotations.size(); ++i) {
      uint32_t& identity = index_.annotations[i].identity;
      if (identity != StringTable::kNone) identity = final_ids[identity];
    }
  }
};

void add_top_level(TraceIndex& index, std::string_view key, std::string_view text,
                   EventParser& parser) {
  parser.validate_value(text, key);
  for (auto& existing : index.top_level) {
    if (existing.key != key) continue;
    if (key == "baseTimeNanoseconds" || key == "distributedInfo")
      fail_input("the trace repeats the top-level key \"" + std::string(key) + "\"");
    existing.text.assign(text);  // like a JSON object read by Python: the last value wins
    return;
  }
  index.top_level.push_back({std::string(key), std::string(text)});
}

}  // namespace

bool is_measured_slice(const EventFields& f) {
  if (f.cat.is("kernel") || f.cat.is("Kernel") || f.cat.is("gpu_memcpy") || f.cat.is("gpu_memset"))
    return true;
  // spec 12: a stream synchronisation event is a slice of its stream.
  return f.cat.is("cuda_sync") && f.tid.is_int() && f.tid.int_value >= 0 &&
         f.args_kind == JsonKind::kObject && f.args_stream.is_int() &&
         f.args_stream.int_value == f.tid.int_value;
}

bool is_thread_metadata(const EventFields& f) {
  return f.ph.is("M") && (f.name.is("thread_name") || f.name.is("thread_sort_index"));
}

bool is_coalescing_candidate(const EventFields& f) {
  return f.ph.is("X") && f.ts.is_number() && f.dur.is_number() && f.dur.number >= 0;
}

uint8_t lane_role(std::string_view thread_name) {
  const std::string_view tail = lane_name_tail(thread_name);
  if (tail == "Compute annotations" || tail == "Compute 1 annotations") return kMainComputeLane;
  if (tail == "NCCL all-gather annotations" || tail == "NCCL all-gather 1 annotations" ||
      tail == "NCCL all-gather 2 annotations")
    return kUnshardLane;
  return 0;
}

std::string_view lane_name_tail(std::string_view name) {
  const size_t bar = name.rfind(" | ");
  return bar == std::string_view::npos ? name : name.substr(bar + 3);
}

namespace {

// Returns the heap's free pages to the system. Not under ASan or TSan: their
// allocators stand in for glibc's, whose malloc_trim then walks arenas they
// manage behind its back (TSan crashed in it when two ranks' pass 1 ended together).
void trim_heap() {
  if constexpr (!kSanitizerAllocator) malloc_trim(0);
}

// Events between two looks for spare cores (an atomic load when there are none).
constexpr uint64_t kSpareCoreCheckInterval = 1024;

// What pass 1 notes of every event's place: segment starts for pass 2 and,
// for a merge, the event's length.
void note_event_place(TraceIndex& index, PerEventRecords records, uint64_t event_index,
                      uint64_t offset, uint64_t length) {
  if (index.segment_starts.empty() ||
      offset - index.segment_starts.back().offset >= TraceIndex::kSegmentBytes)
    index.segment_starts.push_back({offset, event_index});
  index.events_end = offset + length;
  if (records != PerEventRecords::kNone)
    keep_record(index, index.event_lengths, event_index,
                length <= UINT16_MAX ? static_cast<uint16_t>(length) : TraceIndex::kLongEvent);
}

void index_events(const TraceInput& input, unsigned workers, SpareCores* spare,
                  PerEventRecords records, std::shared_ptr<RecordBudget> budget, EventChecks checks,
                  TraceIndex& index) {
  index.display_name = input.display_name();
  index.record_grant = RecordGrant(std::move(budget));
  std::unique_ptr<ByteSource> source = input.open();
  std::optional<TraceTokenizer> tokenizer(std::in_place, *source, input.chunk_size());
  SpliceSiteGate sites;
  const DigestSetup setup{checks, records, &sites};
  IndexBuilder builder(index, records, sites);
  EventParser top_level_parser;
  // Without workers the caller digests each event where the tokenizer holds it
  // (followed by readable slack, as simdjson's padding needs): no copy.
  EventDigester caller_digester(setup);
  std::string caller_arena;
  // Declared before the batches, so that their threads stop before the cores go back.
  BorrowedCores helper_cores(workers == 0 ? spare : nullptr);
  std::optional<EventBatches> batches;
  // With parser threads this thread is the one they wait for, and the index it
  // grows would have it clear fresh pages; without, the cores are busy anyway.
  std::optional<WarmChunkSupply> warm_chunks;
  auto start_workers = [&](unsigned count) {
    batches.emplace(count, setup);
    if (!warm_chunks) warm_chunks.emplace();
  };
  // A plain input's events are read in stretches by the workers themselves
  // (index/event_stretches.h); the tokenizer takes over where they stop.
  auto read_stretches = [&] {
    if (!warm_chunks) warm_chunks.emplace();
    const TraceTokenizer::ResumePoint resume =
        read_in_stretches(input, tokenizer->bytes_consumed(), workers, setup,
                          [&](const StretchBatch& batch, uint64_t first_index) {
                            for (size_t i = 0; i < batch.digests.size(); ++i) {
                              const uint64_t event_index = first_index + i;
                              note_event_place(index, records, event_index, batch.places[i].offset,
                                               batch.places[i].length);
                              builder.add(batch.digests[i], batch.arena, event_index);
                            }
                          });
    std::unique_ptr<ByteSource> resumed = input.open_at(resume.offset);
    tokenizer.emplace(*resumed, input.chunk_size(), resume);
    source = std::move(resumed);
  };
  // From here on the events go through batches, in order, as if from the start.
  auto take_spare_cores = [&] {
    if (helper_cores.take_up_to(kMaxPassWorkers - 1) > 0)
      start_workers(helper_cores.count() + 1);  // one per core, this thread's included
  };
  auto add_batch = [&](const EventBatch& batch) { builder.add(batch); };
  auto take_event = [&](const TraceTokenizer::Item& item) {
    if (!batches && workers > 0) start_workers(workers);
    if (!batches) {
      caller_arena.clear();
      builder.add(caller_digester.digest(item.text, item.index, item.offset, caller_arena),
                  caller_arena, item.index);
      return;
    }
    batches->put(
        [&](EventBatch& batch) { return batch.events.add(item.text, item.index, item.offset); },
        add_batch);
  };
  // Everything read so far goes into the index before anything that follows is
  // judged, so that of several faults the first in file order is reported.
  auto drain = [&] {
    if (batches) batches->drain(add_batch);
  };
  for (;;) {
    TraceTokenizer::Item item;
    try {
      item = tokenizer->next();
    } catch (...) {
      drain();  // an earlier event's fault wins over the tokenizer's
      throw;
    }
    if (item.kind == TraceTokenizer::Kind::kEnd) break;
    switch (item.kind) {
      case TraceTokenizer::Kind::kTopLevelValue:
        drain();
        add_top_level(index, item.key, item.text, top_level_parser);
        break;
      case TraceTokenizer::Kind::kEventsBegin:
        index.has_events = true;
        index.events_key_position = index.top_level.size();
        if (workers > 0 && !input.is_gzip()) read_stretches();
        break;
      case TraceTokenizer::Kind::kEvent:
        if (item.index >= TraceIndex::kMaxEvents) {
          drain();
          fail_input("the trace has more than " + std::to_string(TraceIndex::kMaxEvents) +
                     " events");
        }
        note_event_place(index, records, item.index, item.offset, item.text.size());
        if (!batches && item.index % kSpareCoreCheckInterval == 0) take_spare_cores();
        take_event(item);
        break;
      case TraceTokenizer::Kind::kEnd:
        break;
    }
  }
  drain();
  if (!index.has_events) fail_input("traceEvents must be a list");
  index.event_count = tokenizer->events_seen();
  index.input_bytes = tokenizer->bytes_consumed();
  builder.finish();
  index.record_grant.credit_slices(index.slices.size());
  if (index.slices.empty()) fail_input("trace contains no GPU kernel/memcpy/memset slices");
}

}  // namespace

TraceIndex build_index(const TraceInput& input, unsigned workers, SpareCores* spare,
                       PerEventRecords records, std::shared_ptr<RecordBudget> record_budget,
                       EventChecks checks) {
  TraceIndex index;
  index_events(input, workers, spare, records, std::move(record_budget), checks, index);
  // Pass 1 freed its parsers', batches' and tokenizer's buffers; give the pages
  // back rather than carry them through the plan, the peak of a run.
  trim_heap();
  return index;
}

}  // namespace tracecompact
