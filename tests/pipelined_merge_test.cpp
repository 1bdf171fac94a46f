// A merge that writes the first ranks while later ones are still read (the
// layout read ahead of pass 1, merge/rank_preview.h) must write exactly what a
// merge that reads every rank first writes: the same bytes, the same summary,
// the same fault, and nothing left behind when it fails.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "merge/merge.h"
#include "support/json_compare.h"
#include "support/temp_dir.h"
#include "support/trace_builder.h"
#include "tracecompact/error.h"

using namespace testsupport;

namespace {

const std::string kGroups = "[{\"pg_name\":\"2\",\"pg_desc\":\"mesh_pp\",\"ranks\":[12,0,4,8]}]";

// A rank of `steps` kernels, flows, CPU events and PP annotations. `base_first`:
// distributedInfo and baseTimeNanoseconds before traceEvents (Kineto since
// 2024), else the base after the events.
std::string rank_trace(int global_rank, int steps, int64_t base, bool base_first,
                       const std::string& last_event = "") {
  auto pp_name = [&](int step) {
    return "PP:" + std::to_string(global_rank / 4) + (step % 8 ? "SEND_F" : "RECV_F") +
           std::to_string(step / 8);
  };
  std::string events;
  for (const std::string& event : pp_rank_events(steps, 5, pp_name)) events += event + ",";
  events += last_event.empty() ? kernel(0, 7, "1", "1") : last_event;
  const std::string info =
      "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":" + std::to_string(global_rank) +
      ",\"pg_config\":" + kGroups + "}";
  const std::string base_member = "\"baseTimeNanoseconds\":" + std::to_string(base);
  if (base_first)
    return "{\"schemaVersion\":1," + info + "," + base_member + ",\"traceEvents\":[" + events +
           "],\"traceName\":\"r\"}";
  return "{" + info + ",\"traceEvents\":[" + events + "],\"traceName\":\"r\"," + base_member + "}";
}

// Rank 0 as write_ranks writes it, but for a PP group that puts rank 4 first
// (rank 0 is the first file, so its group orders the ranks).
std::string rank0_putting_rank4_first(bool base_first) {
  std::string text = rank_trace(0, 3000, 1700000000000000000, base_first);
  text.replace(text.find(kGroups), kGroups.size(),
               "[{\"pg_desc\":\"mesh_pp\",\"ranks\":[4,0,12,8]}]");
  return text;
}

struct Written {
  std::string summary;
  std::string output;
  bool while_reading = false;  // ranks were written while later ones were read
};

tracecompact::MergeRequest request(const TempDir& dir, bool pipelined, unsigned threads) {
  tracecompact::MergeRequest r;
  r.input = dir.root().string();
  r.output.path = dir.path("out/merged.json");
  r.output.overwrite = true;
  r.threads = threads;
  r.pipelined = pipelined;
  return r;
}

Written merged(const tracecompact::MergeRequest& r) {
  Written w;
  const tracecompact::RunResult result = tracecompact::run_merge(r);
  w.summary = result.summary_json;
  for (const auto& [phase, seconds] : result.timings)
    w.while_reading |= phase.find("while later ones are read") != std::string::npos;
  w.output = read_file(r.output.path);
  std::filesystem::remove(r.output.path);
  return w;
}

std::string merge_fault(const tracecompact::MergeRequest& r) {
  try {
    tracecompact::run_merge(r);
  } catch (const tracecompact::Error& e) {
    CHECK_FALSE(std::filesystem::exists(r.output.path));
    return e.what();
  }
  return "no fault";
}

void write_ranks(const TempDir& dir, bool base_first, bool gzip,
                 const std::function<std::string(int)>& last_event = nullptr) {
  // Ranks of unequal size, PP order (12, 0, 4, 8) unlike the files' order.
  const int steps[] = {3000, 700, 9000, 1500};
  const int globals[] = {0, 4, 8, 12};
  for (int k = 0; k < 4; ++k) {
    const std::string text =
        rank_trace(globals[k], steps[k], 1700000000000000000 + globals[k] * 1000003, base_first,
                   last_event ? last_event(globals[k]) : "");
    const std::string name = "rank" + std::to_string(globals[k]) + "_trace.json";
    write_file(dir.path(gzip ? name + ".gz" : name), gzip ? gzip_member(text) : text);
  }
}

}  // namespace

TEST_CASE("a merge written while later ranks are read is the merge of all ranks read first",
          "[merge][pipelined]") {
  TempDir dir;
  const bool base_first = GENERATE(true, false);
  const bool gzip = GENERATE(false, true);
  INFO("base first " << base_first << ", gzip " << gzip);
  write_ranks(dir, base_first, gzip);
  const Written expected = merged(request(dir, false, 1));
  REQUIRE_FALSE(expected.while_reading);
  for (unsigned threads : {0u, 2u, 3u, 8u}) {
    INFO("threads " << threads);
    const Written run = merged(request(dir, true, threads));
    // Only gzip with the base after the events cannot be laid out ahead (and
    // one core reads every rank first).
    if (threads > 1) CHECK(run.while_reading == (base_first || !gzip));
    CHECK(run.summary == expected.summary);
    CHECK(run.output == expected.output);
  }
}

