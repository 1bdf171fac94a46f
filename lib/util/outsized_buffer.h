// Reused buffers keep their storage from one batch to the next; one that a
// huge event grew past four times its usual size is let go instead, so that a
// single outlier does not hold its memory for the rest of the run.
#pragma once

#include <cstddef>

#include "util/io_bytes.h"

namespace tracecompact {

inline void drop_if_outsized(IoBytes& buffer, size_t usual_size) {
  if (buffer.size() > 4 * usual_size) IoBytes().swap(buffer);
}

}  // namespace tracecompact
