// Which checks pass 1 gives an event. A merge's ranks get a few more than a
// single trace, as the reference reads more of their events
// (index/event_digest.cpp, check_looked_up_fields).
#pragma once

#include <cstdint>

namespace tracecompact {

enum class EventChecks : uint8_t { kSingleTrace, kMergeRank };

}  // namespace tracecompact
