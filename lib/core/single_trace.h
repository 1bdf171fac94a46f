// Single-trace mode (spec 1-10): pass 1, plan, PP arrows, pass 2.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/summary.h"
#include "sink/byte_sink.h"
#include "source/trace_input.h"
#include "util/phase_timer.h"
#include "writer/json_writer.h"

namespace tracecompact {

struct SingleTraceOutcome {
  CompactionCounts counts;
  uint64_t flow_endpoints_mapped = 0;
  LocalFlowSummary local_flows;
};

// One trace's compaction in two steps, so that nothing is written (no output
// file, no folder) before pass 1 has accepted the input.
class SingleTraceJob {
 public:
  // Pass 1 and the plan; both passes run on `threads` (see pass_workers()).
  explicit SingleTraceJob(const TraceInput& input, PhaseTimer* timer = nullptr,
                          unsigned threads = 0);
  ~SingleTraceJob();
  SingleTraceOutcome write(ByteSink& sink);  // pass 2; the caller finishes the sink

 private:
  struct State;
  const TraceInput& input_;
  std::unique_ptr<State> state_;
  PhaseTimer* timer_;
  unsigned workers_;  // each pass's worker threads
};

// The printed summary: {"input", "output", ...spec 9..., "verified"?}.
std::string render_single_summary(const SingleTraceOutcome& outcome, const std::string& input_name,
                                  const std::string& output_name, bool verified);

// Our value of cuda_graph_stream_compaction.source.
std::string compaction_source();

// The constant part of cuda_graph_stream_compaction (spec 9).
void write_stream_compaction_value(JsonOut& out);

}  // namespace tracecompact
