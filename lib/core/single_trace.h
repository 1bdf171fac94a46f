// Single-trace mode (spec 1-10): pass 1, plan, PP arrows, pass 2.
#pragma once

#include <cstdint>
#include <string>

#include "core/summary.h"
#include "sink/byte_sink.h"
#include "source/trace_input.h"
#include "writer/json_writer.h"

namespace tracecompact {

struct SingleTraceOutcome {
  CompactionCounts counts;
  uint64_t flow_endpoints_mapped = 0;
  LocalFlowSummary local_flows;
};

// Compacts `input` into `sink` (the caller finishes the sink).
SingleTraceOutcome compact_single_trace(const TraceInput& input, ByteSink& sink);

// The printed summary: {"input", "output", ...spec 9..., "verified"?}.
std::string render_single_summary(const SingleTraceOutcome& outcome, const std::string& input_name,
                                  const std::string& output_name, bool verified);

// Our value of cuda_graph_stream_compaction.source.
std::string compaction_source();

// The constant part of cuda_graph_stream_compaction (spec 9).
void write_stream_compaction_value(JsonOut& out);

}  // namespace tracecompact
