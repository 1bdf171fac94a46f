#include "writer/event_renderer.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "index/index_pass.h"
#include "json/number_format.h"
#include "tracecompact/error.h"
#include "writer/top_level_fields.h"

namespace tracecompact {

EventAction PlanCursor::next(uint64_t event_index) {
  if (slice_ < index_.slices.size() && index_.slice_events.test(event_index))
    return {EventAction::Kind::kSlice, slice_++};
  if (annotation_ < index_.annotations.size() &&
      index_.annotations[annotation_].event_index == event_index)
    return {EventAction::Kind::kAnnotation, annotation_++};
  if (index_.needs_attention(event_index)) return {EventAction::Kind::kInspect, 0};
  return {};
}

namespace {

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

}  // namespace

bool MergeSplicer::write(std::string_view text, const EventEdit& edit, ValueSpan stream_span,
                         const MergeEdit& merge, FlowIdWriter& flow_ids, JsonOut& out) {
  if (edit.ts || edit.dur) return false;
  TopLevelFields fields;
  if (!locate_top_level_fields(text, fields, edit.tid.has_value())) return false;
  const std::string_view ph = fields.ph.found ? fields.ph.in(text) : std::string_view();
  if (ph.find('\\') != std::string_view::npos || ph == "\"M\"") return false;
  count_ = 0;
  used_ = 0;
  if (fields.id.found && is_flow_phase_token(ph)) {
    const std::string_view id = fields.id.in(text);
    if (!FlowIdRenumberer::is_plain_integer(id)) return false;
    flow_id_.assign(id);
    add(fields.id.at, fields.id.length, {}, true);
  }
  if (fields.pid.found && is_integer_text(fields.pid.in(text))) {
    int64_t pid = 0;
    const std::string_view token = fields.pid.in(text);
    const auto parsed = std::from_chars(token.data(), token.data() + token.size(), pid);
    if (parsed.ec != std::errc() || parsed.ptr != token.data() + token.size())
      return false;  // beyond int64: the full rewriter keeps such a pid as it is
    if (!last_pid_ || last_pid_->first != pid) {  // most events repeat the previous pid
      const auto mapped = merge.pid_map->find(pid);
      if (mapped == merge.pid_map->end()) return false;
      last_pid_ = *mapped;
    }
    add(fields.pid.at, fields.pid.length, integer_text(last_pid_->second));
  }
  if (fields.ts.found && is_number_text(fields.ts.in(text))) {
    const double shifted = read_number_token(fields.ts.in(text)) + merge.ts_offset;
    if (!std::isfinite(shifted)) return false;
    char* begin = digits_ + used_;
    char* end = write_round_trip(shifted, begin, digits_ + sizeof digits_);
    used_ = static_cast<size_t>(end - digits_);
    add(fields.ts.at, fields.ts.length, std::string_view(begin, static_cast<size_t>(end - begin)));
  }
  if (edit.tid) {
    if (!fields.tid.found) return false;
    add(fields.tid.at, fields.tid.length, integer_text(*edit.tid));
  }
  if (edit.stream) {
    if (!stream_span.valid()) return false;
    add(stream_span.at, stream_span.length, integer_text(*edit.stream));
  }
  std::sort(parts_, parts_ + count_, [](const Part& a, const Part& b) { return a.at < b.at; });
  out.begin_raw_value();
  OutputStream& stream = out.stream();
  size_t copied = 0;
  for (size_t i = 0; i < count_; ++i) {
    stream.write(text.data() + copied, parts_[i].at - copied);
    if (parts_[i].flow_id)
      flow_ids.put(flow_id_, stream);
    else
      stream.write(parts_[i].text.data(), parts_[i].text.size());
    copied = parts_[i].at + parts_[i].length;
  }
  stream.write(text.data() + copied, text.size() - copied);
  return true;
}

std::string_view MergeSplicer::integer_text(int64_t value) {
  char* begin = digits_ + used_;
  char* end = std::to_chars(begin, digits_ + sizeof digits_, value).ptr;
  used_ = static_cast<size_t>(end - digits_);
  return std::string_view(begin, static_cast<size_t>(end - begin));
}

void EventRenderer::render(std::string_view text, const EventOrigin& origin, EventAction action,
                           JsonOut& out, RankWriteStats& stats) {
  const TraceIndex& index = plan_.index();
  EventEdit edit;
  ValueSpan stream_span;
  bool rewrite = merge_ != nullptr;
  switch (action.kind) {
    case EventAction::Kind::kSlice: {
      const SliceRecord& slice = index.slices[action.record];
      const int64_t lane_tid = plan_.lane_tid_of_slice(action.record);
      if (!merge_ && slice.tid_span.valid() && slice.stream_span.valid()) {
        splice_slice(out, text, slice, lane_tid, index.display_name);
        return;
      }
      edit.tid = edit.stream = lane_tid;
      stream_span = slice.stream_span;
      rewrite = true;
      break;
    }
    case EventAction::Kind::kAnnotation: {
      const AnnotationOutcome& outcome = plan_.annotation_outcomes()[action.record];
      if (outcome.fate == AnnotationFate::kDropped) return;
      const AnnotationRecord& record = index.annotations[action.record];
      if (outcome.tid != record.tid) edit.tid = outcome.tid;
      if (outcome.retimed) {
        edit.ts = record.ts;  // the merged interval (set by the plan)
        edit.dur = record.dur;
      }
      if (!merge_ && edit.tid && !edit.ts && record.tid_span.valid()) {
        IntegerSplice tid;
        const auto part = tid.make(text, record.tid_span, *edit.tid, index.display_name);
        out.raw_spliced(text, &part, 1);
        return;
      }
      rewrite = rewrite || edit.tid || edit.ts;
      break;
    }
    case EventAction::Kind::kInspect: {
      const EventFields& f = parser_.parse_in_place(text, origin);
      const StreamKey stream{f.pid.int_value, f.tid.int_value};
      if (!plan_.is_old_stream(stream)) break;
      if (is_thread_metadata(f)) return;  // replaced by the lanes' own names
      if (f.cat.is("ac2g")) {
        if (f.ts.present() && !f.ts.is_number())
          fail_input("GPU flow event " + std::to_string(origin.index) + " has a non-numeric ts");
        ++stats.flow_endpoints;
        if (auto lane_tid = plan_.flow_lane_tid(stream, f.ts.is_number() ? f.ts.number : 0.0)) {
          edit.tid = *lane_tid;
          ++stats.flow_endpoints_mapped;
          rewrite = true;
        }
      }
      break;
    }
    case EventAction::Kind::kCopy:
      break;
  }
  if (!rewrite)
    out.raw(text);
  else if (!merge_ || !splicer_.write(text, edit, stream_span, *merge_, *flow_ids_, out))
    rewriter_.write(text, origin, edit, merge_, out);
}

}  // namespace tracecompact
