// Where a merge's pass 2 splices an event: the offsets of its top-level pid and
// ts values, found by pass 1 while it reads the event off simdjson's DOM tape
// (json/tape_reader.h), so that pass 2 need not scan every event for them.
// Kept per event (2 bytes) in merge mode only, within a budget
// (index/record_budget.h): the smaller the record, the more events have one.
#pragma once

#include <cstdint>

namespace tracecompact {

// pid's value offset from the event's '{' in the low 10 bits, ts's offset past
// pid's in the high 6 (0: the event has no ts). kNoSpliceSite: pass 2 finds the
// fields itself (a flow or metadata phase, a pid or ts that is not a number,
// an object or array before them, an event without pid, pid beyond 1023 bytes
// or ts before pid or more than 63 bytes after it, an event read on demand).
// Kineto writes "pid", "tid", "ts" in that order, after the name; the real
// traces in fixtures/real have every pid within 1023 bytes and ts within 63
// bytes of it.
using SpliceSite = uint16_t;
inline constexpr SpliceSite kNoSpliceSite = 0;  // pid's offset is never 0: '{' is there
// In and out of make_splice_site / splice_site_*: a field the event lacks.
inline constexpr uint16_t kAbsentField = 0xFFFF;

namespace splice_site_detail {
inline constexpr unsigned kPidBits = 10;
inline constexpr uint16_t kPidMask = (1u << kPidBits) - 1;  // also the largest pid offset
inline constexpr uint16_t kLargestTsStep = (1u << (16 - kPidBits)) - 1;
}  // namespace splice_site_detail

// kNoSpliceSite where the offsets do not fit (see above).
inline SpliceSite make_splice_site(uint16_t pid_at, uint16_t ts_at) {
  using namespace splice_site_detail;
  if (pid_at == 0 || pid_at > kPidMask) return kNoSpliceSite;  // an absent pid included
  if (ts_at == kAbsentField) return pid_at;
  if (ts_at <= pid_at || ts_at - pid_at > kLargestTsStep) return kNoSpliceSite;
  return static_cast<SpliceSite>(pid_at | (ts_at - pid_at) << kPidBits);
}
inline uint16_t splice_site_pid(SpliceSite site) {
  return static_cast<uint16_t>(site & splice_site_detail::kPidMask);
}
inline uint16_t splice_site_ts(SpliceSite site) {
  const uint16_t step = static_cast<uint16_t>(site >> splice_site_detail::kPidBits);
  return step == 0 ? kAbsentField : static_cast<uint16_t>(splice_site_pid(site) + step);
}

}  // namespace tracecompact
