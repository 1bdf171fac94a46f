// The tricky rules of spec 4-8, checked on small in-memory traces.
#include <catch2/catch.hpp>

#include "support/trace_builder.h"

using namespace testsupport;

namespace {

const rapidjson::Value* find_event(const Compacted& c, const std::string& name, const char* cat) {
  for (const auto& e : c.events().GetArray())
    if (e.HasMember("name") && name == e["name"].GetString() && e.HasMember("cat") &&
        std::string(cat) == e["cat"].GetString())
      return &e;
  return nullptr;
}

int count_named(const Compacted& c, const std::string& name) {
  int n = 0;
  for (const auto& e : c.events().GetArray())
    if (e.HasMember("name") && e["name"].IsString() && name == e["name"].GetString()) ++n;
  return n;
}

}  // namespace

TEST_CASE("tids start above every integer tid and count on across groups and pids", "[tids]") {
  const auto c = compact(trace({
      kernel(1, 7, "0", "10", "ncclDevKernel_AllGather"),
      kernel(1, 8, "0", "10", "gemm"),
      kernel(1, 9, "5", "10", "gemm"),
      kernel(0, 3, "0", "1", "gemm"),
      "{\"name\":\"cpu\",\"ph\":\"X\",\"pid\":5,\"tid\":500,\"ts\":0,\"dur\":1}",
      "{\"name\":\"cpu\",\"ph\":\"X\",\"pid\":5,\"tid\":900.0,\"ts\":0,\"dur\":1}",
  }));
  const auto& events = c.events();
  // base = 500 + 1000; pid 0 first: compute lane 1500; pid 1: compute lanes
  // 1501, 1502, then all-gather 1503.
  CHECK(events[3]["tid"].GetInt64() == 1500);
  CHECK(events[1]["tid"].GetInt64() == 1501);
  CHECK(events[2]["tid"].GetInt64() == 1502);
  CHECK(events[0]["tid"].GetInt64() == 1503);
  CHECK(events[0]["args"]["stream"].GetInt64() == 1503);
  CHECK(c.summary["compacted_lanes"].GetInt() == 4);
  CHECK(c.summary["lanes_by_group"]["compute"].GetInt() == 3);
}

TEST_CASE("annotations go to the track of the nearest slice with ties to the earlier",
          "[annotations]") {
  // Two slices of one old stream land on two lanes: stream 2 keeps lane 0 busy.
  const auto c = compact(trace({
      kernel(0, 1, "0", "10"), kernel(0, 1, "20", "10"), kernel(0, 2, "15", "10"),
      annotation(0, 1, "15", "1", "midway"),      // 5 from both: the earlier slice
      annotation(0, 1, "20", "1", "at_start"),    // inside the second slice
      annotation(0, 1, "10", "1", "at_end"),      // inside the first (end inclusive)
      annotation(0, 1, "100", "1", "far_after"),  // nearest: the last slice
  }));
  const int64_t first_lane = c.events()[0]["tid"].GetInt64();
  const int64_t second_lane = c.events()[1]["tid"].GetInt64();
  REQUIRE(first_lane != second_lane);
  auto track_of = [&](const char* name) {
    return find_event(c, name, "gpu_user_annotation")->operator[]("tid").GetInt64();
  };
  // Annotation tracks follow lanes in (pid, tid) order.
  CHECK(track_of("midway") == track_of("at_end"));
  CHECK(track_of("at_start") == track_of("far_after"));
  CHECK(track_of("midway") != track_of("at_start"));
  CHECK(c.summary["gpu_annotations_mapped"].GetInt() == 4);
}

TEST_CASE("identical overlapping or touching annotations coalesce", "[coalescing]") {
  const auto c = compact(trace({
      kernel(0, 1, "0", "100"), kernel(0, 2, "200", "100"),
      annotation(0, 1, "10", "5", "step", "{\"External id\":1}"),
      annotation(0, 1, "12", "10", "step", "{\"External id\":1}"),
      annotation(0, 1, "22", "3", "step", "{\"External id\":1}"),  // touches the cluster end
      annotation(0, 1, "50", "1", "step", "{\"External id\":1}"),  // a new cluster
      annotation(0, 1, "10", "5", "step", "{\"External id\":2}"),  // other identity
  }));
  CHECK(c.summary["gpu_annotations_coalesced"].GetInt() == 2);
  const auto& merged = c.events()[2];
  CHECK(merged["ts"].GetDouble() == 10.0);
  CHECK(merged["dur"].GetDouble() == 15.0);
  CHECK(count_named(c, "step") == 3);
}

