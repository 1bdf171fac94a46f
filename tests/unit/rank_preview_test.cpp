// What a merge reads of a rank ahead of pass 1 (merge/rank_preview.h): the
// values before traceEvents, and in a plain file those after the events too.
// Whatever it finds must be what pass 1 finds, or nothing.
#include <catch2/catch.hpp>

#include <string>

#include "index/index_pass.h"
#include "merge/rank_preview.h"
#include "source/trace_input.h"
#include "support/trace_builder.h"

using namespace testsupport;

namespace tracecompact {
namespace {

const std::string kInfo =
    "{\"backend\":\"nccl\",\"rank\":4,\"pg_config\":[{\"pg_desc\":\"mesh_pp\",\"ranks\":[0,4]}]}";

std::string events() {
  return "[" + kernel(0, 7, "1000", "10") + "," +
         annotation(0, 7, "1000", "5", "PP:1F0 ] , \\\"baseTimeNanoseconds\\\": 9") + "]";
}

// A trace with `head` members before traceEvents and `tail` members after.
std::string layout(const std::string& head, const std::string& tail) {
  return "{\n  " + head + (head.empty() ? "" : ",\n  ") + "\"traceEvents\": " + events() +
         (tail.empty() ? "" : ",\n  " + tail) + "\n}\n";
}

// The preview agrees with pass 1 wherever it answers.
std::optional<TraceMetadata> preview_checked(const TraceInput& input) {
  auto preview = preview_rank_metadata(input);
  if (preview) {
    const TraceMetadata read = read_trace_metadata(build_index(input));
    CHECK(preview->base_time_ns == read.base_time_ns);
    CHECK(preview->rank == read.rank);
    CHECK(preview->backend_json == read.backend_json);
    CHECK(preview->pp_groups.size() == read.pp_groups.size());
  }
  return preview;
}

std::optional<TraceMetadata> preview_of(const std::string& text) {
  return preview_checked(TraceInput::from_memory(text));
}

}  // namespace

TEST_CASE("a rank's layout is read ahead from before and after its events", "[preview]") {
  SECTION("both before traceEvents (Kineto since 2024), plain or gzip") {
    const std::string text = layout("\"schemaVersion\": 1, \"distributedInfo\": " + kInfo +
                                        ", \"baseTimeNanoseconds\": 1700000000000000123",
                                    "\"traceName\": \"rank4_trace.json\"");
    for (const std::string& bytes : {text, gzip_member(text)}) {
      const auto preview = preview_of(bytes);
      REQUIRE(preview);
      CHECK(*preview->base_time_ns == 1700000000000000123);
      CHECK(*preview->rank == 4);
    }
  }
  SECTION("the base after the events (older Kineto), in a plain file") {
    const auto preview = preview_of(
        layout("\"distributedInfo\": " + kInfo,
               "\"traceName\": \"x]\", \"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": 55"));
    REQUIRE(preview);
    CHECK(*preview->base_time_ns == 55);
  }
  SECTION("after the events, behind values that hold brackets") {
    const auto preview =
        preview_of(layout("", "\"baseTimeNanoseconds\": 56, \"distributedInfo\": " + kInfo +
                                  ", \"list\": [[1], [2, [3]]], \"traceName\": \"]]\""));
    REQUIRE(preview);
    CHECK(*preview->base_time_ns == 56);
    CHECK(*preview->rank == 4);
  }
}

TEST_CASE("a rank's layout that cannot be read ahead is left to pass 1", "[preview]") {
  const std::string with_base_after =
      layout("\"distributedInfo\": " + kInfo, "\"baseTimeNanoseconds\": 55");
  // gzip reads only from the start: the base after the events is out of reach.
  CHECK_FALSE(preview_of(gzip_member(with_base_after)));
  CHECK_FALSE(preview_of(layout("\"distributedInfo\": " + kInfo, "")));  // no base
  CHECK_FALSE(preview_of(layout("\"baseTimeNanoseconds\": 55", "")));    // no distributedInfo
  CHECK_FALSE(
      preview_of(layout("\"baseTimeNanoseconds\": 5.5, \"distributedInfo\": " + kInfo, "")));
  CHECK_FALSE(preview_of(
      layout("\"baseTimeNanoseconds\": 55, \"distributedInfo\": {\"rank\": \"4\"}", "")));
  // Given twice: pass 1 refuses the trace, and reports it.
  CHECK_FALSE(preview_rank_metadata(
      TraceInput::from_memory(layout("\"distributedInfo\": " + kInfo,
                                     "\"baseTimeNanoseconds\": 55, \"baseTimeNanoseconds\": 56"))));
  CHECK_FALSE(preview_rank_metadata(TraceInput::from_memory(
      layout("\"distributedInfo\": " + kInfo,
             "\"distributedInfo\": " + kInfo + ", \"baseTimeNanoseconds\": 55"))));
  // Not a trace at all, or cut short.
  CHECK_FALSE(preview_rank_metadata(TraceInput::from_memory("[1, 2]")));
  CHECK_FALSE(preview_rank_metadata(TraceInput::from_memory("{\"baseTimeNanoseconds\": 55, ")));
  CHECK_FALSE(preview_rank_metadata(TraceInput::from_memory("")));
}

}  // namespace tracecompact
