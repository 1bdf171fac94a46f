// Pass 2 for one trace: re-reads it and streams its events, rewritten as the
// plan says, followed by the events the plan adds (spans, track names).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "plan/compaction_plan.h"
#include "plan/pp_arrows.h"
#include "source/trace_input.h"
#include "writer/event_renderer.h"
#include "writer/json_writer.h"

namespace tracecompact {

// Writes the kept input events (spec 5, 6) into an open JSON array, rendered on
// `workers` threads (0: on the calling thread). The output is the same JSON
// either way, and the same bytes unless a merged flow id is narrower than its
// blank (ids of a rank crossing a power of ten), which spaces then follow.
RankWriteStats write_rank_events(const TraceInput& input, const CompactionPlan& plan,
                                 const MergeEdit* merge, unsigned workers, JsonOut& out);

// Writes the spans (spec 7) and track names (spec 8), the spans rendered on
// `workers` threads (0: on the calling thread).
void write_plan_events(const CompactionPlan& plan, const MergeEdit* merge, unsigned workers,
                       JsonOut& out);

// Writes two flow events per arrow (spec 10), rendered on `workers` threads;
// `pp_rank_of` maps a pid to its PP rank (called once per track, here).
void write_pp_arrows(const PPArrowResult& arrows, const std::function<int64_t(int64_t)>& pp_rank_of,
                     unsigned workers, JsonOut& out);

}  // namespace tracecompact
