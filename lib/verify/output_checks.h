// --verify's checks of the output's own layout, which need every event seen
// first: no compacted lane holds overlapping slices, no annotation track holds
// overlapping copies of one annotation, and every ac2g flow on a lane lands on
// the start of one of its slices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index/trace_index.h"
#include "json/event_fields.h"
#include "json/event_parser.h"
#include "util/hash128.h"

namespace tracecompact {

class OutputChecks {
 public:
  [[noreturn]] static void fail(const std::string& what);

  // A measured slice of the output: `start`/`end` are the input's (merge
  // alignment shifts times after packing, and rounding may make slices that
  // touched overlap by an ulp).
  void add_slice(const EventFields& f, uint64_t index, double start, double end);
  void add_annotation(const EventFields& f, EventParser& parser);
  void add_flow(const EventFields& f, uint64_t index);
  // Runs the checks; throws on the first failure.
  void finish();

 private:
  // Tracks are numbered as they are met: records hold 4 bytes, not a pid and a tid.
  uint32_t track(int64_t pid, int64_t tid);
  std::string track_text(uint32_t track) const;

  struct Interval {
    uint32_t track;
    double start, end;
  };
  struct Start {
    uint32_t track;
    double ts;
  };
  struct Copy {  // of an annotation
    Hash128 identity;
    uint32_t track;
    double start, end;
  };
  struct FlowEnd {
    uint32_t track;
    double ts;
    uint64_t event_index;
  };
  StreamKeyIds track_ids_;
  std::vector<StreamKey> tracks_;
  std::vector<Interval> slices_;  // input times, for overlaps
  std::vector<Start> starts_;     // output starts, where flows must land
  std::vector<Copy> annotations_;
  std::vector<FlowEnd> flows_;
};

}  // namespace tracecompact
