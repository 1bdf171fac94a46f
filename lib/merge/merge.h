// Merge mode (spec 11): compacts every PP rank, aligns them on the smallest
// baseTimeNanoseconds and writes one timeline with cross-rank arrows.
// Each rank is indexed by its own pass 1 (ranks in parallel); pass 2 streams
// the ranks one after another into the single output, from the first while
// later ones are still being indexed where the layout could be read ahead.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "sink/output_file.h"
#include "tracecompact/tracecompact.h"

namespace tracecompact {

struct MergeRequest {
  std::string input;  // folder, or a file inside it
  std::optional<std::string> ranks;
  unsigned threads = 0;
  OutputSpec output;
  bool verify = false;
  // Write the first ranks while later ones are read, when every rank's layout
  // could be read ahead of pass 1 (merge/rank_preview.h) and the output is a
  // file; else, or if pass 1 finds another layout, every rank is read first.
  bool pipelined = true;
  // For tests: called once the ranks' metadata has been read ahead.
  std::function<void()> after_preview;
};

std::string default_merge_output(const std::string& input);
RunResult run_merge(const MergeRequest& request);

}  // namespace tracecompact
