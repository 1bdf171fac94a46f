#include "index/event_digest.h"

#include "index/groups.h"
#include "index/index_pass.h"
#include "json/number_format.h"
#include "tracecompact/error.h"

namespace tracecompact {
namespace {

std::string slice_field_error(uint64_t index, const char* field, const char* expected,
                              const JsonScalar& value) {
  std::string found = json_kind_name(value.kind);
  if (value.is_number()) {
    const bool integer = is_integer_token(value.raw);
    found = (integer ? "the integer " : "the number ") + std::string(value.raw);
    if (integer && std::string_view(expected) == "an integer") found += " (beyond 64 bits)";
  }
  return "GPU slice " + std::to_string(index) + " has " + field + " that is " + found +
         "; expected " + expected;
}

void check_metadata_args(const EventFields& f, uint64_t event_index) {
  if (f.ph.is("M") && (f.name.is("thread_name") || f.name.is("process_name")) &&
      f.args_kind != JsonKind::kAbsent && f.args_kind != JsonKind::kObject)
    fail_input("metadata event " + std::to_string(event_index) + " (" + std::string(f.name.text) +
               ") has args that is " + json_kind_name(f.args_kind) + "; expected an object");
}

bool is_container(const JsonScalar& value) {
  return value.kind == JsonKind::kArray || value.kind == JsonKind::kObject;
}

// The reference looks some fields up in sets, where an array or object crashes
// it (Python cannot hash them), so they are errors here: every event's cat; a
// metadata event's name when its pid and tid are integers, and in a merge
// whatever they are; in a merge every event's ph.
void check_looked_up_fields(const EventFields& f, uint64_t event_index, EventChecks checks) {
  const bool merge = checks == EventChecks::kMergeRank;
  if (is_container(f.cat))
    fail_input("event " + std::to_string(event_index) + " has a cat that is " +
               json_kind_name(f.cat.kind) + "; expected a string");
  if (merge && is_container(f.ph))
    fail_input("event " + std::to_string(event_index) + " has a ph that is " +
               json_kind_name(f.ph.kind) + "; expected a string");
  if (f.ph.is("M") && is_container(f.name) && (merge || (f.pid.is_int() && f.tid.is_int())))
    fail_input("metadata event " + std::to_string(event_index) + " has a name that is " +
               json_kind_name(f.name.kind) + "; expected a string");
}

// spec 1 checks; messages are only built when a check fails.
void check_slice(const EventFields& f, uint64_t event_index) {
  auto prefix = [&] { return "GPU slice " + std::to_string(event_index); };
  if (f.args_kind != JsonKind::kAbsent && f.args_kind != JsonKind::kObject)
    fail_input(prefix() + " has args that is " + json_kind_name(f.args_kind) +
               "; expected an object");
  if (!f.pid.present_not_null() || !f.tid.present_not_null() || !f.ts.present_not_null() ||
      !f.dur.present_not_null() || !f.args_stream.present_not_null())
    fail_input(prefix() + " lacks pid/tid/ts/dur/stream");
  if (!f.pid.is_int()) fail_input(slice_field_error(event_index, "pid", "an integer", f.pid));
  if (!f.tid.is_int()) fail_input(slice_field_error(event_index, "tid", "an integer", f.tid));
  if (!f.args_stream.is_int())
    fail_input(slice_field_error(event_index, "args.stream", "an integer", f.args_stream));
  if (!f.ts.is_number()) fail_input(slice_field_error(event_index, "ts", "a number", f.ts));
  if (!f.dur.is_number()) fail_input(slice_field_error(event_index, "dur", "a number", f.dur));
  if (f.name.present() && !f.name.is_string())
    fail_input(slice_field_error(event_index, "name", "a string", f.name));
  // Python's == on two integers is exact: 2^60 + 1 is not 2^60, although both
  // are one double. Messages print numbers as floats (spec 1): "tid 7.0 != stream 8.0".
  if (f.tid.int_value != f.args_stream.int_value)
    fail_input(prefix() + " has tid " + python_float_repr(static_cast<double>(f.tid.int_value)) +
               " != stream " + python_float_repr(static_cast<double>(f.args_stream.int_value)));
  if (f.dur.number < 0)
    fail_input(prefix() + " has negative duration " + python_float_repr(f.dur.number));
}

ValueSpan span_of(const EventParser& parser, std::string_view token) {
  const size_t at = parser.offset_of(token);
  if (at > 0xFFFF || token.size() > 0xFF) return {};
  return {static_cast<uint16_t>(at), static_cast<uint8_t>(token.size())};
}

void keep_text(EventDigest& digest, std::string_view text, std::string& arena) {
  digest.has_text = true;
  digest.text_at = static_cast<uint32_t>(arena.size());
  digest.text_length = static_cast<uint32_t>(text.size());
  arena.append(text);
}

void digest_slice(const EventFields& f, const EventParser& parser, uint64_t event_index,
                  EventDigest& d, std::string& arena) {
  check_slice(f, event_index);
  d.kind = EventDigest::kSlice;
  SliceRecord& slice = d.slice;
  slice.tid_span = span_of(parser, f.tid.raw);
  slice.stream_span = span_of(parser, f.args_stream.raw);
  slice.ts = f.ts.number;
  slice.dur = f.dur.number;
  slice.group = classify_slice(f.cat.text, f.name.is_string() ? f.name.text : std::string_view());
  if (f.args_name.is_string() && !f.args_name.text.empty()) keep_text(d, f.args_name.text, arena);
}

void digest_annotation(const EventFields& f, EventParser& parser, uint64_t event_index,
                       EventDigest& d, std::string& arena) {
  if (!f.pid.is_int() || !f.tid.is_int())
    fail_input("GPU annotation " + std::to_string(event_index) +
               " lacks an integer pid/tid (gpu_user_annotation events need both)");
  d.kind = EventDigest::kAnnotation;
  AnnotationRecord& record = d.annotation;
  record.tid_span = span_of(parser, f.tid.raw);  // its (pid, tid) is the digest's
  record.ts = f.ts.is_number() ? f.ts.number : 0.0;
  record.dur = f.dur.is_number() ? f.dur.number : 0.0;
  uint8_t flags = 0;
  if (f.ts.is_number()) flags |= kTsNumeric;
  if (f.ts.present()) flags |= kTsPresent;
  if (f.dur.is_number()) flags |= kDurNumeric;
  if (f.ph.is("X")) flags |= kPhaseX;
  if (is_thread_metadata(f)) flags |= kMetadataShape;
  if (d.named_launch) flags |= kNamedGraphLaunch;
  record.flags = flags;
  if (f.name.is_string()) keep_text(d, f.name.text, arena);
  d.has_identity = is_coalescing_candidate(f);
  if (d.has_identity) d.identity = parser.annotation_identity();
}

}  // namespace

EventDigest digest_event(const EventFields& f, EventParser& parser, uint64_t event_index,
                         std::string& arena, EventChecks checks) {
  EventDigest d;
  d.has_int_pid = f.pid.is_int();
  d.has_int_tid = f.tid.is_int();
  d.pid_beyond_int64 = f.pid.is_number() ? f.pid.beyond_int64 : 0;
  d.tid_beyond_int64 = f.tid.is_number() ? f.tid.beyond_int64 : 0;
  d.pid = f.pid.is_int() ? f.pid.int_value : 0;
  d.tid = f.tid.is_int() ? f.tid.int_value : 0;
  d.named_launch = f.name.is("cudaGraphLaunch");
  check_metadata_args(f, event_index);
  check_looked_up_fields(f, event_index, checks);
  if (is_measured_slice(f)) {
    digest_slice(f, parser, event_index, d, arena);
  } else if (f.cat.is("gpu_user_annotation")) {
    digest_annotation(f, parser, event_index, d, arena);
  } else if (f.pid.is_int() && f.tid.is_int() && (f.cat.is("ac2g") || is_thread_metadata(f))) {
    d.kind = EventDigest::kAttention;
  }
  if (f.ph.is("M") && f.name.is("thread_name") && f.pid.is_int() && f.tid.is_int() &&
      f.args_name.is_string())
    d.lane_role = lane_role(f.args_name.text);
  return d;
}

}  // namespace tracecompact