TEST_CASE("int and float spellings are distinct identities but float spellings are not",
          "[coalescing]") {
  const auto ints_and_floats = compact(trace({
      kernel(0, 1, "0", "100"),
      annotation(0, 1, "10", "5", "a", "{\"v\":1}"),
      annotation(0, 1, "11", "5", "a", "{\"v\":1.0}"),
  }));
  CHECK(ints_and_floats.summary["gpu_annotations_coalesced"].GetInt() == 0);
  const auto float_spellings = compact(trace({
      kernel(0, 1, "0", "100"),
      annotation(0, 1, "10", "5", "a", "{\"v\":1.0,\"w\":[1e0]}"),
      annotation(0, 1, "11", "5", "a", "{\"w\":[10e-1],\"v\":1.00}"),
  }));
  CHECK(float_spellings.summary["gpu_annotations_coalesced"].GetInt() == 1);
  const auto negative_zero = compact(trace({
      kernel(0, 1, "0", "100"),
      annotation(0, 1, "10", "5", "a", "{\"v\":-0.0}"),
      annotation(0, 1, "11", "5", "a", "{\"v\":0.0}"),
  }));
  CHECK(negative_zero.summary["gpu_annotations_coalesced"].GetInt() == 0);
  const auto repeated_key = compact(trace({
      kernel(0, 1, "0", "100"),
      annotation(0, 1, "10", "5", "a", "{\"v\":2,\"v\":1}"),
      annotation(0, 1, "11", "5", "a", "{\"v\":1}"),
  }));
  CHECK(repeated_key.summary["gpu_annotations_coalesced"].GetInt() == 1);
}

TEST_CASE("member order is no part of an identity, in small and large objects", "[coalescing]") {
  // Objects of up to 16 members and larger ones are sorted by different code;
  // `members` counts those of the object with a repeated key.
  for (const int members : {3, 16, 17, 40}) {
    INFO(members << " members");
    auto member = [](int k, int value) {
      return "\"k" + std::to_string(k) + "\":" + std::to_string(value);
    };
    std::string forward, backward;
    for (int k = 1; k < members - 1; ++k) forward += "," + member(k, k);
    for (int k = members - 2; k >= 1; --k) backward += member(k, k) + ",";
    const auto c = compact(trace({
        kernel(0, 1, "0", "100"),
        annotation(0, 1, "10", "5", "a", "{" + member(0, 0) + forward + "}"),
        annotation(0, 1, "11", "5", "a", "{" + backward + member(0, 0) + "}"),
        // A repeated key keeps its last value: this is the same identity.
        annotation(0, 1, "12", "5", "a", "{" + member(0, 7) + forward + "," + member(0, 0) + "}"),
        // Another identity: k0 is 8.
        annotation(0, 1, "13", "5", "a", "{" + member(0, 8) + forward + "}"),
    }));
    CHECK(c.summary["gpu_annotations_coalesced"].GetInt() == 2);
  }
}

TEST_CASE("per-kernel names become spans and an unnamed kernel cuts the run", "[spans]") {
  const auto c = compact(trace({
      kernel(0, 1, "0", "10", "k", ",\"name\":\"PP:0F0\""),
      kernel(0, 1, "10", "10", "k", ",\"name\":\"PP:0F0\""),
      kernel(0, 1, "20", "10", "k"),
      kernel(0, 1, "30", "10", "k", ",\"name\":\"PP:0F0\""),
      kernel(0, 1, "40", "5", "k", ",\"name\":\"PP:0B0\""),
      kernel(0, 1, "45", "5", "k", ",\"name\":\"\""),
  }));
  CHECK(c.summary["kernel_annotations_converted"].GetInt() == 4);
  CHECK(c.summary["kernel_annotation_blocks"].GetInt() == 3);
  // Spans follow the six kept events.
  const auto& events = c.events();
  CHECK(std::string(events[6]["name"].GetString()) == "PP:0F0");
  CHECK(events[6]["ts"].GetDouble() == 0.0);
  CHECK(events[6]["dur"].GetDouble() == 20.0);
  CHECK(events[7]["ts"].GetDouble() == 30.0);
  CHECK(events[7]["dur"].GetDouble() == 10.0);
  CHECK(std::string(events[8]["name"].GetString()) == "PP:0B0");
  // Kernels keep their args.name.
  CHECK(std::string(events[0]["args"]["name"].GetString()) == "PP:0F0");
}

TEST_CASE("spans order equal starts by duration even where the ends round equal", "[spans]") {
  // At ts 1e9 a duration of 1e-9 is below half an ulp: both kernels end at 1e9,
  // share a lane (zero length), and pack in event order, but spans walk the lane
  // by (start, dur): the zero-length "b" comes first.
  const auto c = compact(trace({
      kernel(0, 1, "1000000000", "1e-9", "k", ",\"name\":\"a\""),
      kernel(0, 1, "1000000000", "0", "k", ",\"name\":\"b\""),
  }));
  REQUIRE(c.summary["compacted_lanes"].GetInt() == 1);
  REQUIRE(c.summary["kernel_annotation_blocks"].GetInt() == 2);
  const auto& events = c.events();
  CHECK(std::string(events[2]["name"].GetString()) == "b");
  CHECK(std::string(events[3]["name"].GetString()) == "a");
}

TEST_CASE("flows land on the last slice starting at their ts", "[flows]") {
  const auto c = compact(trace({
      kernel(0, 1, "5", "10"),
      kernel(0, 1, "5", "0"),
      kernel(0, 2, "5", "1"),
      flow(0, 1, "5", 7),
  }));
  CHECK(c.summary["gpu_flow_endpoints_mapped"].GetInt() == 1);
  CHECK(c.events()[3]["tid"].GetInt64() == c.events()[1]["tid"].GetInt64());
}

