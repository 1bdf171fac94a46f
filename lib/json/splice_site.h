// Where a merge's pass 2 splices an event: the offsets of its top-level pid and
// ts values, found by pass 1 while it reads the event off simdjson's DOM tape
// (json/tape_reader.h), so that pass 2 need not scan every event for them.
// Kept per event (4 bytes) in merge mode only.
#pragma once

#include <cstdint>

namespace tracecompact {

// pid's value offset in the low 16 bits, ts's in the high 16, from the event's
// '{'; kAbsentField for a key the event does not have. kNoSpliceSite: pass 2
// finds the fields itself (a flow or metadata phase, a pid or ts that is not a
// number, an object or array before them, offsets beyond 16 bits, an event
// read on demand).
using SpliceSite = uint32_t;
inline constexpr SpliceSite kNoSpliceSite = 0;  // pid's offset is never 0: '{' is there
inline constexpr uint16_t kAbsentField = 0xFFFF;

inline SpliceSite make_splice_site(uint16_t pid_at, uint16_t ts_at) {
  return SpliceSite{pid_at} | SpliceSite{ts_at} << 16;
}
inline uint16_t splice_site_pid(SpliceSite site) {
  return static_cast<uint16_t>(site & 0xFFFF);
}
inline uint16_t splice_site_ts(SpliceSite site) {
  return static_cast<uint16_t>(site >> 16);
}

}  // namespace tracecompact
