// --verify: re-reads the written output (streaming) and checks it against the
// input(s) independently of the plan that produced it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "source/trace_input.h"

namespace tracecompact {

struct VerifyRank {
  const TraceInput* input;
  const std::unordered_map<int64_t, int64_t>* pid_map;  // null: pids unchanged
  double ts_offset;
};

// Checks that
//  - the measured slices are the input's, in order, unchanged except tid/args.stream
//    (and, when merging, pid renumbered and ts shifted by the rank's offset);
//  - no compacted lane holds overlapping slices;
//  - no annotation track holds overlapping copies of one annotation (those
//    with empty args, like kernel-name spans, aside);
//  - every ac2g flow on a lane lands on the start of one of its slices.
// Throws Error when a check fails. The caller reads the output before it is
// moved into place (OutputFile::finish_writing), so a failed check leaves no
// output behind and an existing file at the target as it was.
void verify_output(const std::vector<VerifyRank>& ranks, const std::string& output_path);

inline void verify_single_output(const TraceInput& input, const std::string& output_path) {
  verify_output({VerifyRank{&input, nullptr, 0.0}}, output_path);
}
inline void verify_merged_output(const std::vector<VerifyRank>& ranks,
                                 const std::string& output_path) {
  verify_output(ranks, output_path);
}

}  // namespace tracecompact
