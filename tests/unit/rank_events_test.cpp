// Pass 2 writes the same bytes whether events are rendered on the calling
// thread or in batches on worker threads (merged flow ids numbered in order of
// first appearance included; where an id is narrower than the blank left for
// it, the same JSON), and reports the first fault in event order.
#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/index_pass.h"
#include "plan/compaction_plan.h"
#include "sink/byte_sink.h"
#include "support/trace_builder.h"
#include "tracecompact/error.h"
#include "writer/rank_events.h"

using namespace testsupport;

namespace tracecompact {
namespace {

// Bytes per event of each of a merge's per-event records (lengths, splice sites).
constexpr uint64_t kRecordBytes = sizeof(SpliceSite);
static_assert(sizeof(SpliceSite) == sizeof(TraceIndex::kLongEvent));

std::string cpu_flow(const std::string& ph, const std::string& ts, const std::string& id) {
  return "{\"name\":\"ac2g\",\"cat\":\"ac2g\",\"ph\":\"" + ph +
         "\",\"pid\":9,\"tid\":3,\"ts\":" + ts + ",\"id\":" + id + "}";
}

// About 4 MB (many batches per worker): slices moved to lanes, annotations kept,
// moved, coalesced or dropped, GPU and CPU flows with integer and string ids,
// thread metadata on old streams, pass-through CPU events.
std::vector<std::string> many_events() {
  std::vector<std::string> events;
  events.push_back(
      "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":0,\"args\":{\"sort_index\":1}}");
  for (int i = 0; i < 12000; ++i) {
    const std::string ts = std::to_string(i * 3) + (i % 2 ? ".5" : "");
    const int stream = 7 + i % 5;
    events.push_back(kernel(i % 2, stream, ts, i % 9 ? "2" : "0", "gemm",
                            ",\"name\":\"PP:0F" + std::to_string(i % 4) + "\""));
    if (i % 3 == 0)
      events.push_back(annotation(i % 2, 100 + i % 2, ts, "4", "PP:0F" + std::to_string(i % 4),
                                  "{\"External id\":" + std::to_string(i % 50) + "}"));
    if (i % 5 == 0) events.push_back(annotation(i % 2, stream, ts, "1", "ProfilerStep#1"));
    if (i % 7 == 0) {
      const std::string id =
          i % 14 ? std::to_string(i % 97) : "\"s" + std::to_string(i % 31) + "\"";
      events.push_back(cpu_flow("s", ts, id));
      events.push_back(flow(i % 2, stream, ts, i % 97));
    }
    if (i % 1000 == 0)
      events.push_back(
          "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" + std::to_string(stream) +
          ",\"args\":{\"name\":\"stream " + std::to_string(stream) + "\"}}");
    events.push_back("{\"name\":\"cpu op " + std::string(i % 40, 'x') +
                     "\",\"ph\":\"X\",\"pid\":9,\"tid\":" + std::to_string(i % 3) + ",\"ts\":" +
                     ts + ",\"dur\":1,\"args\":{\"External id\":" + std::to_string(i) + "}}");
  }
  return events;
}

struct Pass2 {
  explicit Pass2(std::string text, PerEventRecords records = PerEventRecords::kNone,
                 std::shared_ptr<RecordBudget> budget = nullptr, unsigned pass1_workers = 0)
      : text_(std::move(text)),
        input(TraceInput::from_memory(text_)),
        index(build_index(input, pass1_workers, nullptr, records, std::move(budget))),
        plan(index) {}

  // The events pass 2 writes, as a JSON array.
  std::string events(unsigned workers, const MergeEdit* merge) const {
    return events_of(input, workers, merge);
  }
  // The same, read from `changed` (the input as pass 2 finds it) with this plan.
  std::string events_of(const TraceInput& changed, unsigned workers, const MergeEdit* merge) const {
    std::string written;
    StringSink sink(written);
    JsonOut out(sink);
    out.start_array();
    write_rank_events(changed, plan, merge, workers, out);
    out.end_array();
    out.stream().drain();
    return written;
  }

