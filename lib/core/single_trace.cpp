#include "core/single_trace.h"

#include <optional>

#include "index/index_pass.h"
#include "index/trace_metadata.h"
#include "plan/compaction_plan.h"
#include "tracecompact/tracecompact.h"
#include "util/task_beside.h"
#include "util/thread_policy.h"
#include "writer/json_writer.h"
#include "writer/rank_events.h"

namespace tracecompact {

std::string compaction_source() {
  return std::string("tracecompact ") + version();
}

void write_stream_compaction_value(JsonOut& out) {
  out.start_object();
  out.key("algorithm");
  out.string("semantic interval partitioning");
  out.key("measurement_policy");
  out.string(
      "visualization only; measured GPU slices unchanged; overlapping identical GPU annotations "
      "coalesced; per-kernel CUDA graph annotations converted to lane-local spans");
  out.key("source");
  out.string(compaction_source());
  out.end_object();
}

namespace {

void write_local_flows_value(JsonOut& out, const LocalFlowSummary& flows) {
  out.start_object();
  write_local_flow_keys(out.writer(), flows);
  out.end_object();
}

}  // namespace

struct SingleTraceJob::State {
  TraceIndex index;
  std::unique_ptr<CompactionPlan> plan;
  // The PP arrows are written last: with workers their blocks are built and
  // the arrows drawn on a thread of their own while pass 2 writes the events
  // (the write is mostly waiting on the disk by then), else when pass 2 asks.
  std::optional<TaskBeside<PPArrowResult>> arrows;
  SingleTraceOutcome outcome;
};

SingleTraceJob::SingleTraceJob(const TraceInput& input, PhaseTimer* timer, unsigned threads)
    : input_(input),
      state_(std::make_unique<State>()),
      timer_(timer),
      workers_(pass_workers(threads, input.chunk_size())) {
  // Pass 2's workers find each event's end from its length instead of scanning
  // for it, where the record budget allows (index/record_budget.h).
  if (workers_ > 0)
    state_->index =
        build_index(input, workers_, nullptr, PerEventRecords::kLengths,
                    std::make_shared<RecordBudget>(RecordBudget::kSingleTraceFixedBytes));
  else
    state_->index = build_index(input, workers_);
  if (timer_) timer_->mark("pass 1 (index)");
  const TraceMetadata metadata = read_trace_metadata(state_->index);
  state_->plan = std::make_unique<CompactionPlan>(state_->index, workers_ > 1);
  state_->outcome.counts = state_->plan->counts();
  state_->outcome.local_flows.pp_rank = single_trace_pp_rank(metadata);
  PPAnnotationList pp_annotations;
  pp_annotations.items.reserve(state_->plan->pp_annotation_count());
  state_->plan->append_pp_annotations(pp_annotations);
  // Read into the PP annotations: pass 2 needs none of the records.
  state_->plan->release_annotation_records();
  // The blocks and the arrows beside pass 2. With the records gone first, the
  // blocks' peak and pass 2's buffers together stay under the plan's own peak
  // on large traces (on small ones pass 2's fixed buffers are the peak anyway).
  state_->arrows.emplace(
      [annotations = std::move(pp_annotations), lanes = state_->plan->pp_lane_sets()]() mutable {
        return draw_pp_arrows(std::move(annotations), lanes, false, kFirstPPFlowId);
      });
  if (workers_ > 0) state_->arrows->start();
  if (timer_) timer_->mark("plan");
}

SingleTraceJob::~SingleTraceJob() = default;

SingleTraceOutcome SingleTraceJob::write(ByteSink& sink) {
  const TraceInput& input = input_;
  const TraceIndex& index = state_->index;
  const CompactionPlan& plan = *state_->plan;
  SingleTraceOutcome& outcome = state_->outcome;
  JsonOut out(sink);
  // Top-level keys in input order, traceEvents in its place, ours replacing any
  // same-named input key in place (as a Python dict update does).
  static const std::string kStreamCompaction = "cuda_graph_stream_compaction";
  static const std::string kLocalFlows = "cuda_graph_pp_local_flows";
  bool wrote_stream_compaction = false, wrote_local_flows = false;
  auto write_events = [&] {
    out.key("traceEvents");
    out.start_array();
    const RankWriteStats stats = write_rank_events(input, plan, nullptr, workers_, out);
    outcome.flow_endpoints_mapped = stats.flow_endpoints_mapped;
    write_plan_events(plan, nullptr, workers_, out);
    const PPArrowResult& arrows = state_->arrows->result();
    outcome.local_flows.counts = arrows.counts;
    write_pp_arrows(
        arrows, [&](int64_t) { return outcome.local_flows.pp_rank; }, workers_, out);
    out.end_array();
  };
  out.start_object();
  for (size_t i = 0; i <= index.top_level.size(); ++i) {
    if (i == index.events_key_position) write_events();
    if (i == index.top_level.size()) break;
    const TopLevelValue& value = index.top_level[i];
    out.key(value.key);
    if (value.key == kStreamCompaction) {
      write_stream_compaction_value(out);
      wrote_stream_compaction = true;
    } else if (value.key == kLocalFlows) {
      write_local_flows_value(out, outcome.local_flows);
      wrote_local_flows = true;
    } else {
      out.raw(value.text);
    }
  }
  if (!wrote_stream_compaction) {
    out.key(kStreamCompaction);
    write_stream_compaction_value(out);
  }
  if (!wrote_local_flows) {
    out.key(kLocalFlows);
    write_local_flows_value(out, outcome.local_flows);
  }
  out.end_object();
  out.stream().drain();
  if (timer_) timer_->mark("pass 2 (write)");
  return outcome;
}

std::string render_single_summary(const SingleTraceOutcome& outcome, const std::string& input_name,
                                  const std::string& output_name, bool verified) {
  rapidjson::StringBuffer buffer;
  SummaryWriter writer(buffer);
  writer.SetIndent(' ', 2);
  writer.StartObject();
  summary_key(writer, "input");
  summary_string(writer, input_name);
  summary_key(writer, "output");
  summary_string(writer, output_name);
  write_compaction_counts(writer, outcome.counts, outcome.flow_endpoints_mapped);
  write_local_flow_keys(writer, outcome.local_flows);
  if (verified) {
    writer.Key("verified");
    writer.Bool(true);
  }
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace tracecompact
