// The fields of one trace event that the spec reads, as seen by the parser.
#pragma once

#include <cstdint>
#include <string_view>

namespace tracecompact {

enum class JsonKind : uint8_t { kAbsent, kNull, kBool, kNumber, kString, kObject, kArray };

// One JSON value, reduced to what the rules need. Strings point into the
// parser's buffers and stay valid until the next parse.
struct JsonScalar {
  JsonKind kind = JsonKind::kAbsent;
  bool integer = false;    // a number written without fraction or exponent that fits int64
  bool oversized = false;  // an integer from 2^64 (or below -2^63): `number` is its double
  bool boolean = false;
  // An integer from 2^63 to 2^64 - 1 (simdjson's uint64): its value; else 0.
  // Not is_int(), but spec 0 calls it an integer: where its value would count
  // (the largest tid, a merge's pids) the tool refuses the trace.
  uint64_t beyond_int64 = 0;
  int64_t int_value = 0;
  double number = 0;      // every number as a double (spec 0)
  std::string_view text;  // unescaped string
  std::string_view raw;   // raw token of a number

  bool present() const { return kind != JsonKind::kAbsent; }
  bool present_not_null() const { return kind != JsonKind::kAbsent && kind != JsonKind::kNull; }
  bool is_int() const { return kind == JsonKind::kNumber && integer; }
  bool is_number() const { return kind == JsonKind::kNumber; }
  bool is_string() const { return kind == JsonKind::kString; }
  bool is(std::string_view s) const { return kind == JsonKind::kString && text == s; }
};

// Flow phases ("s", "t", "f"), whose id a merge renumbers and pass 2 reads.
inline bool is_flow_phase(const JsonScalar& ph) {
  return ph.is("s") || ph.is("t") || ph.is("f");
}

struct EventFields {
  JsonScalar name, cat, ph, pid, tid, ts, dur, id;
  JsonKind args_kind = JsonKind::kAbsent;
  bool args_empty = false;  // args is {}
  JsonScalar args_stream, args_name;

  // The slot of a top-level member the rules read ("args" aside), or null.
  JsonScalar* slot(std::string_view key) {
    switch (key.size()) {
      case 2:
        return key == "ph" ? &ph : key == "ts" ? &ts : key == "id" ? &id : nullptr;
      case 3:
        return key == "cat"   ? &cat
               : key == "pid" ? &pid
               : key == "tid" ? &tid
               : key == "dur" ? &dur
                              : nullptr;
      case 4:
        return key == "name" ? &name : nullptr;
      default:
        return nullptr;
    }
  }

  // Only the kinds need resetting: a value is read only when its kind says it
  // was set (zeroing the whole struct per event showed in profiles).
  void clear() {
    for (JsonScalar* scalar :
         {&name, &cat, &ph, &pid, &tid, &ts, &dur, &id, &args_stream, &args_name}) {
      scalar->kind = JsonKind::kAbsent;
      scalar->oversized = false;
      scalar->beyond_int64 = 0;
      scalar->text = {};  // a stale view would point into an earlier event
      scalar->raw = {};
    }
    args_kind = JsonKind::kAbsent;
    args_empty = false;
  }
};

const char* json_kind_name(JsonKind kind);

}  // namespace tracecompact