  std::string error(unsigned workers, const MergeEdit* merge) const {
    try {
      events(workers, merge);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }

  std::string text_;
  TraceInput input;
  TraceIndex index;
  CompactionPlan plan;
};

// A rank's edit in the tests' merges: pids renumbered, ts shifted, flow ids
// from 2 000 000 000.
struct TestMerge {
  TestMerge() {
    edit.pid_map = &pids;
    edit.ts_shift = TimestampShift::from_nanoseconds(12250);
    edit.first_flow_id = 2000000000;
  }
  TestMerge(const TestMerge&) = delete;  // the edit points at the pids
  TestMerge& operator=(const TestMerge&) = delete;

  const std::unordered_map<int64_t, int64_t> pids{{0, 10}, {1, 11}, {9, 19}};
  MergeEdit edit;
};

// A merge's pass 2 of `pass` against `reference`'s, on the calling thread and
// on two render workers.
void check_same_merged_events(const Pass2& pass, const Pass2& reference) {
  const TestMerge merge;
  for (unsigned workers : {0u, 2u}) {
    INFO("workers " << workers);
    CHECK(pass.events(workers, &merge.edit) == reference.events(workers, &merge.edit));
  }
}

}  // namespace

TEST_CASE("pass 2 writes the same bytes on any number of render workers") {
  const Pass2 pass(trace(many_events(), ",\"baseTimeNanoseconds\":1"));
  REQUIRE(pass.index.slices.size() == 12000);
  TestMerge test_merge;
  MergeEdit& merge = test_merge.edit;
  merge.name_prefix = "PP rank 1 | ";

  const std::string single = pass.events(0, nullptr);
  const std::string merged = pass.events(0, &merge);
  REQUIRE(single.size() > 3000000);
  CHECK(merged.find("\"id\":2000000000") != std::string::npos);   // ids renumbered
  CHECK(merged.find("process_sort_index") == std::string::npos);  // dropped in a merge
  for (unsigned workers : {1u, 2u, 3u}) {
    INFO("workers " << workers);
    CHECK(pass.events(workers, nullptr) == single);
    CHECK(pass.events(workers, &merge) == merged);
  }
}

TEST_CASE("a merge writes the same events with pass 1's splice sites as without") {
  std::vector<std::string> events = many_events();
  // Spellings the sites leave to the field scan, or where the scan finds less.
  events.push_back(R"({"args": {"pid": 5}, "ph": "X", "pid": 9, "tid": 1, "ts": 3.25})");
  events.push_back(R"({ "ph" : "X" ,
    "pid" : 9 , "tid" : 2 , "ts" : 1712197196127.604 , "dur" : 1 })");
  events.push_back(R"({"ph": "X", "pid": 9, "tid": 3, "dur": 2})");
  events.push_back(R"({"ph": "X", "pid": "main", "tid": 3, "ts": 4})");
  events.push_back(R"({"ph": "i", "pid": 9, "tid": 3, "ts": "late"})");
  events.push_back(R"({"name": ")" + std::string(70000, 'n') +
                   R"(", "pid": 9, "tid": 1, "ts": 5})");
  // A slice whose tid follows its ts: its parts are sorted first.
  events.push_back(
      R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "ts": 7, "tid": 7, "dur": 1,)"
      R"( "args": {"stream": 7}})");
  const std::string text = trace(events, ",\"baseTimeNanoseconds\":1");
  const Pass2 scanned(text), sited(text, PerEventRecords::kForMerge);
  REQUIRE(sited.index.splice_sites.size() == sited.index.event_count);
  CHECK(scanned.index.splice_sites.empty());
  size_t with_site = 0;
  for (const SpliceSite site : sited.index.splice_sites) with_site += site != kNoSpliceSite;
  CHECK(with_site * 2 > sited.index.event_count);
  check_same_merged_events(sited, scanned);
}

