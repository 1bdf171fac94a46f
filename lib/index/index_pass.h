// Pass 1: reads a whole trace once and builds its TraceIndex.
#pragma once

#include <memory>

#include "index/event_checks.h"
#include "index/trace_index.h"
#include "json/event_fields.h"
#include "source/trace_input.h"
#include "util/spare_cores.h"

namespace tracecompact {

// Events are parsed on `workers` threads (0: on the calling thread; see
// pass_workers()). With 0 workers and `spare`, the calling thread looks for
// spare cores as it reads, and once it finds some parses the rest of the events
// on as many workers, giving the cores back at the end. The index is the same
// either way. A merge keeps more of each event (`records`), within
// `record_budget` if given (shared by its ranks), and checks more (`checks`).
TraceIndex build_index(const TraceInput& input, unsigned workers = 0, SpareCores* spare = nullptr,
                       PerEventRecords records = PerEventRecords::kNone,
                       std::shared_ptr<RecordBudget> record_budget = nullptr,
                       EventChecks checks = EventChecks::kSingleTrace);

// Last segment of a (possibly "PP rank r | "-prefixed) thread name.
std::string_view lane_name_tail(std::string_view name);

// The role a thread name gives its track in the PP rules (a LaneRole), or 0.
uint8_t lane_role(std::string_view thread_name);

// A measured slice (spec 0), or a stream synchronisation event (spec 12).
bool is_measured_slice(const EventFields& fields);

// thread_name / thread_sort_index metadata: replaced on old streams (spec 5).
bool is_thread_metadata(const EventFields& fields);

// A GPU annotation that identical ones may be coalesced with (spec 6): ph "X",
// numeric ts and dur, dur not negative. Pass 1 and --verify's overlap check
// both ask this.
bool is_coalescing_candidate(const EventFields& annotation);

}  // namespace tracecompact
