// The events the plan adds (spans, PP arrows: hundreds of thousands in a large
// trace) rendered on worker threads a range at a time and appended in order,
// through the same ordered ring as pass 2's input events.
#pragma once

#include <cstddef>
#include <functional>

#include "writer/json_writer.h"

namespace tracecompact {

// Writes item `item` into `out`, an open array. Called from several threads at
// once: it may only read shared state.
using ItemRenderer = std::function<void(size_t item, JsonOut& out)>;

// Appends items [0, count) to `out` (an open array), in order, rendered on
// `workers` threads in ranges of `per_batch`; without workers, on this thread.
void render_ranges(unsigned workers, size_t count, size_t per_batch, const ItemRenderer& render,
                   JsonOut& out);

}  // namespace tracecompact
