#include "index/index_pass.h"

#include <malloc.h>

#include <algorithm>
#include <unordered_set>

#include "json/event_parser.h"
#include "json/number_format.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"
#include "util/hash128.h"

namespace tracecompact {
namespace {

class IndexBuilder {
 public:
  explicit IndexBuilder(TraceIndex& index) : index_(index) {}

  void add_event(const EventFields& f, uint64_t event_index) {
    if (f.tid.is_int())
      index_.max_int_tid = std::max(index_.max_int_tid.value_or(f.tid.int_value), f.tid.int_value);
    if (f.pid.is_int() && (pids_.empty() || f.pid.int_value != last_pid_)) {
      pids_.insert(f.pid.int_value);  // most events repeat the previous pid
      last_pid_ = f.pid.int_value;
    }
    const bool named_launch = f.name.is("cudaGraphLaunch");
    if (named_launch) ++index_.graph_launches;
    check_metadata_args(f, event_index);

    if (is_measured_slice(f)) {
      add_slice(f, event_index);
    } else if (f.cat.is("gpu_user_annotation")) {
      add_annotation(f, event_index, named_launch);
    } else if (f.pid.is_int() && f.tid.is_int() && (f.cat.is("ac2g") || is_thread_metadata(f))) {
      index_.attention.mark(event_index);
    }
    if (f.ph.is("M") && f.name.is("thread_name") && f.pid.is_int() && f.tid.is_int() &&
        f.args_name.is_string())
      add_lane_name(f);
  }

  void finish() {
    index_.int_pids.assign(pids_.begin(), pids_.end());
    std::sort(index_.int_pids.begin(), index_.int_pids.end());
    number_identities();
    pids_ = {};
  }

  EventParser parser;

 private:
  static std::string slice_field_error(uint64_t index, const char* field, const char* expected,
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
    if (f.tid.int_value != f.args_stream.int_value)
      fail_input(prefix() + " has tid " + std::to_string(f.tid.int_value) + " != stream " +
                 std::to_string(f.args_stream.int_value));
    if (f.dur.number < 0)
      fail_input(prefix() + " has negative duration " + python_float_repr(f.dur.number));
  }

  void add_slice(const EventFields& f, uint64_t event_index) {
    check_slice(f, event_index);
    SliceRecord slice{};
    slice.tid_span = span_of(f.tid.raw);
    slice.stream_span = span_of(f.args_stream.raw);
    slice.ts = f.ts.number;
    slice.dur = f.dur.number;
    slice.stream = stream_id({f.pid.int_value, f.tid.int_value});
    index_.slice_regions.push_back(f.args_name.is_string() && !f.args_name.text.empty()
                                       ? index_.region_names.intern(f.args_name.text)
                                       : StringTable::kNone);
    index_.slice_events.mark(event_index);
    slice.group = classify_slice(f.cat.text, f.name.is_string() ? f.name.text : std::string_view());
    index_.slices.push_back(slice);
  }

  void add_annotation(const EventFields& f, uint64_t event_index, bool named_launch) {
    if (!f.pid.is_int() || !f.tid.is_int())
      fail_input("GPU annotation " + std::to_string(event_index) +
                 " lacks an integer pid/tid (gpu_user_annotation events need both)");
    AnnotationRecord record{};
    record.event_index = static_cast<uint32_t>(event_index);
    record.tid_span = span_of(f.tid.raw);
    record.pid = f.pid.int_value;
    record.tid = f.tid.int_value;
    record.ts = f.ts.is_number() ? f.ts.number : 0.0;
    record.dur = f.dur.is_number() ? f.dur.number : 0.0;
    uint8_t flags = 0;
    if (f.ts.is_number()) flags |= kTsNumeric;
    if (f.ts.present()) flags |= kTsPresent;
    if (f.dur.is_number()) flags |= kDurNumeric;
    if (f.ph.is("X")) flags |= kPhaseX;
    if (is_thread_metadata(f)) flags |= kMetadataShape;
    if (named_launch) flags |= kNamedGraphLaunch;
    record.flags = flags;
    record.name =
        f.name.is_string() ? index_.annotation_names.intern(f.name.text) : StringTable::kNone;
    const bool coalescing_candidate =
        (flags & kPhaseX) && (flags & kTsNumeric) && (flags & kDurNumeric) && record.dur >= 0;
    record.identity = StringTable::kNone;
    if (coalescing_candidate)  // numbered by finish()
      identity_hashes_.push_back({hash128(parser.annotation_identity()),
                                  static_cast<uint32_t>(index_.annotations.size())});
    index_.annotations.push_back(record);
  }

