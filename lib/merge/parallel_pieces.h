// Renders consecutive pieces of one JSON array on several threads while the
// output stays a single stream in piece order: the calling thread renders every
// `threads`-th piece straight into the output; helper threads render the others
// into temporary files ($TMPDIR) that are appended when their turn comes. Used
// by merge pass 2, where each piece is one rank's events.
#pragma once

#include <cstddef>
#include <functional>

#include "writer/json_writer.h"

namespace tracecompact {

// `render(piece, out)` writes the piece's array elements (zero or more) to `out`,
// whose writer stands inside an array. With threads <= 1 everything is rendered
// in order on the calling thread. The first failure in piece order is rethrown
// once every helper has stopped and every temporary file is gone.
void render_array_pieces(size_t count, unsigned threads, JsonOut& out,
                         const std::function<void(size_t piece, JsonOut& out)>& render);

}  // namespace tracecompact
