#include "writer/rank_events.h"

#include <memory>
#include <optional>

#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"
#include "writer/event_text.h"
#include "writer/metadata_event.h"
#include "writer/parallel_ranges.h"
#include "writer/render_batches.h"

namespace tracecompact {
namespace {

// Every event rendered on the calling thread, in order.
RankWriteStats render_in_order(TraceTokenizer& tokenizer, const CompactionPlan& plan,
                               const MergeEdit* merge, FlowIdRenumberer& flow_ids, JsonOut& out) {
  RankWriteStats stats;
  NumberingFlowIdWriter id_writer(flow_ids);
  EventRenderer renderer(plan, merge, &id_writer);
  PlanCursor cursor(plan);
  for (;;) {
    const auto item = tokenizer.next();
    if (item.kind == TraceTokenizer::Kind::kEnd) break;
    if (item.kind != TraceTokenizer::Kind::kEvent) continue;
    renderer.render(item.text, {item.index, item.offset}, cursor.next(item.index), out, stats);
  }
  return stats;
}

// Where the batches' segments come from: a plain input's are only located here
// and read by the worker that renders them (the copy runs beside the others,
// into the cache of the core that scans it); gzip is inflated in order here.
class SegmentFeed {
 public:
  SegmentFeed(const TraceInput& input, const TraceIndex& index)
      : index_(index), random_access_(input.open_random_access()) {
    if (!random_access_) {
      source_ = input.open();
      reader_.emplace(*source_, index);
    }
  }
  // The next segment into `batch`; false after the last, once the input is
  // found as long as pass 1 read it.
  bool next(RenderBatch& batch) {
    if (reader_) return reader_->next(batch.segment);
    if (!locate_segment(index_, next_segment_++, batch.segment)) {
      check_input_length(*random_access_, index_);
      return false;
    }
    batch.read_from = random_access_.get();
    return true;
  }

