#include "writer/rank_events.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "index/index_pass.h"
#include "json/event_parser.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"
#include "writer/top_level_fields.h"

namespace tracecompact {
namespace {

// Walks the slices and annotations of the index in step with the event stream.
class PlanCursor {
 public:
  explicit PlanCursor(const CompactionPlan& plan) : plan_(plan) {}

  bool at_slice(uint64_t event_index) const {
    return slice_ < plan_.index().slices.size() && plan_.index().slice_events.test(event_index);
  }
  bool at_annotation(uint64_t event_index) const {
    return annotation_ < plan_.index().annotations.size() &&
           plan_.index().annotations[annotation_].event_index == event_index;
  }
  size_t take_slice() { return slice_++; }
  size_t take_annotation() { return annotation_++; }

 private:
  const CompactionPlan& plan_;
  size_t slice_ = 0;
  size_t annotation_ = 0;
};

// An integer written where pass 1 found an integer token.
class IntegerSplice {
 public:
  JsonOut::Replacement make(std::string_view text, ValueSpan span, int64_t value,
                            const std::string& input_name) {
    const std::string_view old = text.substr(span.at, span.length);
    if (span.at + span.length > text.size() ||
        old.find_first_not_of("-0123456789") != std::string_view::npos)
      fail_io(input_name + " changed while it was being read");
    char* end = std::to_chars(digits_, digits_ + sizeof digits_, value).ptr;
    return {span.at, span.length, std::string_view(digits_, static_cast<size_t>(end - digits_))};
  }

