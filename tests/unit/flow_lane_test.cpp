// A GPU flow end goes to the lane of the last slice (in event order) on its old
// stream that starts exactly at its ts (spec 5). Renderers search from where
// their previous flow on the stream was found; whatever order the flows come
// in, the answer must be the one a plain scan of the slices gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
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

namespace tracecompact {

// Pass 2 reads a marked event's pid, tid and ts from its tokens where they are
// plainly spelled and parses it otherwise; either way a GPU flow must land on
// the lane of its slice, a CPU flow stay, and old-stream thread names go.
TEST_CASE("GPU flows move to their slice's lane however their tokens are spelled") {
  auto flow_text = [](const std::string& members) {
    return "{\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"," + members + "}";
  };
  const std::vector<std::string> events = {
      kernel(0, 7, "100", "5", "k7"),
      kernel(0, 8, "100", "5", "k8"),  // overlaps k7: another lane
      kernel(0, 9, "200", "5", "k9"),
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"s7\"}}",
      flow_text("\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":100"),
      // Spaces around every token.
      "{ \"ph\" : \"f\" , \"id\" : 2 , \"pid\" : 0 , \"tid\" : 8 , \"ts\" : 100.0 , "
      "\"cat\" : \"ac2g\" , \"name\" : \"ac2g\" }",
      // A key spelled with an escape: parsed.
      flow_text("\"ph\":\"f\",\"id\":3,\"pid\":0,\"t\\u0069d\":9,\"ts\":200"),
      // An exponent: parsed.
      flow_text("\"ph\":\"f\",\"id\":4,\"pid\":0,\"tid\":9,\"ts\":2e2"),
      // Seventeen digits: read from the token, the same double.
      flow_text("\"ph\":\"f\",\"id\":5,\"pid\":0,\"tid\":9,\"ts\":200.00000000000001"),
      // The flow's start on a CPU thread stays where it is.
      flow_text("\"ph\":\"s\",\"id\":6,\"pid\":9,\"tid\":3,\"ts\":90"),
  };
  const Compacted result = compact(trace(events));
  std::map<std::string, int64_t> kernel_tid;
  std::map<int64_t, int64_t> flow_tid;  // by id
  bool thread_name_kept = false;
  for (const auto& e : result.events().GetArray()) {
    const std::string name = e["name"].GetString();
    if (name.size() == 2 && name[0] == 'k') kernel_tid[name] = e["tid"].GetInt64();
    if (name == "ac2g") flow_tid[e["id"].GetInt64()] = e["tid"].GetInt64();
    if (name == "thread_name" && e["args"]["name"] == "s7") thread_name_kept = true;
  }
  REQUIRE(kernel_tid.size() == 3);
  CHECK(kernel_tid["k7"] != kernel_tid["k8"]);
  CHECK(flow_tid.at(1) == kernel_tid["k7"]);
  CHECK(flow_tid.at(2) == kernel_tid["k8"]);
  CHECK(flow_tid.at(3) == kernel_tid["k9"]);
  CHECK(flow_tid.at(4) == kernel_tid["k9"]);
  CHECK(flow_tid.at(5) == kernel_tid["k9"]);
  CHECK(flow_tid.at(6) == 3);
  CHECK_FALSE(thread_name_kept);
  CHECK(result.summary["gpu_flow_endpoints_mapped"].GetInt() == 5);
}

TEST_CASE("a GPU flow whose ts is not a number is reported, however it is spelled") {
  for (const std::string ts : {"\"100\"", "null", "[100]"}) {
    INFO("ts " << ts);
    const std::string text =
        trace({kernel(0, 7, "100", "5", "k7"),
               "{\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":" + ts + ",\"cat\":\"ac2g\"}"});
    REQUIRE_THROWS_WITH(compact(text), Catch::Contains("GPU flow event 1 has a non-numeric ts"));
  }
}

}  // namespace tracecompact
