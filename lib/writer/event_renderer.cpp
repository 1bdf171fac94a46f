#include "writer/event_renderer.h"

#include <algorithm>
#include <charconv>

#include "index/index_pass.h"
#include "json/number_format.h"
#include "tracecompact/error.h"
#include "writer/top_level_fields.h"

namespace tracecompact {

EventAction PlanCursor::next(uint64_t event_index) {
  const TraceIndex& index = plan_.index();
  if (slice_ < index.slices.size() && index.slice_events.test(event_index))
    return {EventAction::Kind::kSlice, slice_++};
  if (annotation_ < plan_.annotation_outcomes().size() && index.annotation_events.test(event_index))
    return {EventAction::Kind::kAnnotation, annotation_++};
  if (index.needs_attention(event_index)) return {EventAction::Kind::kInspect, 0};
  return {};
}

namespace {

// An integer token where pass 1 found one, checked against the text: the input
// must not have changed since (the splices below write over it unread).
void check_integer_token(std::string_view text, ValueSpan span, const std::string& input_name) {
  if (size_t{span.at} + span.length > text.size() ||
      !has_only_integer_chars(text.substr(span.at, span.length)))
    fail_io(input_name + " changed while it was being read");
}

// An integer written over a token check_integer_token() passed.
class IntegerSplice {
 public:
  JsonOut::Replacement make(ValueSpan span, int64_t value) {
    char* end = std::to_chars(digits_, digits_ + sizeof digits_, value).ptr;
    return {span.at, span.length, std::string_view(digits_, static_cast<size_t>(end - digits_))};
  }