 private:
  const TraceIndex& index_;
  std::unique_ptr<RandomAccessInput> random_access_;
  std::unique_ptr<ByteSource> source_;
  std::optional<SegmentReader> reader_;
  size_t next_segment_ = 0;
};

// Events rendered on `workers` threads a segment at a time, appended in order.
RankWriteStats render_in_segments(const TraceInput& input, const CompactionPlan& plan,
                                  const MergeEdit* merge, unsigned workers,
                                  FlowIdRenumberer& flow_ids, JsonOut& out) {
  RankWriteStats stats;
  SegmentFeed feed(input, plan.index());  // outlives the workers that read from it
  RenderBatches batches(workers, plan, merge);
  const size_t id_width = flow_id_width(plan, merge);
  PlanCursor cursor(plan);
  auto append_batch = [&](RenderBatch& batch) {
    append_rendered(batch, flow_ids, id_width, plan.index().display_name, out);
    stats += batch.stats;
  };
  // Everything before a fault is rendered first, so that of several faults the
  // first in file order is reported.
  auto drain = [&] { batches.drain(append_batch); };
  bool more = true;
  auto read_segment = [&](RenderBatch& batch) {
    if (!batch.empty()) return false;  // one segment per batch
    try {
      more = feed.next(batch);
    } catch (...) {
      drain();
      throw;
    }
    const EventSegment& segment = batch.segment;
    batch.actions.resize(segment.event_count);
    for (uint64_t k = 0; k < segment.event_count; ++k)
      batch.actions[k] = cursor.next(segment.first_index + k);
    return true;
  };
  while (more) batches.put(read_segment, append_batch);
  drain();
  return stats;
}

}  // namespace

RankWriteStats write_rank_events(const TraceInput& input, const CompactionPlan& plan,
                                 const MergeEdit* merge, unsigned workers, JsonOut& out) {
  const TraceIndex& index = plan.index();
  FlowIdRenumberer flow_ids(merge ? merge->first_flow_id : 0);
  RankWriteStats stats;
  if (workers == 0) {
    auto source = input.open();
    TraceTokenizer tokenizer(*source, input.chunk_size());
    stats = render_in_order(tokenizer, plan, merge, flow_ids, out);
    if (tokenizer.events_seen() != index.event_count ||
        tokenizer.bytes_consumed() != index.input_bytes)
      fail_io(index.display_name + " changed while it was being read");
  } else {
    stats = render_in_segments(input, plan, merge, workers, flow_ids, out);
  }
  if (stats.flow_endpoints_mapped != stats.flow_endpoints)
    fail_input("mapped " + std::to_string(stats.flow_endpoints_mapped) + "/" +
               std::to_string(stats.flow_endpoints) + " GPU ac2g flow endpoints");
  return stats;
}

namespace {

int64_t merged_pid(const MergeEdit* merge, int64_t pid) {
  return merge ? merge->pid_map->at(pid) : pid;
}

void write_thread_metadata(JsonOut& out, const TrackName& track, const MergeEdit* merge) {
  const int64_t pid = merged_pid(merge, track.pid);
  write_metadata_event(out, "thread_name", pid, track.tid, "name", [&](JsonOut& o) {
    o.string(merge ? merge->name_prefix + track.name : track.name);
  });
  write_metadata_event(out, "thread_sort_index", pid, track.tid, "sort_index",
                       [&](JsonOut& o) { o.unsigned_integer(track.sort_index); });
}

// Items per batch when rendered on workers: about 512 KB of output, like a
// segment of input events (the batches' buffers circulate through the sink's
// queue, so their size is paid many times over in memory).
constexpr size_t kSpansPerBatch = 2048;  // ~220 bytes each
constexpr size_t kArrowsPerBatch = 512;  // two events, ~900 bytes

void write_span(const CompactionPlan& plan, const Span& span, const MergeEdit* merge,
                const std::vector<std::string>& quoted_regions, JsonOut& out) {
  out.begin_raw_value();
  EventText text(out.stream());
  text.raw("{\"name\":")
      .raw(quoted_regions[span.region])
      .raw(",\"cat\":\"gpu_user_annotation\",\"ph\":\"X\",\"pid\":")
      .integer(merged_pid(merge, plan.span_pid(span)))
      .raw(",\"tid\":")
      .integer(plan.span_tid(span))
      .raw(",\"ts\":")
      .time(span.start + (merge ? merge->ts_shift.offset_us : 0.0))
      .raw(",\"dur\":")
      .time(span.end - span.start)
      .raw(",\"args\":{}}");
}

// What every arrow of a drawing repeats, worked out once per name and per
// track: a large merge draws over half a million arrows from a few thousand
// names and a few dozen tracks.
struct ArrowParts {
  ArrowParts(const PPArrowResult& result, const std::function<int64_t(int64_t)>& pp_rank_of) {
    for (const PPName& name : result.tables.names) labels.push_back(name.label());
    for (const StreamKey& track : result.tables.tracks)
      track_pp_ranks.push_back(pp_rank_of(track.pid));
  }
  std::vector<std::string> labels;      // per name: "<stage><op>[<microbatch>]"
  std::vector<int64_t> track_pp_ranks;  // per track
};

void write_arrow(const PPArrowResult& result, const ArrowParts& parts, const PPArrow& arrow,
                 JsonOut& out) {
  const PPName& source = result.name(arrow.source);
  const PPName& destination = result.name(arrow.destination);
  const StreamKey& source_track = result.track(arrow.source);
  const StreamKey& destination_track = result.track(arrow.destination);
  const auto source_microbatch = source.microbatch_if_any();
  const auto microbatch = source_microbatch ? source_microbatch : destination.microbatch_if_any();
  for (const bool start : {true, false}) {
    const StreamKey& end = start ? source_track : destination_track;
    out.begin_raw_value();
    EventText text(out.stream());
    // Labels are digits and an operation's capitals and '_': nothing to escape.
    text.raw("{\"name\":\"")
        .raw(parts.labels[arrow.source.name])
        .raw(" -> ")
        .raw(parts.labels[arrow.destination.name])
        .raw("\",\"cat\":")
        .plain_string(arrow.category)
        .raw(start ? std::string_view(",\"ph\":\"s\",\"bp\":\"e\",\"pid\":")
                   : std::string_view(",\"ph\":\"f\",\"bp\":\"e\",\"pid\":"))
        .integer(end.pid)
        .raw(",\"tid\":")
        .integer(end.tid)
        .raw(",\"ts\":")
        .time(start ? arrow.source.start : arrow.destination_ts)
        .raw(",\"id\":")
        .unsigned_integer(arrow.id)
        .raw(",\"args\":{\"source_pp_rank\":")
        .integer(parts.track_pp_ranks[arrow.source.track])
        .raw(",\"destination_pp_rank\":")
        .integer(parts.track_pp_ranks[arrow.destination.track])
        .raw(",\"source_stage\":")
        .unsigned_integer(source.stage)
        .raw(",\"destination_stage\":")
        .unsigned_integer(destination.stage)
        .raw(",\"source_operation\":")
        .plain_string(pp_op_name(source.op))
        .raw(",\"destination_operation\":")
        .plain_string(pp_op_name(destination.op))
        .raw(",\"microbatch\":");
    if (microbatch)
      text.unsigned_integer(*microbatch);
    else
      text.raw("null");
    text.raw("}}");
  }
}

}  // namespace

void write_plan_events(const CompactionPlan& plan, const MergeEdit* merge, unsigned workers,
                       JsonOut& out) {
  const auto& spans = plan.spans();
  // Each region name quoted and escaped once, not once per span.
  const StringTable& regions = plan.index().region_names;
  std::vector<std::string> quoted_regions(regions.size());
  for (uint32_t r = 0; r < regions.size(); ++r)
    EventText::append_quoted(regions[r], quoted_regions[r]);
  render_ranges(
      workers, spans.size(), kSpansPerBatch,
      [&](size_t i, JsonOut& into) { write_span(plan, spans[i], merge, quoted_regions, into); },
      out);
  for (const TrackName& track : plan.track_names()) write_thread_metadata(out, track, merge);
}

void write_pp_arrows(const PPArrowResult& result, const std::function<int64_t(int64_t)>& pp_rank_of,
                     unsigned workers, JsonOut& out) {
  const ArrowParts parts(result, pp_rank_of);
  render_ranges(
      workers, result.arrows.size(), kArrowsPerBatch,
      [&](size_t i, JsonOut& into) { write_arrow(result, parts, result.arrows[i], into); }, out);
}

}  // namespace tracecompact