TEST_CASE("a single trace's pass 2 writes the same with pass 1's event lengths as without") {
  const std::string text = trace(many_events(), ",\"baseTimeNanoseconds\":1");
  const Pass2 scanned(text);
  // The lengths of the first two blocks of events only: the rest are scanned for.
  constexpr uint64_t kBlock = TraceIndex::kRecordBlock;
  auto budget = std::make_shared<RecordBudget>(2 * kBlock * kRecordBytes, 0);
  const Pass2 all(text, PerEventRecords::kLengths);
  const Pass2 some(text, PerEventRecords::kLengths, budget);
  REQUIRE(all.index.event_lengths.size() == all.index.event_count);
  CHECK(all.index.splice_sites.empty());
  REQUIRE(some.index.event_lengths.size() == 2 * kBlock);
  REQUIRE(some.index.event_count > 2 * kBlock);
  for (unsigned workers : {1u, 2u}) {
    INFO("workers " << workers);
    CHECK(all.events(workers, nullptr) == scanned.events(workers, nullptr));
    CHECK(some.events(workers, nullptr) == scanned.events(workers, nullptr));
  }
}

TEST_CASE("a merge's records end where its budget does, and the events after them are scanned") {
  const std::string text = trace(many_events(), ",\"baseTimeNanoseconds\":1");
  constexpr uint64_t kBlock = TraceIndex::kRecordBlock;
  // Three blocks of records, no allowance per slice: event lengths (taken
  // first, as the tokenizer reads ahead) get two, splice sites one; all three
  // go to lengths where a reading thread runs ahead of the parser threads.
  auto budget = std::make_shared<RecordBudget>(3 * kBlock * kRecordBytes, 0);
  const Pass2 scanned(text);
  const Pass2 unlimited(text, PerEventRecords::kForMerge);
  // Pass 1's digesters stop working out splice sites at the first one refused:
  // on the tokenizer's thread, in stretches read ahead by workers (plain
  // input), or in batches the reading thread hands to workers (gzip).
  const unsigned pass1_workers = GENERATE(0u, 2u);
  const bool gzip = GENERATE(false, true);
  INFO("pass 1 workers: " << pass1_workers << (gzip ? ", gzip" : ", plain"));
  std::optional<Pass2> limited(std::in_place, gzip ? gzip_member(text) : text,
                               PerEventRecords::kForMerge, budget, pass1_workers);
  REQUIRE(limited->index.event_count > 2 * kBlock);
  REQUIRE(limited->index.event_count < 3 * kBlock);
  if (gzip && pass1_workers > 0) {
    // The reading thread notes every length before the digests come back.
    CHECK(limited->index.event_lengths.size() == limited->index.event_count);
    CHECK(limited->index.splice_sites.empty());
  } else {
    CHECK(limited->index.event_lengths.size() == 2 * kBlock);
    CHECK(limited->index.splice_sites.size() == kBlock);
  }
  // The sites kept are the first ones, worked out in full.
  size_t same_sites = 0;
  for (uint64_t i = 0; i < limited->index.splice_sites.size(); ++i)
    same_sites += limited->index.splice_sites[i] == unlimited.index.splice_sites[i];
  CHECK(same_sites == limited->index.splice_sites.size());
  // Past the sites, pass 2 finds pid and ts by their keys where pass 1 allows it
  // (the events digested before the sites ran out are scanned).
  const uint64_t past_sites = limited->index.event_count - limited->index.splice_sites.size();
  uint64_t plain = 0;
  for (uint64_t i = limited->index.splice_sites.size(); i < limited->index.event_count; ++i)
    plain += limited->index.plain_pid_ts.test(i);
  CHECK(plain * 2 > past_sites);
  CHECK(!budget->try_take(1));
  check_same_merged_events(*limited, scanned);
  limited.reset();  // the index goes, and its records' share with it
  CHECK(budget->try_take(3 * kBlock * kRecordBytes));
}