 private:
  char digits_[24];
};

// Rewrites tid and args.stream of a slice (both checked) in place of the
// original tokens.
void splice_slice(JsonOut& out, std::string_view text, const SliceRecord& slice, int64_t lane_tid) {
  IntegerSplice tid, stream;
  JsonOut::Replacement parts[2] = {tid.make(slice.tid_span, lane_tid),
                                   stream.make(slice.stream_span, lane_tid)};
  if (parts[1].at < parts[0].at) std::swap(parts[0], parts[1]);
  out.raw_spliced(text, parts, 2);
}

bool read_plain_integer(std::string_view token, int64_t& value) {
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc() && end == token.data() + token.size();
}

// An event pass 1 marked for attention (an ac2g flow or thread metadata, with
// integer pid and tid) as its top-level tokens tell it, where they are plainly
// spelled: most such events are flows, half of them on CPU threads, and a
// parse of each was the largest cost of pass 2 after copying. False: parse it.
struct MarkedEvent {
  StreamKey stream;
  bool metadata = false;  // ph "M": thread metadata is judged on a parse
  double ts = 0;          // 0 when absent, as the parse path has it
  TopLevelFields fields;
};

bool read_marked_event(std::string_view text, MarkedEvent& event) {
  TopLevelFields& fields = event.fields;
  if (!locate_top_level_fields(text, fields, true) || !fields.pid.found || !fields.tid.found ||
      !read_plain_integer(fields.pid.in(text), event.stream.pid) ||
      !read_plain_integer(fields.tid.in(text), event.stream.tid))
    return false;
  const std::string_view ph = fields.ph.found ? fields.ph.in(text) : std::string_view();
  if (ph.find('\\') != std::string_view::npos) return false;
  event.metadata = ph == "\"M\"";
  if (fields.ts.found) {
    const std::string_view ts = fields.ts.in(text);
    if (!is_short_plain_number(ts)) return false;  // a long number, or not one: the parse judges
    event.ts = read_number_token(ts);
  }
  return true;
}

}  // namespace

// A merge's pid and ts where pass 1 found them: at the event's splice site, or
// else by their keys where pass 1 found them plainly spelled before any nested
// value (the events past the sites the record budget kept). False: the splicer
// scans for them.
bool EventRenderer::pid_and_ts_of(std::string_view text, uint64_t event_index, FieldSpan& pid,
                                  FieldSpan& ts) const {
  const TraceIndex& index = plan_.index();
  if (event_index < index.splice_sites.size() && index.splice_sites[event_index] != kNoSpliceSite)
    return splice_site_spans(text, index.splice_sites[event_index], pid, ts);
  return index.plain_pid_ts.test(event_index) && find_plain_pid_ts(text, pid, ts);
}

// A merge's fields from pass 1's findings (pid_and_ts_of), with the tid pass 1
// located where the plan moves the event (checked, as a single trace's is);
// false: the splicer finds them itself.
bool EventRenderer::fields_at_site(std::string_view text, uint64_t event_index,
                                   const EventEdit& edit, ValueSpan tid_span,
                                   TopLevelFields& fields) const {
  fields = {};
  if (!pid_and_ts_of(text, event_index, fields.pid, fields.ts)) return false;
  if (!edit.tid) return true;
  if (!tid_span.valid()) return false;
  check_integer_token(text, tid_span, plan_.index().display_name);
  fields.tid = {tid_span.at, tid_span.length, true};
  return true;
}

// A merge's splice where pass 1 found pid and ts (pid_and_ts_of), with a
// slice's lane (`lane`, else null); false: render() looks closer.
bool EventRenderer::splice_where_found(std::string_view text, uint64_t event_index,
                                       const MergeSplicer::LaneSplice* lane, JsonOut& out) {
  FieldSpan pid, ts;
  return pid_and_ts_of(text, event_index, pid, ts) &&
         splicer_.write_at(text, pid, ts, lane, *merge_, out);
}

// An event the plan leaves as it is, copied (a single trace) or with pid and ts
// spliced where pass 1 found them (a merge); false: render() looks closer.
bool EventRenderer::copy_unchanged(std::string_view text, uint64_t event_index, JsonOut& out) {
  if (!merge_) {
    out.raw(text);
    return true;
  }
  return splice_where_found(text, event_index, nullptr, out);
}

// A merged slice whose pid and ts pass 1 found (most of them), its tid and
// args.stream tokens checked: pid, tid, ts and args.stream spliced in place;
// false: render() takes the general path.
bool EventRenderer::splice_merged_slice(std::string_view text, uint64_t event_index,
                                        const SliceRecord& slice, int64_t lane_tid, JsonOut& out) {
  const MergeSplicer::LaneSplice lane{slice.tid_span, slice.stream_span, lane_tid};
  return splice_where_found(text, event_index, &lane, out);
}

void EventRenderer::render(std::string_view text, const EventOrigin& origin, EventAction action,
                           JsonOut& out, RankWriteStats& stats) {
  // Most events: before any of the per-event state below is set up.
  if (action.kind == EventAction::Kind::kCopy && copy_unchanged(text, origin.index, out)) return;
  const TraceIndex& index = plan_.index();
  EventEdit edit;
  ValueSpan stream_span;
  bool rewrite = merge_ != nullptr;
  // The top-level fields, once found (with tid), for the merge splicer.
  MarkedEvent marked;
  const TopLevelFields* located = nullptr;
  ValueSpan tid_span;  // where pass 1 found the tid the plan changes
  switch (action.kind) {
    case EventAction::Kind::kSlice: {
      const SliceRecord& slice = index.slices[action.record];
      const int64_t lane_tid = plan_.lane_tid_of_slice(action.record);
      if (slice.tid_span.valid() && slice.stream_span.valid()) {
        // Before any path writes over them, merged or not, splice or rewriter.
        check_integer_token(text, slice.tid_span, index.display_name);
        check_integer_token(text, slice.stream_span, index.display_name);
        if (!merge_) {
          splice_slice(out, text, slice, lane_tid);
          return;
        }
        if (splice_merged_slice(text, origin.index, slice, lane_tid, out)) return;
      }
      // Two assignments, not a chained one: copying the optional just written
      // reads it back wider than it was stored, which stalls on the stores of the
      // event before (store-to-load forwarding fails).
      edit.tid = lane_tid;
      edit.stream = lane_tid;
      stream_span = slice.stream_span;
      tid_span = slice.tid_span;
      rewrite = true;
      break;
    }
    case EventAction::Kind::kAnnotation: {
      const AnnotationOutcome& outcome = plan_.annotation_outcomes()[action.record];
      if (!outcome.kept()) return;
      if (outcome.moved()) edit.tid = plan_.annotation_tid(action.record);
      tid_span = outcome.tid_span;
      if (outcome.retimed()) {
        const RetimedAnnotation& merged = plan_.retimed_interval(action.record);
        edit.ts = merged.ts;
        edit.dur = merged.dur;
      }
      if (!merge_ && edit.tid && !edit.ts && outcome.tid_span.valid()) {
        check_integer_token(text, outcome.tid_span, index.display_name);
        IntegerSplice tid;
        const auto part = tid.make(outcome.tid_span, *edit.tid);
        out.raw_spliced(text, &part, 1);
        return;
      }
      rewrite = rewrite || edit.tid || edit.ts;
      break;
    }
    case EventAction::Kind::kInspect: {
      if (read_marked_event(text, marked)) {
        if (!plan_.is_old_stream(marked.stream)) {
          located = &marked.fields;  // e.g. a flow on a CPU thread: its tid stays
          break;
        }
        if (!marked.metadata) {  // not metadata, so an ac2g flow (pass 1 marked it)
          ++stats.flow_endpoints;
          const auto lane_tid = plan_.flow_lane_tid(marked.stream, marked.ts, flow_hints_);
          if (!lane_tid) break;
          ++stats.flow_endpoints_mapped;
          if (!merge_) {  // the tid token replaced, as a slice's is
            char digits[24];
            const char* end = std::to_chars(digits, digits + sizeof digits, *lane_tid).ptr;
            const JsonOut::Replacement part{marked.fields.tid.at, marked.fields.tid.length,
                                            std::string_view(digits, end - digits)};
            out.raw_spliced(text, &part, 1);
            return;
          }
          edit.tid = *lane_tid;
          if (!splicer_.write(text, edit, stream_span, *merge_, *flow_ids_, out, &marked.fields))
            rewriter_.write(text, origin, edit, merge_, out);
          return;
        }
      }
      const EventFields& f = parser_.parse_in_place(text, origin);
      const StreamKey stream{f.pid.int_value, f.tid.int_value};
      if (!plan_.is_old_stream(stream)) break;
      if (is_thread_metadata(f)) return;  // replaced by the lanes' own names
      if (f.cat.is("ac2g")) {
        if (f.ts.present() && !f.ts.is_number())
          fail_input("GPU flow event " + std::to_string(origin.index) + " has a non-numeric ts");
        ++stats.flow_endpoints;
        if (auto lane_tid =
                plan_.flow_lane_tid(stream, f.ts.is_number() ? f.ts.number : 0.0, flow_hints_)) {
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
  if (!rewrite) {
    out.raw(text);
    return;
  }
  TopLevelFields at_site;
  if (merge_ && !located && fields_at_site(text, origin.index, edit, tid_span, at_site))
    located = &at_site;
  if (!merge_ || !splicer_.write(text, edit, stream_span, *merge_, *flow_ids_, out, located))
    rewriter_.write(text, origin, edit, merge_, out);
}

}  // namespace tracecompact
