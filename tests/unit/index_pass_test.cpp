// Pass 1 builds the same index whether events are parsed on the calling thread
// or on worker threads (many batches), and reports the first fault in file order.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "index/index_pass.h"
#include "json/event_parser.h"
#include "support/temp_dir.h"
#include "support/trace_builder.h"
#include "tracecompact/error.h"
#include "util/spare_cores.h"

using namespace testsupport;

namespace tracecompact {
namespace {

// About 3 MB: several batches per worker.
std::string many_events() {
  std::vector<std::string> events;
  for (int i = 0; i < 12000; ++i) {
    const std::string ts = std::to_string(i * 3) + (i % 2 ? ".5" : "");
    events.push_back(kernel(i % 3, 7 + i % 5, ts, "2", "gemm",
                            ",\"name\":\"PP:0F" + std::to_string(i % 4) + "\""));
    if (i % 3 == 0)
      events.push_back(annotation(i % 3, 100, ts, "4", "PP:0F" + std::to_string(i % 4),
                                  "{\"External id\":" + std::to_string(i % 50) + "}"));
    if (i % 7 == 0) events.push_back(flow(i % 3, 7, ts, i));
    events.push_back("{\"name\":\"cpu op " + std::string(i % 40, 'x') +
                     "\",\"ph\":\"X\",\"pid\":9,\"tid\":" + std::to_string(i) + ",\"ts\":" + ts +
                     ",\"dur\":1}");
  }
  return trace(events, ",\"baseTimeNanoseconds\":1");
}

TraceIndex index_of(const std::string& text, unsigned threads) {
  return build_index(TraceInput::from_memory(text), threads);
}

std::string error_of(const std::string& text, unsigned threads) {
  try {
    index_of(text, threads);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Everything pass 1 records that the plan and pass 2 read.
void require_same_index(const TraceIndex& one, const TraceIndex& other) {
  REQUIRE(other.slices.size() == one.slices.size());
  for (size_t i = 0; i < one.slices.size(); ++i) {
    const SliceRecord &a = one.slices[i], &b = other.slices[i];
    REQUIRE(a.ts == b.ts);
    REQUIRE(a.dur == b.dur);
    REQUIRE(a.stream == b.stream);
    REQUIRE(a.tid_span.at == b.tid_span.at);
    REQUIRE(one.slice_regions[i] == other.slice_regions[i]);
  }
  REQUIRE(other.annotations.size() == one.annotations.size());
  for (size_t i = 0; i < one.annotations.size(); ++i) {
    REQUIRE(one.track_of(one.annotations[i]) == other.track_of(other.annotations[i]));
    REQUIRE(one.annotations[i].identity == other.annotations[i].identity);
    REQUIRE(one.annotations[i].name == other.annotations[i].name);
  }
  for (uint64_t e = 0; e < one.event_count; ++e) {
    REQUIRE(one.needs_attention(e) == other.needs_attention(e));
    REQUIRE(one.slice_events.test(e) == other.slice_events.test(e));
    REQUIRE(one.annotation_events.test(e) == other.annotation_events.test(e));
  }
  CHECK(other.streams == one.streams);
  CHECK(other.int_pids == one.int_pids);
  CHECK(other.max_int_tid == one.max_int_tid);
  CHECK(other.event_count == one.event_count);
  CHECK(other.input_bytes == one.input_bytes);
  CHECK(other.events_end == one.events_end);
  REQUIRE(other.segment_starts.size() == one.segment_starts.size());
  for (size_t i = 0; i < one.segment_starts.size(); ++i) {
    CHECK(other.segment_starts[i].offset == one.segment_starts[i].offset);
    CHECK(other.segment_starts[i].index == one.segment_starts[i].index);
  }
  REQUIRE(other.top_level.size() == one.top_level.size());
  for (size_t i = 0; i < one.top_level.size(); ++i) {
    CHECK(other.top_level[i].key == one.top_level[i].key);
    CHECK(other.top_level[i].text == one.top_level[i].text);
  }
}

// A trace whose text misleads a reader that starts in the middle of the events
// array: "}," before '{' inside strings and inside events (objects in arrays),
// separators with more whitespace than a guess looks back over, events longer
// than a stretch, and top-level values on both sides of the array.
std::string misleading_events(uint32_t seed) {
  std::mt19937 random(seed);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint32_t>(n)); };
  const std::vector<std::string> separators = {
      ",", ", ", ",\n", ",\n  ", ",\n" + std::string(100, ' '), " ,\t"};
  std::string text = "{\"schemaVersion\":1,\"traceEvents\":[\n";
  for (int i = 0; i < 1000; ++i) {
    const std::string ts = std::to_string(i * 2) + (pick(2) ? ".25" : "");
    std::string event;
    switch (pick(6)) {
      case 0:
        event = kernel(0, 7 + pick(4), ts, "1", "k},{\\\"x\\\":{}},{ ");
        break;
      case 1:
        event = kernel(0, 7 + pick(4), ts, "1", "gemm", ",\"list\":[{\"a\":1},{\"b\":[{}]},  {}]");
        break;
      case 2:
        event = annotation(0, 7, ts, "3", "PP:0F" + std::to_string(pick(3)),
                           "{\"nested\":[{\"}\":\",{\"},{}]}");
        break;
      case 3:
        // Now and then longer than a stretch (about 1/32 of the array).
        event = "{\"name\":\"" +
                std::string(static_cast<size_t>(pick(6) ? pick(300) : 30000 + pick(30000)), 'x') +
                "},{\",\"ph\":\"X\",\"pid\":9,\"tid\":1,\"ts\":" + ts + ",\"dur\":1}";
        break;
      case 4:
        event = flow(0, 7, ts, i);
        break;
      default:
        event =
            "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"},\\n{\",\"pid\":9,\"tid\":2,\"ts\":" + ts + "}";
        break;
    }
    if (i) text += separators[static_cast<size_t>(pick(static_cast<int>(separators.size())))];
    text += event;
  }
  return text + "\n],\"deviceProperties\":[{\"id\":0},{\"id\":1}],\"baseTimeNanoseconds\":1}";
}

}  // namespace

TEST_CASE("pass 1 builds the same index on any number of parser threads") {
  const std::string text = many_events();
  const TraceIndex one = index_of(text, 0);
  REQUIRE(one.slices.size() == 12000);
  for (unsigned threads : {1u, 2u, 3u}) {
    INFO("threads " << threads);
    require_same_index(one, index_of(text, threads));
  }
}

TEST_CASE("pass 1 that takes spare cores as it reads builds the same index") {
  const std::string text = many_events();
  const TraceInput input = TraceInput::from_memory(text);
  const TraceIndex one = build_index(input);
  SECTION("spare from the start: parser threads from the first event on") {
    for (unsigned cores : {1u, 3u, 7u}) {
      INFO("spare cores " << cores);
      SpareCores spare;
      spare.give(cores);
      require_same_index(one, build_index(input, 0, &spare));
      // All given back (at most three were taken: one thread reads for four workers).
      CHECK(spare.take(100) == cores);
    }
  }
  SECTION("a core given while the events are read") {
    for (const int delay_us : {0, 200, 1000, 3000}) {
      INFO("given after " << delay_us << " us");
      SpareCores spare;
      std::thread giver([&] {
        std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
        spare.give(1);
      });
      const TraceIndex other = build_index(input, 0, &spare);
      giver.join();
      require_same_index(one, other);
      CHECK(spare.take(100) == 1);
    }
  }
  SECTION("no spare cores: the events are parsed where they are read") {
    SpareCores spare;
    require_same_index(one, build_index(input, 0, &spare));
    CHECK(spare.take(100) == 0);
  }
}

TEST_CASE("pass 1 reports the first fault in file order on any number of threads") {
  std::string text = many_events();
  // A bad slice early on, and broken top-level structure at the very end.
  const std::string good = kernel(0, 7, "0", "2");
  const size_t at = text.find(good.substr(0, 30));
  REQUIRE(at != std::string::npos);
  std::string bad_slice = kernel(0, 7, "0", "-1");
  const std::string broken = text.substr(0, text.size() - 1) + ",]";
  std::string early_fault = text;
  const size_t first_kernel = early_fault.find("{\"name\":\"gemm\"");
  const size_t first_end = early_fault.find("}}", first_kernel) + 2;
  early_fault.replace(first_kernel, first_end - first_kernel, bad_slice);
  const std::string both = early_fault.substr(0, early_fault.size() - 1) + ",]";
  for (unsigned threads : {0u, 2u}) {
    INFO("threads " << threads);
    CHECK(error_of(early_fault, threads).find("GPU slice 0 has negative duration") !=
          std::string::npos);
    CHECK(error_of(both, threads) == error_of(early_fault, threads));
    CHECK(error_of(broken, threads) == error_of(broken, 0));
    CHECK(error_of(broken, threads) != "no error");
  }
}

TEST_CASE("strings are checked wherever they stand, escaped or read in place") {
  const std::string slice = kernel(0, 7, "0", "2");
  auto with_cpu_event = [&](const std::string& cpu_event) {
    return trace({slice, cpu_event}, ",\"baseTimeNanoseconds\":1");
  };
  // Faults in values and keys pass 1 does not otherwise read.
  const std::vector<std::string> bad = {
      "{\"ph\":\"X\",\"args\":{\"k\":\"bad \\x escape\"}}",
      "{\"ph\":\"X\",\"args\":{\"k\":[\"\\ud800 lone surrogate\"]}}",
      "{\"ph\":\"X\",\"args\":{\"ba\\qd key\":1}}",
      "{\"ph\":\"X\",\"args\":{\"k\":\"raw\ttab\"}}",
      "{\"ph\":\"X\",\"args\":{\"k\":\"bad \xC3\x28 utf8\"}}",
      "{\"ph\":\"X\",\"na\\u00ZZme\":1}",
  };
  for (const auto& event : bad) {
    INFO(event);
    CHECK(error_of(with_cpu_event(event), 0).find("invalid JSON in event 1") != std::string::npos);
  }
  // A string followed by ':' is no key, whatever byte follows the event in the
  // buffer (here the '}' that could close it if the string were skipped as a key).
  for (const std::string event :
       {"{\"ph\":\"X\",\"k\":\"b\":1}", "{\"ph\":\"X\",\"args\":{\"k\":\"b\":1}}",
        "{\"ph\":\"X\",\"args\":[\"b\":1]}"}) {
    INFO(event);
    const std::string buffer = event + "}" + std::string(64, ' ');
    EventParser parser;
    CHECK_THROWS_AS(parser.parse_in_place(std::string_view(buffer.data(), event.size()), {0, 0}),
                    Error);
  }
  // Escapes are decoded where the tool reads the text: an escaped key is still
  // the key, and an escaped name is the name.
  const TraceIndex index =
      index_of(trace({slice,
                      "{\"n\\u0061me\":\"PP:0\\u0046\\u0030\",\"cat\":\"gpu_user_annotation\","
                      "\"ph\":\"X\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":1,\"args\":{}}"},
                     ",\"baseTimeNanoseconds\":1"),
               0);
  REQUIRE(index.annotations.size() == 1);
  CHECK(index.annotation_names[index.annotations[0].name] == "PP:0F0");
}

TEST_CASE("an integer too large for 64 bits is named as such, a malformed number is not") {
  auto error_for_pid = [](const std::string& pid) {
    const std::string event = "{\"name\":\"k\",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":" + pid +
                              ",\"tid\":7,\"ts\":0,\"dur\":1,\"args\":{\"stream\":7}}";
    return error_of(trace({kernel(0, 7, "0", "2"), event}), 0);
  };
  const std::string too_large = "does not fit in 64 bits";
  const std::string malformed = "a number is malformed or out of double range";
  CHECK_THAT(error_for_pid("18446744073709551616"),
             Catch::Contains("the integer 18446744073709551616 " + too_large));
  CHECK_THAT(error_for_pid("-9223372036854775809"),
             Catch::Contains("the integer -9223372036854775809 " + too_large));
  // Shown by its head when long.
  CHECK_THAT(error_for_pid(std::string(100, '9')),
             Catch::Contains("the integer 9999999999999999999999999999999999999999... (100 "
                             "characters) " +
                             too_large));
  // Not oversized integers: a fraction beyond double range, letters after the
  // digits, a leading zero.
  CHECK_THAT(error_for_pid("1" + std::string(400, '0') + ".0"), Catch::Contains(malformed));
  CHECK_THAT(error_for_pid("1234567890123456789x"), !Catch::Contains(too_large));
  CHECK_THAT(error_for_pid("012345678901234567890"), !Catch::Contains(too_large));
}

TEST_CASE("an integer beyond 64 bits is read as a double time and by its digits in identities") {
  // The reference reads it as a Python int: a time becomes its float, and an
  // identity keeps the digits (these two differ, though their doubles are one).
  const TraceIndex index =
      index_of(trace({kernel(0, 7, "100000000000000000000", "1"),
                      annotation(0, 7, "0", "1", "a", "{\"id\":18446744073709551616}"),
                      annotation(0, 7, "0", "1", "a", "{\"id\":18446744073709551617}"),
                      annotation(0, 7, "0", "1", "a", "{\"id\":18446744073709551616}")}),
               0);
  REQUIRE(index.slices.size() == 1);
  CHECK(index.slices[0].start() == 1e20);
  REQUIRE(index.annotations.size() == 3);
  CHECK(index.annotations[0].identity != index.annotations[1].identity);
  CHECK(index.annotations[0].identity == index.annotations[2].identity);
  // Where its integer value is used (tids above every tid), it is refused.
  CHECK_THAT(error_of(trace({kernel(0, 7, "0", "1"),
                             "{\"name\":\"op\",\"ph\":\"X\",\"pid\":0,"
                             "\"tid\":18446744073709551616,\"ts\":0,\"dur\":1}"}),
                      0),
             Catch::Contains("event 1 (byte offset 143): tid: the integer 18446744073709551616 "
                             "does not fit in 64 bits"));
}

TEST_CASE("a parser that refused an oversized integer reads the next event afresh") {
  for (const auto reader : {EventParser::Reader::kQuick, EventParser::Reader::kOnDemand}) {
    EventParser parser(reader);
    const std::string big = "{\"ph\":\"X\",\"pid\":18446744073709551616,\"ts\":1}";
    CHECK_THROWS_WITH(parser.parse(big, {0, 0}), Catch::Contains("pid: the integer"));
    const EventFields& f = parser.parse("{\"ph\":\"X\",\"pid\":1,\"ts\":1}", {1, 40});
    CHECK(f.pid.is_int());
    CHECK_FALSE(f.pid.oversized);
    CHECK_FALSE(f.ts.oversized);
  }
}

TEST_CASE("tid and args.stream are compared as integers, exactly") {
  // Python's == on integers: beyond 2^53 two integers that round to one double
  // still differ. The message prints both as floats (spec 1).
  const std::string equal =
      "{\"name\":\"k\",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":0,"
      "\"tid\":9007199254740993,\"ts\":0,\"dur\":1,\"args\":{\"stream\":9007199254740993}}";
  CHECK(index_of(trace({equal}), 0).slices.size() == 1);
  const std::string one_apart =
      "{\"name\":\"k\",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":0,"
      "\"tid\":9007199254740993,\"ts\":0,\"dur\":1,\"args\":{\"stream\":9007199254740992}}";
  CHECK_THAT(
      error_of(trace({one_apart}), 0),
      Catch::Contains("GPU slice 0 has tid 9007199254740992.0 != stream 9007199254740992.0"));
  const std::string mismatched =
      "{\"name\":\"k\",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":0,"
      "\"tid\":-1,\"ts\":0,\"dur\":1,\"args\":{\"stream\":8}}";
  CHECK_THAT(error_of(trace({mismatched}), 0),
             Catch::Contains("GPU slice 0 has tid -1.0 != stream 8.0"));
}

TEST_CASE("workers reading stretches of the events build the reader's index") {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    INFO("seed " << seed);
    const std::string text = misleading_events(seed);
    const TraceIndex one = index_of(text, 0);
    for (unsigned workers : {1u, 2u, 3u}) {
      INFO("workers " << workers);
      require_same_index(one, index_of(text, workers));
    }
  }
  SECTION("an empty events array, and an array that is the whole trace") {
    for (const std::string& text :
         {std::string("{\"traceEvents\":[ ]}"), std::string("{\"traceEvents\":[]}"),
          trace({kernel(0, 7, "0", "1")})}) {
      INFO(text);
      CHECK(error_of(text, 2) == error_of(text, 0));
    }
  }
  SECTION("from a file") {
    TempDir dir;
    const std::string path = dir.path("t.json");
    const std::string text = misleading_events(5);
    std::ofstream(path, std::ios::binary) << text;
    require_same_index(index_of(text, 0), build_index(TraceInput::open_path(path), 2));
  }
}

TEST_CASE("workers reading stretches report the reader's first fault") {
  const std::string text = misleading_events(7);
  // Cut anywhere, and bytes broken anywhere: before, inside and after events.
  for (size_t cut = 5; cut < text.size(); cut += text.size() / 97) {
    INFO("cut at " << cut);
    const std::string truncated = text.substr(0, cut);
    CHECK(error_of(truncated, 2) == error_of(truncated, 0));
    for (const char* bad : {";", "]", "{", "\""}) {
      INFO("replaced by " << bad);
      std::string broken = text;
      broken.replace(cut, 1, bad);
      CHECK(error_of(broken, 2) == error_of(broken, 0));
    }
  }
  // A bad slice late in the array, after many stretches.
  std::string late = text;
  const size_t at = late.rfind("\"dur\":1,\"args\":{\"stream\"");
  REQUIRE(at != std::string::npos);
  late.replace(at, 7, "\"dur\":-1");
  CHECK_THAT(error_of(late, 2), Catch::Contains("negative duration"));
  CHECK(error_of(late, 2) == error_of(late, 0));
}

}  // namespace tracecompact
