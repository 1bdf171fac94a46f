// The plan is the same whether its independent steps run on one thread or two:
// pass 2 writes the same bytes from either, on a trace full of equal starts,
// zero durations, overlapping identical annotations and kernel regions.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "index/index_pass.h"
#include "plan/compaction_plan.h"
#include "sink/byte_sink.h"
#include "support/trace_builder.h"
#include "writer/rank_events.h"

using namespace testsupport;

namespace tracecompact {
namespace {

std::vector<std::string> crowded_events(unsigned seed) {
  std::mt19937 random(seed);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
  // Few distinct times and durations, so that starts and ends tie often.
  auto time = [&] { return std::to_string(pick(400)) + (pick(3) ? "" : ".5"); };
  auto length = [&] { return pick(4) ? std::to_string(pick(6)) : "0.0"; };
  std::vector<std::string> events;
  for (int i = 0; i < 20000; ++i) {
    const int pid = pick(2);
    const int stream = 7 + pick(12);
    switch (pick(5)) {
      case 0:
        events.push_back(annotation(pid, stream, time(), length(),
                                    "PP:0F" + std::to_string(pick(3)),
                                    "{\"k\":" + std::to_string(pick(4)) + "}"));
        break;
      case 1: {  // a GPU flow ends where a kernel starts
        const std::string ts = time();
        events.push_back(kernel(pid, stream, ts, length()));
        events.push_back(flow(pid, stream, ts, i));
        break;
      }
      default: {
        static const char* const kNames[] = {"gemm", "ncclDevKernel_AllGather", "Memcpy HtoD",
                                             "ncclDevKernel_ReduceScatter", "Memset"};
        const std::string region =
            pick(3) ? ",\"name\":\"region" + std::to_string(pick(3)) + "\"" : "";
        events.push_back(kernel(pid, stream, time(), length(), kNames[pick(5)], region));
      }
    }
  }
  return events;
}

std::string pass2_events(const TraceInput& input, const CompactionPlan& plan) {
  std::string written;
  StringSink sink(written);
  JsonOut out(sink);
  out.start_array();
  write_rank_events(input, plan, nullptr, 0, out);
  out.end_array();
  out.stream().drain();
  return written;
}

}  // namespace

TEST_CASE("a plan built on two threads equals the one built on one") {
  for (const unsigned seed : {1u, 2u, 3u}) {
    INFO("seed " << seed);
    const TraceInput input = TraceInput::from_memory(trace(crowded_events(seed)));
    TraceIndex one_index = build_index(input);
    TraceIndex two_index = build_index(input);
    const CompactionPlan on_one(one_index, false);
    const CompactionPlan on_two(two_index, true);
    // The trace exercises what the steps compute.
    CHECK(on_one.counts().gpu_annotations_coalesced > 0);
    CHECK(on_one.counts().kernel_annotation_blocks > 0);
    CHECK(on_one.counts().compacted_lanes > 4);
    CHECK(pass2_events(input, on_two) == pass2_events(input, on_one));
    CHECK(on_two.counts().gpu_annotations_mapped == on_one.counts().gpu_annotations_mapped);
    CHECK(on_two.counts().gpu_annotations_coalesced == on_one.counts().gpu_annotations_coalesced);
    CHECK(on_two.counts().kernel_annotations_converted ==
          on_one.counts().kernel_annotations_converted);
    CHECK(on_two.counts().slice_groups == on_one.counts().slice_groups);
  }
}

}  // namespace tracecompact
