// The quick reader (fields off simdjson's DOM tape) and the on-demand reader
// read every event alike: the same fields, the same raw tokens where pass 2
// splices them, the same canonical digests, and the same failure. Compared on
// every event of the fixtures, on hand-picked spellings, and on mutations.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "index/index_pass.h"
#include "json/event_parser.h"
#include "source/trace_input.h"
#include "support/fixture_events.h"
#include "tracecompact/error.h"

namespace tracecompact {
namespace {

std::string describe(const JsonScalar& s, std::string_view text, bool with_raw) {
  std::ostringstream out;
  out << static_cast<int>(s.kind);
  if (s.kind == JsonKind::kNumber) {
    uint64_t bits;
    std::memcpy(&bits, &s.number, sizeof bits);
    out << " n" << bits << " i" << s.integer;
    if (s.integer) out << " " << s.int_value;
  }
  if (s.kind == JsonKind::kString) out << " '" << s.text << "'";
  if (s.kind == JsonKind::kBool) out << " " << s.boolean;
  if (with_raw && s.kind == JsonKind::kNumber)
    out << " raw@" << (s.raw.data() - text.data()) << "+" << s.raw.size();
  return out.str();
}

bool needs_tokens(const EventFields& f) {
  for (const char* cat :
       {"kernel", "Kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "gpu_user_annotation"})
    if (f.cat.is(cat)) return true;
  return false;
}

// Everything a reader makes of one event, as text. `quickly`: whether the quick
// reader took it off the tape.
std::string reading(const std::string& event, EventParser::Reader reader, bool* quickly = nullptr) {
  std::string padded = event + std::string(simdjson::SIMDJSON_PADDING, ' ');
  const std::string_view text(padded.data(), event.size());
  EventParser parser(reader);
  try {
    const EventFields& f = parser.parse_in_place(text, {7, 100});
    if (quickly) *quickly = parser.read_quickly();
    const bool tokens = needs_tokens(f);
    std::ostringstream out;
    out << "name " << describe(f.name, text, false) << "\ncat " << describe(f.cat, text, false)
        << "\nph " << describe(f.ph, text, false) << "\npid " << describe(f.pid, text, false)
        << "\ntid " << describe(f.tid, text, tokens) << "\nts " << describe(f.ts, text, false)
        << "\ndur " << describe(f.dur, text, false) << "\nid " << describe(f.id, text, false)
        << "\nargs " << static_cast<int>(f.args_kind) << " empty " << f.args_empty
        << "\nargs.stream " << describe(f.args_stream, text, tokens) << "\nargs.name "
        << describe(f.args_name, text, false);
    const Hash128 identity = parser.annotation_identity();
    const Hash128 signature = parser.slice_signature();
    out << "\nidentity " << identity.high << ' ' << identity.low;
    out << "\nsignature " << signature.high << ' ' << signature.low;
    return out.str();
  } catch (const Error& e) {
    return std::string("error ") + e.what();
  }
}

// Returns whether the quick reader took the event off the tape.
bool check_alike(const std::string& event) {
  INFO(event.substr(0, 2000));
  bool quickly = false;
  CHECK(reading(event, EventParser::Reader::kQuick, &quickly) ==
        reading(event, EventParser::Reader::kOnDemand));
  return quickly;
}

std::string kernel_event(const std::string& extra = "") {
  return "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm<128, 64>(Params)\", \"pid\": "
         "0, "
         "\"tid\": 478, \"ts\": 1712278563335.347, \"dur\": 19.695, \"args\": {\"External id\": "
         "214296, \"queued\": 0, \"stream\": 478, \"grid\": [256, 4, 1], \"blocks per SM\": "
         "7.757575, \"name\": \"layers.0.attention\"" +
         extra + "}}";
}

}  // namespace

TEST_CASE("both readers read every event of the fixtures alike") {
  size_t compared = 0, quickly = 0;
  for (const std::string& event : testsupport::fixture_events(TRACECOMPACT_FIXTURES)) {
    quickly += check_alike(event);
    ++compared;
  }
  CHECK(compared > 1000);
  CHECK(quickly > compared * 9 / 10);  // the quick reader does take the usual events
}

TEST_CASE("both readers read unusual spellings alike") {
  const std::string deep(70, '[');
  const std::vector<std::string> events = {
      kernel_event(),
      kernel_event(", \"stream\": 5"),  // args.stream twice
      "{\"tid\": 1, \"tid\": 2, \"cat\": \"kernel\"}",
      "{\"args\": {}, \"args\": {}}",
      "{\"cat\": \"kernel\", \"t\\u0069d\": 7, \"tid\": 7, \"args\": {\"stream\": 7}}",
      "{\"cat\": \"kernel\", \"name\": \"a\\\\b \\\"tid\\\": 9\", \"tid\": 7, \"args\": "
      "{\"stream\": "
      "7}}",
      "{\"cat\": \"kernel\", \"tid\": 7, \"args\": {\"tid\": 8, \"stream\": 7}}",
      "{\"cat\": \"kernel\", \"tid\": 7, \"stream\": 3, \"args\": {\"stream\": 7}}",
      "{\"cat\": \"kernel\", \"name\": \"tid\", \"tid\" : 7 , \"args\": {\"x\": \"stream\", "
      "\"stream\"\n:\t7}}",
      "{\"cat\": \"gpu_user_annotation\", \"ph\": \"X\", \"pid\": 0, \"tid\": -0, \"ts\": -0.0, "
      "\"dur\": 1e2, \"args\": {\"b\": [1, 2.50, {\"z\": null, \"a\": true}], \"a\": \"\\u00e9\"}}",
      "{\"cat\": \"gpu_user_annotation\", \"ph\": \"X\", \"pid\": 0, \"tid\": 3, \"ts\": 1, "
      "\"dur\": 2, \"x\": 18446744073709551615, \"y\": 9223372036854775808, \"k\": 1, \"k\": 2}",
      "{\"cat\": \"kernel\", \"tid\": 123456789012345678901234567890, \"args\": {\"stream\": 1}}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"ts\": 1e400, \"args\": {\"stream\": 1}}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"ts\": NaN}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"args\": null}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"args\": [1]}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"args\": 5}",
      "{\"cat\": \"kernel\", \"tid\": \"1\", \"args\": {\"stream\": \"1\"}}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"args\": {\"stream\": 1,}}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"bad\": \"\\q\"}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"x\": " + deep + std::string(70, ']') + "}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"x\": " + std::string(600, '[') + std::string(600, ']') +
          "}",
      "{\"cat\": \"kernel\", \"tid\": 1, \"big\": \"" + std::string(70000, 'x') +
          "\", \"args\": {\"stream\": 1}}",
      "{\"cat\": \"cuda_sync\", \"tid\": 4, \"args\": {\"stream\": 4, \"name\": \"\"}}",
      "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 7, \"args\": {\"name\": "
      "\"stream 7\"}}",
      "{}",
      "{\"cat\": \"kernel\", \"tid\": 01}",
      "{\"cat\": \"kernel\", \"tid\": 1 \"ts\": 2}",
      // Places after an object or array value: tid after one, args.stream after
      // one inside args, and both before any.
      "{\"cat\": \"kernel\", \"x\": {\"tid\": 1}, \"tid\": 7, \"args\": {\"stream\": 7}}",
      "{\"cat\": \"kernel\", \"x\": [1, {\"a\": 2}], \"tid\": 7, \"args\": {\"stream\": 7}}",
      "{\"cat\": \"kernel\", \"tid\": 7, \"args\": {\"a\": [1], \"stream\": 7}}",
      "{\"cat\": \"kernel\", \"tid\": 7, \"args\": {\"a\": {\"stream\": 3}, \"stream\": 7}}",
      "{\"cat\": \"kernel\", \"t\\u0069d\": 7, \"args\": {\"b\": 1, \"str\\u0065am\": 7}}",
      "{\"cat\": \"kernel\", \"tid\": 7, \"args\": {\"b\": \"}\", \"stream\": 7}, \"z\": [1]}",
  };
  size_t quickly = 0;
  for (const std::string& event : events) quickly += check_alike(event);
  CHECK(quickly >= 8);
  CHECK(quickly < events.size());
  // The usual ones quickly, the doubtful ones on demand.
  CHECK(check_alike(events[0]));
  CHECK_FALSE(check_alike(events[1]));  // args.stream twice
  CHECK_FALSE(check_alike(events[4]));  // an escaped key on the way to tid
  CHECK(check_alike(events[5]));  // a backslash: "tid" in a string told apart member by member
  CHECK(check_alike(events[6]));  // a nested "tid" key: told apart by the members' places
  CHECK(check_alike(events[8]));  // "tid" and "stream" as values, spaced keys
  CHECK(check_alike(events[9]));  // -0, -0.0, 1e2, nested args
  CHECK_FALSE(check_alike(events[11]));  // beyond 64 bits
  CHECK_FALSE(check_alike(events[21]));  // deeper than the quick reader goes
  CHECK_FALSE(check_alike(events[22]));  // larger than the quick reader takes
  CHECK_FALSE(check_alike(events[28]));  // tid after an object holding another "tid"
  CHECK(check_alike(events[30]));        // args.stream after an array: the only "stream"
  CHECK_FALSE(check_alike(events[31]));  // args.stream after an object holding another
  CHECK(check_alike(events[32]));        // escaped keys: their places tell them
}

// simdjson 3.0.1's on-demand get_number() gave 0 for these (more than 19
// digits); the on-demand reader takes events with escaped keys, over 64 KiB, or
// deeper than the tape reader goes.
TEST_CASE("both readers read numbers of more than 19 digits as their values") {
  const std::vector<std::string> numbers = {
      "1234567890277.956000",        "5.0000000000000000000",    "-5.0000000000000000000",
      "1.00000000000000000000e5",    "123456789012345678.0",     "0.00000000000000000001",
      "1712278563335.34700000000",   "2.5000000000000000000E-3", "1234567890277.95600",
      "1.00000000000000000000e-400",  // below the doubles: 0, as a short spelling reads
  };
  for (const std::string& number : numbers) {
    INFO(number);
    const double expected = std::strtod(number.c_str(), nullptr);
    for (const std::string& tid_key : {std::string("tid"), std::string("t\\u0069d")}) {
      const std::string event = "{\"ph\": \"X\", \"cat\": \"kernel\", \"pid\": 0, \"" + tid_key +
                                "\": 7, \"ts\": " + number + ", \"dur\": " + number +
                                ", \"args\": {\"stream\": 7, \"x\": [" + number + "]}}";
      check_alike(event);
      std::string padded = event + std::string(simdjson::SIMDJSON_PADDING, ' ');
      EventParser parser(EventParser::Reader::kOnDemand);
      const EventFields& f =
          parser.parse_in_place(std::string_view(padded.data(), event.size()), {0, 0});
      CHECK(f.ts.number == expected);
      CHECK(f.dur.number == expected);
    }
  }
}

TEST_CASE("both readers read mutated events alike") {
  std::mt19937_64 random(20261203);
  const std::string alphabet = "{}[]\",:\\ 0123456789.-+eEtrufalsn\"ux";
  const std::vector<std::string> seeds = {
      kernel_event(),
      "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"PP:1F0\", \"pid\": 0, "
      "\"tid\": "
      "20, \"ts\": 1712195495181.161, \"dur\": 81.146, \"args\": {\"External id\": 3, \"l\": [[1, "
      "2], []]}}",
      "{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"pid\": 0, \"tid\": "
      "7, "
      "\"ts\": 5, \"id\": \"x1\"}"};
  for (int round = 0; round < 6000; ++round) {
    std::string event = seeds[random() % seeds.size()];
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = 1 + random() % (event.size() - 2);
      const char c = alphabet[random() % alphabet.size()];
      switch (random() % 3) {
        case 0:
          event[at] = c;
          break;
        case 1:
          event.insert(at, 1, c);
          break;
        default:
          event.erase(at, 1);
          break;
      }
    }
    check_alike(event);
  }
}

TEST_CASE("a fault found in an event read off the tape quotes its tokens as written") {
  // The tape keeps numbers as values; pass 1 reads such an event again on
  // demand to say what it found.
  auto fault_of = [](const std::string& fields) -> std::string {
    const std::string text =
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", " + fields +
        "}]}";
    try {
      build_index(TraceInput::from_memory(text));
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(fault_of("\"pid\": 1.50, \"tid\": 7, \"ts\": 1, \"dur\": 2, \"args\": {\"stream\": 7}") ==
        "GPU slice 0 has pid that is the number 1.50; expected an integer");
  CHECK(fault_of("\"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": 2, \"args\": {\"stream\": 7.0}") ==
        "GPU slice 0 has args.stream that is the number 7.0; expected an integer");
  CHECK(fault_of("\"pid\": 0, \"tid\": 1e1, \"ts\": 1, \"dur\": 2, \"args\": {\"stream\": 7}") ==
        "GPU slice 0 has tid that is the number 1e1; expected an integer");
  CHECK(fault_of("\"pid\": 0, \"tid\": 7, \"ts\": \"1\", \"dur\": 2, \"args\": {\"stream\": 7}") ==
        "GPU slice 0 has ts that is a string; expected a number");
  CHECK(fault_of("\"pid\": 0, \"tid\": 7, \"ts\": 1, \"dur\": -1.50, \"args\": {\"stream\": 7}") ==
        "GPU slice 0 has negative duration -1.5");
}

}  // namespace tracecompact
