// What a merge can learn of a rank before its pass 1: distributedInfo and
// baseTimeNanoseconds, from the top-level values before "traceEvents" (where
// Kineto writes both since 2024) or, in a plain file, after the events' closing
// bracket (where older Kineto writes the base). A guess that costs a few
// kilobytes of reading: the merge that writes early ranks from it checks it
// against what pass 1 reads.
#pragma once

#include <optional>

#include "index/trace_metadata.h"
#include "source/trace_input.h"

namespace tracecompact {

// The rank's metadata when both values were found (and read without a fault);
// else none, and the merge waits for pass 1.
std::optional<TraceMetadata> preview_rank_metadata(const TraceInput& input);

}  // namespace tracecompact