TEST_CASE("a rank whose records ran out still widens the budget for the ranks read after it") {
  const std::string text = trace(many_events(), ",\"baseTimeNanoseconds\":1");
  constexpr uint64_t kBlock = TraceIndex::kRecordBlock;
  // Two blocks, then two records' bytes per slice: the first rank's second
  // blocks come before it has indexed enough slices for them; its slices after
  // that are what lets the next rank keep records.
  auto budget = std::make_shared<RecordBudget>(2 * kBlock * kRecordBytes, 2 * kRecordBytes);
  const Pass2 first(text, PerEventRecords::kForMerge, budget);
  REQUIRE(first.index.event_count > 2 * kBlock);
  REQUIRE(first.index.slices.size() * 2 * kRecordBytes > kBlock * kRecordBytes);
  CHECK(first.index.event_lengths.size() == kBlock);
  CHECK(first.index.splice_sites.size() == kBlock);
  const Pass2 second(text, PerEventRecords::kForMerge, budget);
  CHECK(second.index.event_lengths.size() >= kBlock);
  check_same_merged_events(second, first);
}

TEST_CASE("a merge tells kept timestamp tokens apart by their last byte") {
  // 17 characters each, differing only in the last: the splicer compares the
  // token it kept (and its shifted text) to the end, not its first 16 bytes.
  const std::string op = R"({"name":"op","ph":"X","pid":9,"tid":1,"dur":1,"ts":)";
  const std::string text = trace({kernel(0, 7, "1", "1"), op + "1712197196127.604}",
                                  op + "1712197196127.605}", op + "1712197196127.605}"});
  const Pass2 pass(text, PerEventRecords::kForMerge);
  REQUIRE(pass.index.splice_sites.size() == pass.index.event_count);
  for (const SpliceSite site : pass.index.splice_sites) REQUIRE(site != kNoSpliceSite);
  const TestMerge merge;  // ts + 12.25 us
  for (unsigned workers : {0u, 2u}) {
    INFO("workers " << workers);
    const std::string written = pass.events(workers, &merge.edit);
    const size_t first = written.find("\"ts\":1712197196139.854}");
    const size_t second = written.find("\"ts\":1712197196139.855}");
    REQUIRE(first != std::string::npos);
    REQUIRE(second != std::string::npos);
    CHECK(first < second);
    CHECK(written.find("\"ts\":1712197196139.855}", second + 1) != std::string::npos);
  }
}

TEST_CASE("a merged pid beyond 64 bits is kept as it is, not read as another pid") {
  std::vector<std::string> events = many_events();
  const std::string huge_pid =
      "{\"name\":\"cpu op\",\"ph\":\"X\",\"pid\":9223372036854775808,\"tid\":1,"
      "\"ts\":5,\"dur\":1,\"args\":{}}";
  events.insert(events.begin() + 100, huge_pid);
  const Pass2 pass(trace(events));
  const std::unordered_map<int64_t, int64_t> pids{{0, 10}, {1, 11}, {9, 19}};
  MergeEdit merge;
  merge.pid_map = &pids;
  merge.first_flow_id = 2000000000;
  for (unsigned workers : {0u, 2u}) {
    INFO("workers " << workers);
    CHECK(pass.events(workers, &merge).find("\"pid\":9223372036854775808") != std::string::npos);
  }
}

TEST_CASE("merged flow ids narrower than their blank leave spaces, the same JSON") {
  const Pass2 pass(trace(many_events(), ",\"baseTimeNanoseconds\":1"));
  const std::unordered_map<int64_t, int64_t> pids{{0, 10}, {1, 11}, {9, 19}};
  MergeEdit merge;
  merge.pid_map = &pids;
  merge.first_flow_id = 999999990;  // ids cross from 9 to 10 digits
  const std::string in_order = pass.events(0, &merge);
  const std::string batched = pass.events(2, &merge);
  CHECK(in_order.find("\"id\":999999990}") != std::string::npos);
  CHECK(batched.find("\"id\":999999990 }") != std::string::npos);
  CHECK(batched.find("\"id\":1000000000}") != std::string::npos);
  rapidjson::Document a, b;
  a.Parse(in_order.c_str());
  b.Parse(batched.c_str());
  REQUIRE_FALSE(a.HasParseError());
  REQUIRE_FALSE(b.HasParseError());
  CHECK(a == b);
}

