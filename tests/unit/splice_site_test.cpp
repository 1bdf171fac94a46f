// Pass 1's splice sites (json/splice_site.h) point at the tokens of the event's
// own top-level pid and ts, as the on-demand reader finds them, and are left
// out where the merge's splice must not rely on them: flow and metadata
// phases, a pid or ts that is not a number, an object or array before them,
// offsets the 2-byte site cannot hold, events the tape reader hands on.
#include <catch2/catch.hpp>

#include <string>

#include "index/event_batches.h"
#include "json/event_parser.h"
#include "support/fixture_events.h"
#include "support/random_events.h"
#include "tracecompact/error.h"
#include "writer/top_level_fields.h"

namespace tracecompact {
namespace {

struct Parsed {
  std::string buffer;  // the event and simdjson's padding
  std::string_view text;
};

Parsed padded(const std::string& event) {
  Parsed parsed{event + std::string(simdjson::SIMDJSON_PADDING, ' '), {}};
  parsed.text = std::string_view(parsed.buffer.data(), event.size());
  return parsed;
}

// The site pass 1 keeps for `event`, or kNoSpliceSite (also for an invalid event).
SpliceSite site_of(const std::string& event) {
  const Parsed parsed = padded(event);
  EventParser parser;
  try {
    parser.parse_in_place(parsed.text, {0, 0});
  } catch (const Error&) {
    return kNoSpliceSite;
  }
  return parser.splice_site();
}

std::string describe(const FieldSpan& span) {
  return span.found ? std::to_string(span.at) + "+" + std::to_string(span.length) : "-";
}

std::string describe_token(std::string_view token, std::string_view text, bool present) {
  if (!present) return "-";
  return std::to_string(token.data() - text.data()) + "+" + std::to_string(token.size());
}

// Where a site puts pid and ts against where the on-demand reader, which keeps
// every number's raw token, finds them; true when the event has a site.
bool check_site(const std::string& event) {
  INFO(event);
  const SpliceSite site = site_of(event);
  if (site == kNoSpliceSite) return false;
  const Parsed parsed = padded(event);
  EventParser on_demand(EventParser::Reader::kOnDemand);
  const EventFields& f = on_demand.parse_in_place(parsed.text, {0, 0});
  TopLevelFields at_site;
  REQUIRE(fields_at_splice_site(parsed.text, site, at_site));
  CHECK(describe(at_site.pid) == describe_token(f.pid.raw, parsed.text, f.pid.present()));
  CHECK(describe(at_site.ts) == describe_token(f.ts.raw, parsed.text, f.ts.present()));
  CHECK_FALSE((f.ph.is("M") || f.ph.is("s") || f.ph.is("t") || f.ph.is("f")));
  return true;
}

}  // namespace

TEST_CASE("splice sites point at pid and ts in every fixture event that has one") {
  size_t events = 0, sited = 0;
  for (const std::string& event : testsupport::fixture_events(TRACECOMPACT_FIXTURES)) {
    ++events;
    if (check_site(event)) ++sited;
  }
  CHECK(events > 1000);
  CHECK(sited * 2 > events);  // most events: their pid and ts come before args
}

TEST_CASE("splice sites point at pid and ts in random events") {
  testsupport::RandomEventMaker maker(20261205);
  size_t sited = 0;
  for (int i = 0; i < 20000; ++i)
    if (check_site(maker.event())) ++sited;
  CHECK(sited > 400);  // shuffled keys: ts comes before pid in half of them
}

TEST_CASE("splice sites are left out where the splice must not rely on them") {
  const std::string kernel_fields = R"("pid": 0, "tid": 7, "ts": 12.5, "dur": 1)";
  CHECK(site_of(R"({"ph": "X", )" + kernel_fields + R"(, "args": {"pid": 9}})") != kNoSpliceSite);
  for (const char* phase : {"M", "s", "t", "f"}) {
    INFO(phase);
    CHECK(site_of(R"({"ph": ")" + std::string(phase) + R"(", )" + kernel_fields + "}") ==
          kNoSpliceSite);
  }
  // An object or array before pid or ts: the member count no longer gives the index.
  CHECK(site_of(R"({"args": {}, )" + kernel_fields + "}") == kNoSpliceSite);
  CHECK(site_of(R"({"ph": "X", "dims": [1, 2], )" + kernel_fields + "}") == kNoSpliceSite);
  // Values the splice leaves to the scan.
  CHECK(site_of(R"({"ph": "X", "pid": "main", "ts": 1})") == kNoSpliceSite);
  CHECK(site_of(R"({"ph": "X", "pid": 1, "ts": null})") == kNoSpliceSite);
  // Offsets a 2-byte site cannot hold: pid beyond 1023 bytes, ts before pid or
  // more than 63 bytes after it.
  auto named = [&](size_t name_length) {
    return R"({"name": ")" + std::string(name_length, 'n') + R"(", )" + kernel_fields + "}";
  };
  CHECK(check_site(named(1000)));
  CHECK(site_of(named(1020)) == kNoSpliceSite);
  CHECK(site_of(named(70000)) == kNoSpliceSite);
  CHECK(site_of(R"({"ph": "X", "ts": 5, "pid": 1})") == kNoSpliceSite);
  CHECK(check_site(R"({"ph": "X", "pid": 1, "cat": ")" + std::string(43, 'c') + R"(", "ts": 5})"));
  CHECK(site_of(R"({"ph": "X", "pid": 1, "cat": ")" + std::string(44, 'c') + R"(", "ts": 5})") ==
        kNoSpliceSite);
  // An absent ts is a site too: nothing to splice there. An absent pid is not.
  const std::string without_ts = R"({"ph": "X", "pid": 3})";
  const SpliceSite no_ts = site_of(without_ts);
  REQUIRE(no_ts != kNoSpliceSite);
  CHECK(splice_site_ts(no_ts) == kAbsentField);
  CHECK(splice_site_pid(no_ts) == without_ts.find('3'));
  CHECK(site_of(R"({"ph": "X", "ts": 5})") == kNoSpliceSite);
  CHECK(site_of("{}") == kNoSpliceSite);
}

TEST_CASE("a splice site holds every offset it takes, and refuses the others") {
  for (uint16_t pid_at = 1; pid_at <= 1023; ++pid_at) {
    INFO(pid_at);
    CHECK(splice_site_pid(make_splice_site(pid_at, kAbsentField)) == pid_at);
    CHECK(splice_site_ts(make_splice_site(pid_at, kAbsentField)) == kAbsentField);
    for (uint16_t step = 1; step <= 63; ++step) {
      const SpliceSite site = make_splice_site(pid_at, static_cast<uint16_t>(pid_at + step));
      REQUIRE(site != kNoSpliceSite);
      CHECK(splice_site_pid(site) == pid_at);
      CHECK(splice_site_ts(site) == pid_at + step);
    }
    CHECK(make_splice_site(pid_at, static_cast<uint16_t>(pid_at + 64)) == kNoSpliceSite);
    CHECK(make_splice_site(pid_at, pid_at) == kNoSpliceSite);
    CHECK(make_splice_site(pid_at, static_cast<uint16_t>(pid_at - 1)) == kNoSpliceSite);
  }
  CHECK(make_splice_site(1024, 1030) == kNoSpliceSite);
  CHECK(make_splice_site(kAbsentField, kAbsentField) == kNoSpliceSite);
  CHECK(make_splice_site(kAbsentField, 7) == kNoSpliceSite);
}

TEST_CASE("a splice site finds pid under an escaped key, as the parse reads it") {
  const std::string event = R"({"ph": "X", "p\u0069d": 42, "ts": 7})";
  REQUIRE(check_site(event));
  CHECK(splice_site_pid(site_of(event)) == event.find("42"));
}

TEST_CASE("a site whose text is not a number is refused (the input changed)") {
  const std::string event = R"({"ph": "X", "pid": 3, "ts": 5})";
  const SpliceSite site = site_of(event);
  REQUIRE(site != kNoSpliceSite);
  std::string changed = event;
  changed[splice_site_pid(site)] = '"';
  const Parsed parsed = padded(changed);
  TopLevelFields fields;
  CHECK_FALSE(fields_at_splice_site(parsed.text, site, fields));
}

TEST_CASE("pass 1's digesters work out splice sites only while a merge still keeps them") {
  const Parsed parsed = padded(R"({"ph": "X", "pid": 9, "tid": 1, "ts": 3.25, "dur": 1})");
  std::string arena;
  SpliceSiteGate sites;
  EventDigester merging({EventChecks::kMergeRank, PerEventRecords::kForMerge, &sites});
  CHECK(merging.digest(parsed.text, 0, 0, arena).splice_site != kNoSpliceSite);
  sites.close();  // the merge's budget refused one
  CHECK(merging.digest(parsed.text, 1, 0, arena).splice_site == kNoSpliceSite);
  EventDigester single_trace;
  CHECK(single_trace.digest(parsed.text, 0, 0, arena).splice_site == kNoSpliceSite);
  EventDigester without_gate({EventChecks::kMergeRank, PerEventRecords::kForMerge, nullptr});
  CHECK(without_gate.digest(parsed.text, 0, 0, arena).splice_site != kNoSpliceSite);
}

}  // namespace tracecompact
