// Pass 2's work on one event: what the plan does with it (decided in event
// order by PlanCursor), and rendering it (EventRenderer, one per thread).
#pragma once

#include <cstdint>
#include <string_view>

#include "json/event_parser.h"
#include "plan/compaction_plan.h"
#include "writer/event_rewriter.h"
#include "writer/json_writer.h"
#include "writer/merge_splicer.h"
#include "writer/top_level_fields.h"

namespace tracecompact {

struct RankWriteStats {
  uint64_t flow_endpoints = 0;  // ac2g events on old streams
  uint64_t flow_endpoints_mapped = 0;

  RankWriteStats& operator+=(const RankWriteStats& other) {
    flow_endpoints += other.flow_endpoints;
    flow_endpoints_mapped += other.flow_endpoints_mapped;
    return *this;
  }
};

// What the plan says of one event.
struct EventAction {
  enum class Kind : uint8_t {
    kCopy,        // no record: copied (merge: pid/ts edited)
    kSlice,       // slices[record]: moved to its lane
    kAnnotation,  // annotations[record]: kept, moved, retimed or dropped
    kInspect,     // pass 1 marked it: metadata or a GPU flow, judged on a parse
  };
  Kind kind = Kind::kCopy;
  size_t record = 0;
};

// Walks the slices and annotations of the plan in step with the event stream.
class PlanCursor {
 public:
  explicit PlanCursor(const CompactionPlan& plan) : plan_(plan) {}
  EventAction next(uint64_t event_index);

 private:
  const CompactionPlan& plan_;
  size_t slice_ = 0;
  size_t annotation_ = 0;
};

// Renders events of one trace as its plan says; one per thread. `flow_ids`
// writes merged flow ids (merge mode only).
class EventRenderer {
 public:
  EventRenderer(const CompactionPlan& plan, const MergeEdit* merge, FlowIdWriter* flow_ids)
      : plan_(plan), merge_(merge), flow_ids_(flow_ids), rewriter_(flow_ids) {}

  void render(std::string_view text, const EventOrigin& origin, EventAction action, JsonOut& out,
              RankWriteStats& stats);
  const std::string& input_name() const { return plan_.index().display_name; }
  const TraceIndex& index() const { return plan_.index(); }

 private:
  bool pid_and_ts_of(std::string_view text, uint64_t event_index, FieldSpan& pid,
                     FieldSpan& ts) const;
  bool splice_where_found(std::string_view text, uint64_t event_index,
                          const MergeSplicer::LaneSplice* lane, JsonOut& out);
  bool copy_unchanged(std::string_view text, uint64_t event_index, JsonOut& out);
  bool splice_merged_slice(std::string_view text, uint64_t event_index, const SliceRecord& slice,
                           int64_t lane_tid, JsonOut& out);
  bool fields_at_site(std::string_view text, uint64_t event_index, const EventEdit& edit,
                      ValueSpan tid_span, TopLevelFields& fields) const;

  const CompactionPlan& plan_;
  const MergeEdit* merge_;
  FlowIdWriter* flow_ids_;
  EventRewriter rewriter_;
  MergeSplicer splicer_;
  EventParser parser_;
  FlowSearchHints flow_hints_;
};

}  // namespace tracecompact
