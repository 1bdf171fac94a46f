// Merge mode (spec 11): rank discovery and ordering, checks, and arrow counting.
#include <catch2/catch.hpp>

#include <rapidjson/document.h>

#include <filesystem>
#include <set>

#include "merge/rank_files.h"
#include "support/json_compare.h"
#include "support/temp_dir.h"
#include "support/trace_builder.h"
#include "tracecompact/tracecompact.h"

using namespace testsupport;

namespace {

std::string rank_trace(int global_rank, const std::string& groups, const std::string& base_time,
                       const std::vector<std::string>& extra_events = {}) {
  std::vector<std::string> events = {kernel(0, 7, "1000", "10")};
  events.insert(events.end(), extra_events.begin(), extra_events.end());
  std::string top =
      ",\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":" + std::to_string(global_rank) +
      ",\"pg_config\":[" + groups + "]}";
  if (!base_time.empty()) top += ",\"baseTimeNanoseconds\":" + base_time;
  return trace(events, top);
}

std::string mesh_pp(const std::string& ranks) {
  return "{\"pg_name\":\"2\",\"pg_desc\":\"mesh_pp\",\"ranks\":[" + ranks + "]}";
}

struct MergeRun {
  rapidjson::Document summary;
  rapidjson::Document output;
};

MergeRun merge(const TempDir& dir, std::optional<std::string> ranks = std::nullopt,
               unsigned threads = 0) {
  tracecompact::Options options;
  options.input = dir.root().string();
  options.merge_pp_ranks = true;
  options.output = dir.path("out/merged.json");
  options.overwrite = true;
  options.verify = true;
  options.ranks = ranks;
  options.threads = threads;
  MergeRun run;
  run.summary.Parse(tracecompact::run(options).summary_json.c_str());
  run.output.Parse(read_file(dir.path("out/merged.json")).c_str());
  return run;
}

std::string merge_error(const TempDir& dir, std::optional<std::string> ranks = std::nullopt) {
  try {
    merge(dir, ranks);
  } catch (const tracecompact::Error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<int> pp_order(const MergeRun& run) {
  std::vector<int> order;
  for (const auto& r : run.summary["pp_ranks"].GetArray())
    order.push_back(r["global_rank"].GetInt());
  return order;
}

}  // namespace

TEST_CASE("PP ranks follow the mesh_pp group when it holds every rank", "[merge]") {
  TempDir dir;
  write_file(dir.path("rank0_trace.json"), rank_trace(0, mesh_pp("4, 0"), "1000"));
  write_file(dir.path("rank4_trace.json"), rank_trace(4, mesh_pp("4, 0"), "3000"));
  const auto run = merge(dir);
  CHECK(pp_order(run) == std::vector<int>{4, 0});
  CHECK(run.summary["time_offsets_us"]["0"].GetDouble() == 0.0);
  CHECK(run.summary["time_offsets_us"]["4"].GetDouble() == 2.0);
  CHECK(run.output["baseTimeNanoseconds"].GetInt64() == 1000);
  CHECK(run.output["distributedInfo"]["pp_rank_count"].GetInt() == 2);
  CHECK(run.summary["verified"].GetBool());
}

TEST_CASE("PP ranks fall back to sorted global ranks without a usable group", "[merge]") {
  TempDir dir;
  SECTION("no PP group") {
    write_file(dir.path("rank8_trace.json"), rank_trace(8, "", "1000"));
    write_file(dir.path("rank2_trace.json"), rank_trace(2, "", "1000"));
  }
  SECTION("a PP group that misses a rank") {
    write_file(dir.path("rank8_trace.json"), rank_trace(8, mesh_pp("8, 5"), "1000"));
    write_file(dir.path("rank2_trace.json"), rank_trace(2, mesh_pp("8, 5"), "1000"));
  }
  CHECK(pp_order(merge(dir)) == std::vector<int>{2, 8});
}

TEST_CASE("rank gaps keep PP positions from the group", "[merge]") {
  TempDir dir;
  write_file(dir.path("rank0_trace.json"), rank_trace(0, mesh_pp("0, 2, 4, 6"), "0"));
  write_file(dir.path("rank4_trace.json"), rank_trace(4, mesh_pp("0, 2, 4, 6"), "0"));
  const auto run = merge(dir);
  CHECK(run.summary["pp_ranks"][1]["pp_rank"].GetInt() == 2);
}

TEST_CASE("merge refuses inconsistent rank sets", "[merge]") {
  TempDir dir;
  SECTION("duplicate distributed ranks") {
    write_file(dir.path("rank0_trace.json"), rank_trace(3, "", "1"));
    write_file(dir.path("rank1_trace.json"), rank_trace(3, "", "1"));
    CHECK(merge_error(dir) == "PP traces contain duplicate distributed ranks (rank 3 in " +
                                  dir.path("rank0_trace.json") + " and " +
                                  dir.path("rank1_trace.json") + ")");
  }
  SECTION("missing base time") {
    write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
    write_file(dir.path("rank1_trace.json"), rank_trace(1, "", ""));
    CHECK(merge_error(dir) == "all PP traces must contain integer baseTimeNanoseconds (in " +
                                  dir.path("rank1_trace.json") + ")");
  }
  SECTION("float base time") {
    write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
    write_file(dir.path("rank1_trace.json"), rank_trace(1, "", "1.0"));
    CHECK(merge_error(dir) == "all PP traces must contain integer baseTimeNanoseconds (in " +
                                  dir.path("rank1_trace.json") + ")");
  }
  SECTION("a base time beyond 64 bits") {
    write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
    write_file(dir.path("rank1_trace.json"), rank_trace(1, "", "20000000000000000000"));
    CHECK(merge_error(dir) ==
          "baseTimeNanoseconds: the integer 20000000000000000000 does not fit in 64 bits (in " +
              dir.path("rank1_trace.json") + ")");
  }
  SECTION("missing distributedInfo") {
    write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
    write_file(dir.path("rank1_trace.json"),
               trace({kernel(0, 1, "0", "1")}, ",\"baseTimeNanoseconds\":1"));
    CHECK(merge_error(dir) ==
          "trace is missing distributedInfo (in " + dir.path("rank1_trace.json") + ")");
  }
  SECTION("a bad file name") {
    write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
    write_file(dir.path("rankX_trace.json"), rank_trace(1, "", "1"));
    CHECK(merge_error(dir) == "invalid PP trace filename: rankX_trace.json");
  }
  SECTION("one rank number twice") {
    write_file(dir.path("rank1_trace.json"), rank_trace(0, "", "1"));
    write_file(dir.path("rank01_trace.json"), rank_trace(1, "", "1"));
    CHECK(merge_error(dir).find("two traces for rank 1") == 0);
  }
  SECTION("fewer than two ranks") {
    write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
    CHECK(merge_error(dir) == "found fewer than two rank traces in " + dir.root().string());
  }
  SECTION("an integer pid from 2^63, which the merge would renumber") {
    write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
    write_file(dir.path("rank1_trace.json"),
               rank_trace(1, "", "1",
                          {"{\"name\":\"cpu\",\"ph\":\"X\",\"pid\":9223372036854775813,"
                           "\"tid\":2,\"ts\":0,\"dur\":1}"}));
    CHECK(merge_error(dir) == dir.path("rank1_trace.json") +
                                  ": event 1: pid: the integer 9223372036854775813 does not fit "
                                  "in 64 bits (a merge renumbers integer pids)");
  }
}

TEST_CASE("a fault inside one rank names that rank's file", "[merge]") {
  TempDir dir;
  write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
  SECTION("in pass 1") {
    write_file(dir.path("rank1_trace.json"),
               rank_trace(1, "", "1", {"{\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":0}"}));
    CHECK(merge_error(dir) ==
          "GPU slice 1 lacks pid/tid/ts/dur/stream (in " + dir.path("rank1_trace.json") + ")");
  }
  SECTION("in pass 2, where GPU flows are mapped") {
    write_file(dir.path("rank1_trace.json"),
               rank_trace(1, "", "1",
                          {"{\"cat\":\"ac2g\",\"ph\":\"f\",\"id\":1,\"pid\":0,\"tid\":7,"
                           "\"ts\":999,\"bp\":\"e\"}"}));
    CHECK(merge_error(dir) ==
          "mapped 0/1 GPU ac2g flow endpoints (in " + dir.path("rank1_trace.json") + ")");
  }
  SECTION("not twice where the message names it already") {
    // Only the 10-byte gzip header: gzip errors name their file.
    write_file(dir.path("rank1_trace.json.gz"), std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10));
    CHECK(merge_error(dir) ==
          dir.path("rank1_trace.json.gz") + ": gzip data is truncated (unexpected end of file)");
  }
}

// The writer asked whether every rank had been read after waiting for the first;
// a rank failing in between counted as read, and the arrows were then drawn
// from its missing plan (a crash in about one run of twenty). Timing decides,
// so the merge runs many times.
TEST_CASE("a rank failing while the first is written stops the merge with its error", "[merge]") {
  TempDir dir;
  write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
  write_file(dir.path("rank1_trace.json"),
             rank_trace(1, "", "1", {"{\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":0}"}));
  const std::string expected =
      "GPU slice 1 lacks pid/tid/ts/dur/stream (in " + dir.path("rank1_trace.json") + ")";
  int same_error = 0;
  constexpr int kRuns = 200;
  for (int run = 0; run < kRuns; ++run) same_error += merge_error(dir) == expected;
  CHECK(same_error == kRuns);
}

// The reference looks these up in sets, where Python cannot hash an array or an
// object: every event's cat, and in a merge every event's ph and every metadata
// event's name (a single trace looks names up only with integer pid and tid).
TEST_CASE("a merge refuses an array or object where the reference hashes the value", "[merge]") {
  TempDir dir;
  write_file(dir.path("rank0_trace.json"), rank_trace(0, "", "1"));
  const std::string cpu_event_with_ph_list =
      "{\"name\":\"op\",\"cat\":\"cpu_op\",\"ph\":[\"X\"],\"pid\":1,\"tid\":1,\"ts\":1}";
  const std::string metadata_with_name_list_on_pid_string =
      "{\"name\":[\"thread_name\"],\"ph\":\"M\",\"pid\":\"main\",\"tid\":1,\"args\":{}}";
  SECTION("ph") {
    write_file(dir.path("rank1_trace.json"), rank_trace(1, "", "1", {cpu_event_with_ph_list}));
    CHECK(merge_error(dir) == "event 1 has a ph that is an array; expected a string (in " +
                                  dir.path("rank1_trace.json") + ")");
  }
  SECTION("a metadata name, whatever its pid") {
    write_file(dir.path("rank1_trace.json"),
               rank_trace(1, "", "1", {metadata_with_name_list_on_pid_string}));
    CHECK(merge_error(dir) ==
          "metadata event 1 has a name that is an array; expected a string (in " +
              dir.path("rank1_trace.json") + ")");
  }
  SECTION("cat") {
    write_file(
        dir.path("rank1_trace.json"),
        rank_trace(1, "", "1", {"{\"name\":\"op\",\"cat\":{\"a\":1},\"ph\":\"X\",\"pid\":1}"}));
    CHECK(merge_error(dir) == "event 1 has a cat that is an object; expected a string (in " +
                                  dir.path("rank1_trace.json") + ")");
  }
  SECTION("a single trace takes that ph and that name (it hashes neither)") {
    write_file(dir.path("one.json"), trace({kernel(0, 7, "1000", "10"), cpu_event_with_ph_list,
                                            metadata_with_name_list_on_pid_string}));
    tracecompact::Options options;
    options.input = dir.path("one.json");
    options.output = dir.path("one_out.json");
    CHECK_NOTHROW(tracecompact::run(options));
  }
}

TEST_CASE("rank files: zero padding of any length, a missing folder, a folder for a file",
          "[merge]") {
  TempDir dir;
  write_file(dir.path("rank0000000000000000000000_trace.json"), rank_trace(0, "", "1"));
  write_file(dir.path("rank4_trace.json"), rank_trace(4, "", "1"));
  CHECK(pp_order(merge(dir)) == std::vector<int>{0, 4});

  // A folder that is not there holds no rank traces.
  tracecompact::Options options;
  options.input = dir.path("gone/rank0_trace.json");
  options.merge_pp_ranks = true;
  options.output = dir.path("gone.json");
  try {
    tracecompact::run(options);
    FAIL("no error");
  } catch (const tracecompact::Error& e) {
    CHECK(std::string(e.what()) == "found fewer than two rank traces in " + dir.path("gone"));
  }

  std::filesystem::create_directory(dir.path("rank8_trace.json"));
  CHECK(merge_error(dir) == "cannot read " + dir.path("rank8_trace.json") + ": is a folder");
}

TEST_CASE("rank selection keeps only the listed ranks of the folder", "[merge]") {
  TempDir dir;
  for (int r : {0, 4, 8})
    write_file(dir.path("rank" + std::to_string(r) + "_trace.json"), rank_trace(r, "", "1"));
  CHECK(pp_order(merge(dir, "0,8")) == std::vector<int>{0, 8});
  CHECK(pp_order(merge(dir, "4-8")) == std::vector<int>{4, 8});
  CHECK(merge_error(dir, "4") == "found fewer than two rank traces in " + dir.root().string());
}

TEST_CASE("a rank range may end at the largest 64-bit number", "[merge]") {
  // The range's loop stops at its end instead of wrapping around to 0.
  const uint64_t last = UINT64_MAX;
  CHECK(tracecompact::parse_rank_selection("18446744073709551614-18446744073709551615") ==
        std::set<uint64_t>{last - 1, last});
  CHECK(tracecompact::parse_rank_selection("18446744073709551615-18446744073709551615") ==
        std::set<uint64_t>{last});
}

TEST_CASE("a send whose receive lies outside the window is unmatched and draws nothing",
          "[merge]") {
  TempDir dir;
  // Stage 0 sends at 100-110; stage 1's receive ended at 60, so no arrow can point forward.
  write_file(dir.path("rank0_trace.json"),
             rank_trace(0, mesh_pp("0, 1"), "0", {annotation(0, 7, "100", "10", "PP:0SEND_F0")}));
  write_file(dir.path("rank1_trace.json"),
             rank_trace(1, mesh_pp("0, 1"), "0", {annotation(0, 7, "50", "10", "PP:1RECV_F0")}));
  const auto run = merge(dir);
  CHECK(run.summary["pp_send_recv_pairs"].GetInt() == 0);
  CHECK(run.summary["pp_send_recv_unmatched"].GetInt() == 2);
  for (const auto& e : run.output["traceEvents"].GetArray())
    CHECK_FALSE((e.HasMember("cat") && std::string(e["cat"].GetString()) == "pp_send_recv"));
}

TEST_CASE("a send of the last 64-bit stage finds no stage after it", "[merge]") {
  // stage + 1 must not wrap around to stage 0's receive.
  TempDir dir;
  write_file(dir.path("rank0_trace.json"),
             rank_trace(0, mesh_pp("0, 1"), "0",
                        {annotation(0, 7, "100", "10", "PP:18446744073709551615SEND_F0")}));
  write_file(dir.path("rank1_trace.json"),
             rank_trace(1, mesh_pp("0, 1"), "0", {annotation(0, 7, "200", "30", "PP:0RECV_F0")}));
  const auto run = merge(dir);
  CHECK(run.summary["pp_send_recv_pairs"].GetInt() == 0);
  CHECK(run.summary["pp_send_recv_unmatched"].GetInt() == 2);
}

TEST_CASE("a matched send draws one arrow strictly forward", "[merge]") {
  TempDir dir;
  write_file(dir.path("rank0_trace.json"),
             rank_trace(0, mesh_pp("0, 1"), "0", {annotation(0, 7, "100", "10", "PP:0SEND_F0")}));
  write_file(dir.path("rank1_trace.json"),
             rank_trace(1, mesh_pp("0, 1"), "0", {annotation(0, 7, "100", "30", "PP:1RECV_F0")}));
  const auto run = merge(dir);
  CHECK(run.summary["pp_send_recv_pairs"].GetInt() == 1);
  CHECK(run.summary["pp_send_recv_unmatched"].GetInt() == 0);
  int arrows = 0;
  for (const auto& e : run.output["traceEvents"].GetArray()) {
    if (!e.HasMember("cat") || std::string(e["cat"].GetString()) != "pp_send_recv") continue;
    ++arrows;
    if (std::string(e["ph"].GetString()) == "f") CHECK(e["ts"].GetDouble() > 100.0);
  }
  CHECK(arrows == 2);
}

namespace {

// A rank with `steps` of kernels on a few streams, their flows, PP annotations
// and CPU events: about 330 bytes a step.
std::string sized_rank_trace(int global_rank, int steps) {
  const std::string op = global_rank == 0 ? "SEND_F" : "RECV_F";
  const auto events = pp_rank_events(steps, 6, [&](int step) {
    return "PP:" + std::to_string(global_rank) + op + std::to_string(step);
  });
  return rank_trace(global_rank, mesh_pp("0, 1"), std::to_string(5000 + global_rank), events);
}

}  // namespace

// Ranks large enough to be read on worker threads: with more threads than ranks,
// or once the smaller rank is done, its core goes to the larger one midway.
TEST_CASE("ranks of unequal size merge to the same bytes on any number of threads", "[merge]") {
  TempDir dir;
  write_file(dir.path("rank0_trace.json"), sized_rank_trace(0, 30000));
  write_file(dir.path("rank1_trace.json"), sized_rank_trace(1, 8000));
  REQUIRE(std::filesystem::file_size(dir.path("rank1_trace.json")) > (size_t{2} << 20));
  const auto one_thread = merge(dir, std::nullopt, 1);
  REQUIRE(one_thread.summary["pp_send_recv_pairs"].GetInt() == 2000);
  const std::string expected = read_file(dir.path("out/merged.json"));
  for (unsigned threads : {2u, 3u, 4u, 8u}) {
    INFO("threads " << threads);
    const auto run = merge(dir, std::nullopt, threads);
    CHECK(run.summary["verified"].GetBool());
    CHECK(read_file(dir.path("out/merged.json")) == expected);
  }
}
