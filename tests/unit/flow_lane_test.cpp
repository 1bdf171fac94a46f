// A GPU flow end goes to the lane of the last slice (in event order) on its old
// stream that starts exactly at its ts (spec 5). Renderers search from where
// their previous flow on the stream was found; whatever order the flows come
// in, the answer must be the one a plain scan of the slices gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "index/index_pass.h"
#include "plan/compaction_plan.h"
#include "support/trace_builder.h"

using namespace testsupport;

namespace tracecompact {
namespace {

// Kernels on a few streams, with few distinct starts, so that starts tie often.
std::string tied_kernels(std::mt19937& random) {
  std::vector<std::string> events;
  for (int i = 0; i < 3000; ++i) {
    const int stream = 7 + static_cast<int>(random() % 3);
    const std::string ts = std::to_string(random() % 200) + (random() % 4 ? "" : ".5");
    events.push_back(kernel(0, stream, ts, std::to_string(random() % 5)));
  }
  return trace(events);
}

// The last slice in event order on `stream` starting at `ts`.
std::optional<int64_t> scanned_lane_tid(const CompactionPlan& plan, StreamKey stream, double ts) {
  const TraceIndex& index = plan.index();
  std::optional<int64_t> found;
  for (size_t s = 0; s < index.slices.size(); ++s) {
    const SliceRecord& slice = index.slices[s];
    if (index.streams[slice.stream] == stream && slice.start() == ts)
      found = plan.lane_tid_of_slice(s);
  }
  return found;
}

}  // namespace

TEST_CASE("a flow's lane is found from any previous position on its stream") {
  std::mt19937 random(11);
  const TraceInput input = TraceInput::from_memory(tied_kernels(random));
  TraceIndex index = build_index(input);
  const CompactionPlan plan(index);
  REQUIRE(plan.lanes().size() > 3);  // the streams' slices overlap: several lanes

  // Queries in rising, falling and random order, some between starts and
  // outside every stream's range, all through one set of hints.
  std::vector<double> times;
  for (int t = -2; t < 205; ++t) {
    times.push_back(t);
    times.push_back(t + 0.5);
    times.push_back(t + 0.25);
  }
  std::vector<std::vector<double>> orders = {times, times, times};
  std::reverse(orders[1].begin(), orders[1].end());
  std::shuffle(orders[2].begin(), orders[2].end(), random);

  FlowSearchHints hints;
  size_t found = 0;
  for (const auto& order : orders) {
    for (const double ts : order) {
      for (int tid = 6; tid <= 10; ++tid) {  // 6 and 10 are no stream
        const StreamKey stream{0, tid};
        const auto expected = scanned_lane_tid(plan, stream, ts);
        INFO("stream " << tid << " ts " << ts);
        REQUIRE(plan.flow_lane_tid(stream, ts, hints) == expected);
        found += expected.has_value();
      }
    }
  }
  CHECK(found > 1000);  // most whole and half times start some slice
}

}  // namespace tracecompact