// Events read on demand (here: an escaped key) with times of more than 19
// digits: simdjson 3.0.1's on-demand numbers gave 0 for those.
TEST_CASE("a slice read on demand keeps a long ts, and its flow lands on it", "[flows]") {
  const auto c = compact(trace({
      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
      "\"\\u0074s\":1234567890277.956000,\"dur\":1.0000000000000000000,\"args\":{\"stream\":7}}",
      kernel(0, 8, "1234567890277.956", "1"),
      flow(0, 7, "1234567890277.956", 7),
  }));
  CHECK(c.summary["gpu_flow_endpoints_mapped"].GetInt() == 1);
  CHECK(c.events()[2]["tid"].GetInt64() == c.events()[0]["tid"].GetInt64());
  // Overlapping, so the two slices take two lanes.
  CHECK(c.events()[0]["tid"].GetInt64() != c.events()[1]["tid"].GetInt64());
}

TEST_CASE("old stream metadata is dropped while other tracks keep theirs", "[metadata]") {
  const auto c = compact(trace({
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":1,\"args\":{\"name\":\"stream "
      "1\"}}",
      "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":99,\"args\":{\"name\":\"cpu\"}}",
      kernel(0, 1, "0", "1"),
  }));
  CHECK(count_named(c, "thread_name") == 2);  // the CPU thread's and the lane's
  CHECK(std::string(c.events()[0]["args"]["name"].GetString()) == "cpu");
}

TEST_CASE("an annotation on an old stream with a non-numeric ts is reported by its event index",
          "[annotations]") {
  // Annotations off the old streams and events between them: the message must
  // count every event, not the annotations.
  const std::string text = trace({
      kernel(0, 1, "0", "10"),
      annotation(0, 99, "\"late\"", "1", "elsewhere"),  // not on an old stream: passed through
      "{\"name\":\"cpu\",\"ph\":\"X\",\"pid\":5,\"tid\":500,\"ts\":0,\"dur\":1}",
      annotation(0, 1, "5", "1", "fine"),
      annotation(0, 1, "\"5\"", "1", "bad"),
  });
  REQUIRE_THROWS_WITH(compact(text), Catch::Contains("GPU annotation 4 has a non-numeric ts"));
}

TEST_CASE("an integer tid from 2^63 refuses the lanes above it, while such a pid passes through",
          "[tids]") {
  // Spec 0 calls 9223372036854775813 an integer, so spec 4's lanes would go above
  // it: beyond the tool's 64-bit tids, as on the parse from the tape and on demand.
  const std::string big_args = ",\"args\":{\"pad\":\"" + std::string(70000, 'x') + "\"}";
  for (const std::string& args : {std::string(), big_args}) {
    INFO("args of " << args.size() << " bytes");
    const std::string cpu_event =
        "{\"name\":\"cpu\",\"ph\":\"X\",\"pid\":5,\"tid\":9223372036854775813,\"ts\":0,"
        "\"dur\":1" +
        args + "}";
    REQUIRE_THROWS_WITH(compact(trace({kernel(0, 1, "0", "10"), cpu_event})),
                        "thread ids too large: lane tids above tid 9223372036854775813 do not "
                        "fit in 64 bits");
  }
  // A pid is not counted in a single trace: the event passes through as written.
  const auto c = compact(trace({kernel(0, 1, "0", "10"),
                                "{\"name\":\"cpu\",\"ph\":\"X\",\"pid\":9223372036854775813,"
                                "\"tid\":2,\"ts\":0,\"dur\":1}"}));
  CHECK(c.events()[1]["pid"].GetUint64() == 9223372036854775813ull);
  CHECK(c.events()[0]["tid"].GetInt64() == 1002);  // base: tid 2 + 1000
}

TEST_CASE("PP pairing ranks rounded distances as doubles, ties by destination", "[pp]") {
  // A compute block near 100 us and 33 SEND blocks near 1.7e15 us (real
  // profiler clocks): at that size neighbouring midpoints round to the same
  // distance, and the tie goes to the earlier destination (tid 100), not to the
  // nearer one in exact arithmetic (tid 102).
  std::vector<std::string> events = {
      kernel(0, 1, "101.125", "0", "gemm", ",\"name\":\"PP:0F0\""),
      kernel(0, 1, "101.5", "0"),
      kernel(0, 1, "102.25", "0", "gemm", ",\"name\":\"PP:0F0\""),
  };
  for (int i = 0; i < 33; ++i)
    events.push_back(
        annotation(0, 100 + i, "1712195495518999.0", i == 0 ? "0.5" : "0", "PP:0SEND_F0"));
  const auto c = compact(trace(events));
  std::vector<int64_t> destination_tids;
  for (const auto& e : c.events().GetArray())
    if (e.HasMember("cat") && std::string(e["cat"].GetString()) == "pp_compute_dependency" &&
        std::string(e["ph"].GetString()) == "f")
      destination_tids.push_back(e["tid"].GetInt64());
  CHECK(destination_tids == std::vector<int64_t>{101, 100});
}
