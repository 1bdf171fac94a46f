// --verify: each of its checks fails on an output that breaks it, and passes
// the same output put right, so that a check that could never fail shows here.
// The outputs are written by hand: the verifier judges any file against the
// input.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "source/trace_input.h"
#include "support/json_compare.h"
#include "support/temp_dir.h"
#include "support/trace_builder.h"
#include "tracecompact/error.h"
#include "verify/verifier.h"

using namespace testsupport;

namespace tracecompact {
namespace {

// Two kernels on old streams 7 and 8; the outputs below move them to lanes.
const std::string kInput = trace({kernel(0, 7, "0", "10"), kernel(0, 8, "5", "10")});

// Verifies `output_events` (as an output trace) against kInput; returns the
// failure's message, or "" when it passes. The verifier only reads the output:
// removing a failed one is for the OutputFile it was not yet committed from.
std::string verify(const std::vector<std::string>& output_events,
                   const std::string& input_text = kInput) {
  TempDir dir;
  const std::string path = dir.path("out.json");
  write_file(path, trace(output_events));
  const auto input = TraceInput::from_memory(input_text);
  try {
    verify_single_output(input, path);
  } catch (const Error& error) {
    CHECK(std::filesystem::exists(path));
    return error.what();
  }
  CHECK(std::filesystem::exists(path));
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("verify passes an output that keeps the slices and packs them apart") {
  CHECK(verify({kernel(0, 1001, "0", "10"), kernel(0, 1002, "5", "10")}).empty());
  // Touching slices share a lane.
  CHECK(verify({kernel(0, 1001, "0", "10"), kernel(0, 1001, "10", "10")},
               trace({kernel(0, 7, "0", "10"), kernel(0, 8, "10", "10")}))
            .empty());
}

TEST_CASE("verify fails an output whose slices changed") {
  CHECK(contains(verify({kernel(0, 1001, "0", "11"), kernel(0, 1002, "5", "10")}),
                 "verification failed: measured GPU slice 0 changed"));
  CHECK(contains(verify({kernel(0, 1001, "0", "10"), kernel(0, 1002, "6", "10")}),
                 "measured GPU slice 1 changed"));
  CHECK(contains(verify({kernel(1, 1001, "0", "10"), kernel(0, 1002, "5", "10")}),
                 "measured GPU slice 0 changed"));
  CHECK(contains(verify({kernel(0, 1001, "0", "10", "gemv"), kernel(0, 1002, "5", "10")}),
                 "measured GPU slice 0 changed"));
  CHECK(contains(
      verify({kernel(0, 1001, "0", "10"), kernel(0, 1002, "5", "10", "gemm", ",\"grid\":[1,1,2]")}),
      "measured GPU slice 1 changed"));
}

TEST_CASE("verify fails an output with slices missing or added") {
  CHECK(contains(verify({kernel(0, 1001, "0", "10")}), "lacks measured slices"));
  CHECK(contains(
      verify({kernel(0, 1001, "0", "10"), kernel(0, 1002, "5", "10"), kernel(0, 1003, "5", "10")}),
      "more measured slices than the input"));
}

TEST_CASE("verify fails a lane with overlapping slices or a tid that is not its stream") {
  CHECK(contains(verify({kernel(0, 1001, "0", "10"), kernel(0, 1001, "5", "10")}),
                 "compacted lane (0, 1001) contains overlapping slices"));
  const std::string moved_tid_only =
      "{\"name\":\"gemm\",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":0,\"tid\":1002,\"ts\":5,"
      "\"dur\":10,\"args\":{\"stream\":8}}";
  CHECK(contains(verify({kernel(0, 1001, "0", "10"), moved_tid_only}),
                 "output slice at event 1 has tid != args.stream"));
}

TEST_CASE("verify fails a track with overlapping copies of one annotation") {
  const std::vector<std::string> slices = {kernel(0, 1001, "0", "10"), kernel(0, 1002, "5", "10")};
  auto with = [&](std::vector<std::string> annotations) {
    std::vector<std::string> events = slices;
    events.insert(events.end(), annotations.begin(), annotations.end());
    return verify(events);
  };
  CHECK(contains(with({annotation(0, 2001, "0", "5", "step", "{\"a\":1}"),
                       annotation(0, 2001, "3", "5", "step", "{\"a\":1}")}),
                 "annotation track (0, 2001) holds overlapping copies of one annotation"));
  // Copies apart, other tracks, other args, or spans (empty args) may overlap;
  // so may an annotation with a negative dur, which is no coalescing candidate
  // (spec 6): the reference leaves it where it is, inside or at the start of an
  // identical candidate.
  const std::string args = "{\"a\":1}";
  const std::vector<std::vector<std::string>> allowed = {
      {annotation(0, 2001, "0", "3", "step", args), annotation(0, 2001, "3", "5", "step", args)},
      {annotation(0, 2001, "0", "5", "step", args), annotation(0, 2002, "3", "5", "step", args)},
      {annotation(0, 2001, "0", "5", "step", args),
       annotation(0, 2001, "3", "5", "step", "{\"a\":2}")},
      {annotation(0, 2001, "0", "5", "step"), annotation(0, 2001, "3", "5", "step")},
      {annotation(0, 2001, "0", "5", "step", args), annotation(0, 2001, "3", "-0.5", "step", args)},
      {annotation(0, 2001, "3", "-0.5", "step", args), annotation(0, 2001, "3", "5", "step", args)},
  };
  for (const auto& annotations : allowed) CHECK(with(annotations).empty());
}

TEST_CASE("verify fails a GPU flow that misses the slice starts of its lane") {
  const std::vector<std::string> slices = {kernel(0, 1001, "0", "10"), kernel(0, 1002, "5", "10")};
  auto with = [&](const std::string& flow_event) {
    std::vector<std::string> events = slices;
    events.push_back(flow_event);
    return verify(events);
  };
  CHECK(contains(with(flow(0, 1001, "3", 1)),
                 "GPU flow at event 2 does not land on a slice start of its lane"));
  CHECK(with(flow(0, 1001, "0", 1)).empty());
  CHECK(with(flow(0, 1002, "5", 1)).empty());
  CHECK(with(flow(0, 55, "3", 1)).empty());  // not on a lane: not judged
}

TEST_CASE("verify reports a fault in the input after the slices before it") {
  const std::string input = "{\"traceEvents\":[" + kernel(0, 7, "0", "10") + ",{\"ph\":tru}]}";
  const std::string fault = verify({kernel(0, 1001, "0", "10")}, input);
  CHECK_FALSE(fault.empty());
  CHECK_FALSE(contains(fault, "verification failed"));
  // A changed slice before the fault is what is reported.
  CHECK(contains(verify({kernel(0, 1001, "0", "11")}, input), "measured GPU slice 0 changed"));
}

TEST_CASE("verify follows the input's slices across its batches") {
  // 20 000 slices: five batches of up to 4096, more than the reader may have
  // waiting, so the reader also waits for room (and is stopped while it waits).
  constexpr int kSlices = 20000;
  std::vector<std::string> input_events, output_events;
  for (int i = 0; i < kSlices; ++i) {
    input_events.push_back(kernel(0, 7, std::to_string(i * 10), "5"));
    output_events.push_back(kernel(0, 1001, std::to_string(i * 10), "5"));
  }
  const std::string input = trace(input_events);
  CHECK(verify(output_events, input).empty());
  for (const int changed : {0, 4096, kSlices - 1}) {
    auto altered = output_events;
    altered[static_cast<size_t>(changed)] = kernel(0, 1001, std::to_string(changed * 10), "6");
    CHECK(contains(verify(altered, input),
                   "measured GPU slice " + std::to_string(changed) + " changed"));
  }
  auto shorter = output_events;
  shorter.pop_back();
  CHECK(contains(verify(shorter, input), "lacks measured slices"));
}

}  // namespace tracecompact