TEST_CASE("a rank changed after its layout was read ahead is merged as pass 1 reads it",
          "[merge][pipelined]") {
  TempDir dir;
  write_ranks(dir, GENERATE(true, false), false);
  auto r = request(dir, true, 2);
  // Rank 8 gets the smallest base, and rank 0's PP group puts rank 4 first.
  r.after_preview = [&] {
    write_file(dir.path("rank8_trace.json"), rank_trace(8, 9000, 1600000000000000000, true));
    write_file(dir.path("rank0_trace.json"), rank0_putting_rank4_first(false));
  };
  const Written run = merged(r);
  CHECK_FALSE(run.while_reading);  // started over, every rank read first
  const Written expected = merged(request(dir, false, 1));
  CHECK(run.summary == expected.summary);
  CHECK(run.output == expected.output);
  CHECK(run.summary.find("\"global_rank\": 4") < run.summary.find("\"global_rank\": 0"));
}

TEST_CASE("a merge into a pipe reads every rank first: it could not start over",
          "[merge][pipelined]") {
  // A pipe is written in place, so a merge that found another layout than the
  // one read ahead could not drop what it had written (the hook below would
  // make it start over, writing a second document into the pipe): the merge
  // into a pipe reads every rank first and takes no layout ahead.
  TempDir dir;
  write_ranks(dir, true, false);
  auto r = request(dir, true, 2);
  r.output.path = dir.path("pipe");
  REQUIRE(::mkfifo(r.output.path.c_str(), 0600) == 0);
  bool read_ahead = false;
  r.after_preview = [&] {  // as in the test above: rank 4 comes first after all
    read_ahead = true;
    write_file(dir.path("rank0_trace.json"), rank0_putting_rank4_first(true));
  };
  // The pipe is read without blocking, so that the test ends whatever the
  // merge does: the reader drains it until the merge has returned.
  const int read_end = ::open(r.output.path.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(read_end >= 0);
  std::atomic<bool> merge_returned{false};
  std::string piped;
  std::thread reader([&] {
    char buffer[1 << 16];
    for (;;) {
      const bool last_round = merge_returned.load();
      ssize_t got;
      while ((got = ::read(read_end, buffer, sizeof buffer)) > 0)
        piped.append(buffer, static_cast<size_t>(got));
      if (last_round) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  tracecompact::RunResult result;
  try {
    result = tracecompact::run_merge(r);
  } catch (const std::exception& error) {
    FAIL_CHECK(error.what());
  }
  merge_returned = true;
  reader.join();
  ::close(read_end);
  CHECK_FALSE(read_ahead);
  for (const auto& [phase, seconds] : result.timings)
    CHECK(phase.find("while later ones are read") == std::string::npos);
  const Written expected = merged(request(dir, false, 1));  // the ranks as they are now
  INFO("piped " << piped.size() << " bytes, expected " << expected.output.size());
  CHECK((piped == expected.output));
}

TEST_CASE("a fault in a rank read after others were written is the fault of the whole merge",
          "[merge][pipelined]") {
  TempDir dir;
  std::string faulty;  // the rank file the reported fault must name
  SECTION("a slice with a negative duration in the last rank written") {
    write_ranks(dir, true, false, [](int global) {
      return global == 8 ? kernel(0, 7, "5", "-1") : kernel(0, 7, "1", "1");
    });
    faulty = "rank8_trace.json";
  }
  SECTION("faults in two ranks: the first in file order wins") {
    write_ranks(dir, true, false, [](int global) {
      if (global == 4) return std::string("{\"ph\":\"X\",\"cat\":\"kernel\",\"pid\":0}");
      return global == 8 ? kernel(0, 7, "5", "-1") : kernel(0, 7, "1", "1");
    });
    faulty = "rank4_trace.json";
  }
  SECTION("a pid beyond 64 bits in a rank written first") {
    write_ranks(dir, true, false, [](int global) {
      return global == 12 ? std::string("{\"ph\":\"i\",\"pid\":18446744073709551615,\"tid\":1}")
                          : kernel(0, 7, "1", "1");
    });
    faulty = "rank12_trace.json";
  }
  SECTION("a fault in a rank and an output that cannot be written: the rank's comes first") {
    write_ranks(dir, true, false, [](int global) {
      return global == 8 ? kernel(0, 7, "5", "-1") : kernel(0, 7, "1", "1");
    });
    write_file(dir.path("out"), "a file where the output's folder would be");
    faulty = "rank8_trace.json";
  }
  const std::string expected = merge_fault(request(dir, false, 1));
  REQUIRE(expected != "no fault");
  INFO(expected);
  CHECK(expected.find(faulty) != std::string::npos);
  CHECK(expected.find("output") == std::string::npos);  // no output fault came first
  for (unsigned threads : {0u, 2u, 4u}) {
    INFO("threads " << threads);
    CHECK(merge_fault(request(dir, true, threads)) == expected);
  }
}
