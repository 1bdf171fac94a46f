// Pass 1: reads a whole trace once and builds its TraceIndex.
#pragma once

#include "index/trace_index.h"
#include "source/trace_input.h"

namespace tracecompact {

TraceIndex build_index(const TraceInput& input);

// Last segment of a (possibly "PP rank r | "-prefixed) thread name.
std::string_view lane_name_tail(std::string_view name);

}  // namespace tracecompact