TEST_CASE("a tid or stream token changed after pass 1 is reported, merged or not") {
  std::vector<std::string> events;
  for (int i = 0; i < 200; ++i) {
    events.push_back(kernel(i % 2, 7 + i % 3, std::to_string(i), "1"));
    // A GPU annotation, which the plan moves to an annotation track.
    if (i % 10 == 0)
      events.push_back(
          annotation(i % 2, 7 + i % 3, std::to_string(i), "5", "PP:0F" + std::to_string(i)));
  }
  const std::string text = trace(events, ",\"baseTimeNanoseconds\":1");
  const Pass2 pass(text, PerEventRecords::kForMerge);
  REQUIRE(pass.index.slices.size() == 200);
  const TestMerge merge;
  // Changed in place (the same length, so that pass 2 still finds the events
  // where pass 1 did): a slice's tid or stream; the same with its pid too,
  // which sends a merged slice past the splice to the general path; an
  // annotation's tid.
  struct Change {
    std::string event_kind;
    std::string key;
    bool pid_too;
  };
  const Change change =
      GENERATE(Change{"\"kernel\"", "\"tid\":8", false},
               Change{"\"kernel\"", "\"stream\":8", false}, Change{"\"kernel\"", "\"tid\":8", true},
               Change{"\"gpu_user_annotation\"", "\"tid\":8", false});
  INFO(change.event_kind << " " << change.key << (change.pid_too ? " and pid" : ""));
  std::string changed = text;
  const size_t event_at = changed.find(change.event_kind, changed.size() / 2);
  const size_t at = changed.find(change.key, event_at);
  REQUIRE(at != std::string::npos);
  changed[at + change.key.size() - 1] = 'x';
  if (change.pid_too) {
    const size_t pid_at = changed.rfind("\"pid\":", at);
    REQUIRE(pid_at > event_at);
    changed[pid_at + 6] = 'y';
  }
  const TraceInput changed_input = TraceInput::from_memory(changed);
  for (const MergeEdit* edit : std::vector<const MergeEdit*>{nullptr, &merge.edit}) {
    INFO((edit ? "merged" : "single"));
    CHECK_THROWS_WITH(pass.events_of(changed_input, 0, edit),
                      Catch::Contains("changed while it was being read"));
  }
}

TEST_CASE("pass 2 reports the first fault in event order on any number of render workers") {
  // GPU flow endpoints with a non-numeric ts: only pass 2 judges them.
  std::vector<std::string> events = many_events();
  const auto bad_flow = [](int ts) {
    return "{\"name\":\"ac2g\",\"cat\":\"ac2g\",\"ph\":\"f\",\"bp\":\"e\",\"pid\":0,\"tid\":7,"
           "\"ts\":\"" +
           std::to_string(ts) + "\",\"id\":1}";
  };
  const size_t early = 2000, late = events.size() - 10;
  events.insert(events.begin() + static_cast<std::ptrdiff_t>(late), bad_flow(2));
  events.insert(events.begin() + static_cast<std::ptrdiff_t>(early), bad_flow(1));
  const Pass2 pass(trace(events));
  const std::string expected = pass.error(0, nullptr);
  CHECK(expected.find("GPU flow event " + std::to_string(early) + " has a non-numeric ts") !=
        std::string::npos);
  for (unsigned workers : {1u, 2u, 3u}) {
    INFO("workers " << workers);
    CHECK(pass.error(workers, nullptr) == expected);
  }
}

}  // namespace tracecompact
