// The program's allocator policy (the library leaves it to the program that
// uses it): glibc's thresholds, and large blocks offered as huge pages.
#pragma once

namespace tracecompact_cli {

// Call first in main, before any thread starts.
void set_allocator_policy();

}  // namespace tracecompact_cli