 private:
  char digits_[24];
};

// Rewrites tid and args.stream of a slice in place of the original tokens.
void splice_slice(JsonOut& out, std::string_view text, const SliceRecord& slice, int64_t lane_tid,
                  const std::string& input_name) {
  IntegerSplice tid, stream;
  JsonOut::Replacement parts[2] = {tid.make(text, slice.tid_span, lane_tid, input_name),
                                   stream.make(text, slice.stream_span, lane_tid, input_name)};
  if (parts[1].at < parts[0].at) std::swap(parts[0], parts[1]);
  out.raw_spliced(text, parts, 2);
}

bool is_integer_text(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

bool is_number_text(std::string_view text) {
  return !text.empty() && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9'));
}

// Merge mode without a parse: pid renumbered and ts shifted in place (plus the
// plan's tid/stream). Returns false when the event needs the full rewriter:
// metadata, flows, coalesced annotations, unusual spellings.
class MergeSplicer {
 public:
  bool write(std::string_view text, const EventEdit& edit, ValueSpan stream_span,
             const MergeEdit& merge, JsonOut& out) {
    if (edit.ts || edit.dur) return false;
    TopLevelFields fields;
    if (!locate_top_level_fields(text, fields)) return false;
    const std::string_view ph = fields.ph.found ? fields.ph.in(text) : std::string_view();
    if (ph.find('\\') != std::string_view::npos || ph == "\"M\"") return false;
    if (fields.id.found && (ph == "\"s\"" || ph == "\"t\"" || ph == "\"f\"")) return false;
    count_ = 0;
    used_ = 0;
    if (fields.pid.found && is_integer_text(fields.pid.in(text))) {
      int64_t pid = 0;
      const std::string_view token = fields.pid.in(text);
      std::from_chars(token.data(), token.data() + token.size(), pid);
      const auto mapped = merge.pid_map->find(pid);
      if (mapped == merge.pid_map->end()) return false;
      add(fields.pid, integer_text(mapped->second));
    }
    if (fields.ts.found && is_number_text(fields.ts.in(text))) {
      const std::string_view token = fields.ts.in(text);
      double ts = 0;
      std::from_chars(token.data(), token.data() + token.size(), ts);
      const double shifted = ts + merge.ts_offset;
      if (!std::isfinite(shifted)) return false;
      char* begin = digits_ + used_;
      char* end = std::to_chars(begin, digits_ + sizeof digits_, shifted).ptr;
      used_ = static_cast<size_t>(end - digits_);
      add(fields.ts, std::string_view(begin, static_cast<size_t>(end - begin)));
    }
    if (edit.tid) {
      if (!fields.tid.found) return false;
      add(fields.tid, integer_text(*edit.tid));
    }
    if (edit.stream) {
      if (!stream_span.valid()) return false;
      add(FieldSpan{stream_span.at, stream_span.length, true}, integer_text(*edit.stream));
    }
    std::sort(
        parts_, parts_ + count_,
        [](const JsonOut::Replacement& a, const JsonOut::Replacement& b) { return a.at < b.at; });
    out.raw_spliced(text, parts_, count_);
    return true;
  }

 private:
  std::string_view integer_text(int64_t value) {
    char* begin = digits_ + used_;
    char* end = std::to_chars(begin, digits_ + sizeof digits_, value).ptr;
    used_ = static_cast<size_t>(end - digits_);
    return std::string_view(begin, static_cast<size_t>(end - begin));
  }
  void add(const FieldSpan& span, std::string_view text) {
    parts_[count_++] = {span.at, span.length, text};
  }

  JsonOut::Replacement parts_[4];
  size_t count_ = 0;
  char digits_[128];
  size_t used_ = 0;
};

}  // namespace

RankWriteStats write_rank_events(const TraceInput& input, const CompactionPlan& plan,
                                 const MergeEdit* merge, JsonOut& out) {
  const TraceIndex& index = plan.index();
  RankWriteStats stats;
  auto source = input.open();
  TraceTokenizer tokenizer(*source, input.chunk_size());
  EventRewriter rewriter;
  MergeSplicer splicer;
  EventParser parser;
  PlanCursor cursor(plan);
  for (;;) {
    const auto item = tokenizer.next();
    if (item.kind == TraceTokenizer::Kind::kEnd) break;
    if (item.kind != TraceTokenizer::Kind::kEvent) continue;
    const EventOrigin origin{item.index, item.offset};
    EventEdit edit;
    ValueSpan stream_span;
    bool rewrite = merge != nullptr;
    if (cursor.at_slice(item.index)) {
      const size_t s = cursor.take_slice();
      const SliceRecord& slice = index.slices[s];
      const int64_t lane_tid = plan.lane_tid_of_slice(s);
      if (!merge && slice.tid_span.valid() && slice.stream_span.valid()) {
        splice_slice(out, item.text, slice, lane_tid, index.display_name);
        continue;
      }
      edit.tid = edit.stream = lane_tid;
      stream_span = slice.stream_span;
      rewrite = true;
    } else if (cursor.at_annotation(item.index)) {
      const size_t a = cursor.take_annotation();
      const AnnotationOutcome& outcome = plan.annotation_outcomes()[a];
      if (outcome.fate == AnnotationFate::kDropped) continue;
      const AnnotationRecord& record = index.annotations[a];
      if (outcome.tid != record.tid) edit.tid = outcome.tid;
      if (outcome.retimed) {
        edit.ts = record.ts;  // the merged interval (set by the plan)
        edit.dur = record.dur;
      }
      if (!merge && edit.tid && !edit.ts && record.tid_span.valid()) {
        IntegerSplice tid;
        const auto part = tid.make(item.text, record.tid_span, *edit.tid, index.display_name);
        out.raw_spliced(item.text, &part, 1);
        continue;
      }
      rewrite = rewrite || edit.tid || edit.ts;
    } else if (index.needs_attention(item.index)) {
      const EventFields& f = parser.parse_in_place(item.text, origin);
      const StreamKey stream{f.pid.int_value, f.tid.int_value};
      if (plan.is_old_stream(stream)) {
        if (is_thread_metadata(f)) continue;  // replaced by the lanes' own names
        if (f.cat.is("ac2g")) {
          if (f.ts.present() && !f.ts.is_number())
            fail_input("GPU flow event " + std::to_string(item.index) + " has a non-numeric ts");
          ++stats.flow_endpoints;
          if (auto lane_tid = plan.flow_lane_tid(stream, f.ts.is_number() ? f.ts.number : 0.0)) {
            edit.tid = *lane_tid;
            ++stats.flow_endpoints_mapped;
            rewrite = true;
          }
        }
      }
    }
    if (!rewrite)
      out.raw(item.text);
    else if (!merge || !splicer.write(item.text, edit, stream_span, *merge, out))
      rewriter.write(item.text, origin, edit, merge, out);
  }
  if (tokenizer.events_seen() != index.event_count ||
      tokenizer.bytes_consumed() != index.input_bytes)
    fail_io(index.display_name + " changed while it was being read");
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
  out.start_object();
  out.key("name");
  out.string("thread_name");
  out.key("ph");
  out.string("M");
  out.key("pid");
  out.integer(pid);
  out.key("tid");
  out.integer(track.tid);
  out.key("args");
  out.start_object();
  out.key("name");
  out.string(merge ? merge->name_prefix + track.name : track.name);
  out.end_object();
  out.end_object();

  out.start_object();
  out.key("name");
  out.string("thread_sort_index");
  out.key("ph");
  out.string("M");
  out.key("pid");
  out.integer(pid);
  out.key("tid");
  out.integer(track.tid);
  out.key("args");
  out.start_object();
  out.key("sort_index");
  out.unsigned_integer(track.sort_index);
  out.end_object();
  out.end_object();
}

}  // namespace

void write_plan_events(const CompactionPlan& plan, const MergeEdit* merge, JsonOut& out) {
  const double offset = merge ? merge->ts_offset : 0.0;
  for (const Span& span : plan.spans()) {
    out.start_object();
    out.key("name");
    out.string(plan.index().region_names[span.region]);
    out.key("cat");
    out.string("gpu_user_annotation");
    out.key("ph");
    out.string("X");
    out.key("pid");
    out.integer(merged_pid(merge, plan.span_pid(span)));
    out.key("tid");
    out.integer(plan.span_tid(span));
    out.key("ts");
    write_time(out, span.start + offset);
    out.key("dur");
    write_time(out, span.end - span.start);
    out.key("args");
    out.start_object();
    out.end_object();
    out.end_object();
  }
  for (const TrackName& track : plan.track_names()) write_thread_metadata(out, track, merge);
}

void write_pp_arrows(const PPArrowResult& result, const std::function<int64_t(int64_t)>& pp_rank_of,
                     JsonOut& out) {
  for (const PPArrow& arrow : result.arrows) {
    const PPName& source = result.name(arrow.source);
    const PPName& destination = result.name(arrow.destination);
    const StreamKey& source_track = result.track(arrow.source);
    const StreamKey& destination_track = result.track(arrow.destination);
    const std::string name = source.label() + " -> " + destination.label();
    const auto source_microbatch = source.microbatch_if_any();
    const auto microbatch = source_microbatch ? source_microbatch : destination.microbatch_if_any();
    for (const bool start : {true, false}) {
      const StreamKey& end = start ? source_track : destination_track;
      out.start_object();
      out.key("name");
      out.string(name);
      out.key("cat");
      out.string(arrow.category);
      out.key("ph");
      out.string(start ? "s" : "f");
      out.key("bp");
      out.string("e");
      out.key("pid");
      out.integer(end.pid);
      out.key("tid");
      out.integer(end.tid);
      out.key("ts");
      write_time(out, start ? arrow.source.start : arrow.destination_ts);
      out.key("id");
      out.unsigned_integer(arrow.id);
      out.key("args");
      out.start_object();
      out.key("source_pp_rank");
      out.integer(pp_rank_of(source_track.pid));
      out.key("destination_pp_rank");
      out.integer(pp_rank_of(destination_track.pid));
      out.key("source_stage");
      out.unsigned_integer(source.stage);
      out.key("destination_stage");
      out.unsigned_integer(destination.stage);
      out.key("source_operation");
      out.string(pp_op_name(source.op));
      out.key("destination_operation");
      out.string(pp_op_name(destination.op));
      out.key("microbatch");
      if (microbatch)
        out.unsigned_integer(*microbatch);
      else
        out.writer().Null();
      out.end_object();
      out.end_object();
    }
  }
}

}  // namespace tracecompact
