// tracecompact: rewrites PyTorch profiler (Kineto) traces recorded under CUDA-graph
// replay into a few semantic GPU lanes, and merges pipeline-parallel ranks into
// one timeline. Behaviour: shared/spec/compaction.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tracecompact/error.h"

namespace tracecompact {

const char* version();

struct Options {
  std::string input;                  // trace file, "-" (stdin), or a folder with merge_pp_ranks
  std::optional<std::string> output;  // file, "-" (stdout); default per spec 12
  bool merge_pp_ranks = false;
  bool overwrite = false;
  bool verify = false;       // re-read the output and check it (adds "verified": true)
  bool gzip_stdout = false;  // gzip the output written to stdout
  int gzip_level = 1;        // ISA-L level 0..3
  unsigned threads = 0;  // workers per pass (merge: also ranks indexed at once); 0 = one per core
                         // up to 4, 1 = none
  std::optional<std::string> ranks;  // merge: "0,4" or "0-8"
};

struct RunResult {
  std::string summary_json;                             // pretty JSON, spec 9 / 11
  std::string output_path;                              // "-" for stdout
  std::vector<std::pair<std::string, double>> timings;  // seconds per phase
};

// Runs one compaction or merge; throws tracecompact::Error.
RunResult run(const Options& options);

// In-memory compaction of one trace (plain or gzip bytes) to plain JSON; for
// tests and fuzzing. Returns the summary; throws tracecompact::Error.
std::string compact_buffer(const std::string& trace_bytes, std::string& output_json);

}  // namespace tracecompact