  void add_lane_name(const EventFields& f) {
    const uint8_t role = lane_role(f.args_name.text);
    if (role) index_.lane_names.push_back({f.pid.int_value, f.tid.int_value, role});
  }

  ValueSpan span_of(std::string_view token) const {
    const size_t at = parser.offset_of(token);
    if (at > 0xFFFF || token.size() > 0xFF) return {};
    return {static_cast<uint16_t>(at), static_cast<uint8_t>(token.size())};
  }

  uint32_t stream_id(StreamKey key) {
    auto [it, inserted] =
        index_.stream_ids.try_emplace(key, static_cast<uint32_t>(index_.streams.size()));
    if (inserted) index_.streams.push_back(key);
    return it->second;
  }

  TraceIndex& index_;
  std::unordered_set<int64_t> pids_;
  int64_t last_pid_ = 0;
  // Identities are compared by a 128-bit hash of their canonical text (see
  // util/hash128.h): the texts themselves would cost more than the whole index.
  struct IdentityHash {
    Hash128 hash;
    uint32_t annotation;
  };
  ChunkedVector<IdentityHash> identity_hashes_;

  // Dense ids, equal for equal hashes: the plan sorts and compares 32-bit ids.
  void number_identities() {
    std::vector<IdentityHash> sorted;
    sorted.reserve(identity_hashes_.size());
    for (const IdentityHash& entry : identity_hashes_) sorted.push_back(entry);
    identity_hashes_ = {};
    std::sort(sorted.begin(), sorted.end(),
              [](const IdentityHash& a, const IdentityHash& b) { return a.hash < b.hash; });
    uint32_t id = 0;
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0 && sorted[i].hash != sorted[i - 1].hash) ++id;
      index_.annotations[sorted[i].annotation].identity = id;
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

void index_events(const TraceInput& input, TraceIndex& index) {
  index.display_name = input.display_name();
  auto source = input.open();
  TraceTokenizer tokenizer(*source, input.chunk_size());
  IndexBuilder builder(index);
  for (;;) {
    const auto item = tokenizer.next();
    if (item.kind == TraceTokenizer::Kind::kEnd) break;
    switch (item.kind) {
      case TraceTokenizer::Kind::kTopLevelValue:
        add_top_level(index, item.key, item.text, builder.parser);
        break;
      case TraceTokenizer::Kind::kEventsBegin:
        index.has_events = true;
        index.events_key_position = index.top_level.size();
        break;
      case TraceTokenizer::Kind::kEvent: {
        if (item.index >= TraceIndex::kMaxEvents)
          fail_input("the trace has more than " + std::to_string(TraceIndex::kMaxEvents) +
                     " events");
        const auto& fields = builder.parser.parse_in_place(item.text, {item.index, item.offset});
        builder.add_event(fields, item.index);
        break;
      }
      case TraceTokenizer::Kind::kEnd:
        break;
    }
  }
  if (!index.has_events) fail_input("traceEvents must be a list");
  index.event_count = tokenizer.events_seen();
  index.input_bytes = tokenizer.bytes_consumed();
  builder.finish();
  if (index.slices.empty()) fail_input("trace contains no GPU kernel/memcpy/memset slices");
}

}  // namespace

TraceIndex build_index(const TraceInput& input) {
  TraceIndex index;
  index_events(input, index);
  // Pass 1 freed many small allocations (identity texts, parser buffers); give
  // their pages back rather than carry them through the plan, the peak of a run.
  malloc_trim(0);
  return index;
}

}  // namespace tracecompact
