// Pass 1's splice sites (json/splice_site.h) point at the tokens of the event's
// own top-level pid and ts, as the on-demand reader finds them, and are left
// out where the merge's splice must not rely on them: flow and metadata
// phases, a pid or ts that is not a number, an object or array before them,
// offsets the 2-byte site cannot hold, events the tape reader hands on.
// Events without a site (past the record budget, or offsets a site cannot
// hold) may still have pid and ts found by their keys' text in pass 2: pass 1
// allows it only where the first "pid" key in the text is the top-level one
// and the first "ts" key after it too (TapeReader::has_plain_pid_ts), and the
// search (find_plain_pid_ts) must then land on the on-demand reader's tokens.
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

// Parses `parsed` as pass 1 does; false for an invalid event.
bool parse(const Parsed& parsed, EventParser& parser) {
  try {
    parser.parse_in_place(parsed.text, {0, 0});
    return true;
  } catch (const Error&) {
    return false;
  }
}

// The site pass 1 keeps for `event`, or kNoSpliceSite (also for an invalid event).
SpliceSite site_of(const std::string& event) {
  const Parsed parsed = padded(event);
  EventParser parser;
  return parse(parsed, parser) ? parser.splice_site() : kNoSpliceSite;
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
  FieldSpan pid, ts;
  REQUIRE(splice_site_spans(parsed.text, site, pid, ts));
  CHECK(describe(pid) == describe_token(f.pid.raw, parsed.text, f.pid.present()));
  CHECK(describe(ts) == describe_token(f.ts.raw, parsed.text, f.ts.present()));
  CHECK_FALSE((f.ph.is("M") || f.ph.is("s") || f.ph.is("t") || f.ph.is("f")));
  return true;
}

// Whether pass 1 allows the search for `event` (false for an invalid event).
bool allowed(const std::string& event) {
  const Parsed parsed = padded(event);
  EventParser parser;
  return parse(parsed, parser) && parser.has_plain_pid_ts();
}

// Where the search finds pid and ts against where the on-demand reader finds
// them (no numbers: that it refuses them); true when pass 1 allows the search.
bool check_search(const std::string& event) {
  INFO(event);
  if (!allowed(event)) return false;
  const Parsed parsed = padded(event);
  EventParser on_demand(EventParser::Reader::kOnDemand);
  const EventFields& f = on_demand.parse_in_place(parsed.text, {0, 0});
  FieldSpan pid, ts;
  if (!f.pid.is_number() || !f.ts.is_number()) {  // pass 2 then scans
    CHECK_FALSE(find_plain_pid_ts(parsed.text, pid, ts));
    return true;
  }
  REQUIRE(find_plain_pid_ts(parsed.text, pid, ts));
  CHECK(describe(pid) == describe_token(f.pid.raw, parsed.text, true));
  CHECK(describe(ts) == describe_token(f.ts.raw, parsed.text, true));
  CHECK_FALSE((f.ph.is("M") || f.ph.is("s") || f.ph.is("t") || f.ph.is("f")));
  return true;
}

// The members of a random event, without its braces ("" when it has none).
std::string members_of(const std::string& event) {
  const std::string inner = event.substr(1, event.size() - 2);
  return inner.find_first_not_of(" \t\r\n") == std::string::npos ? "" : inner;
}

// Each event of the fixtures under `directory` checked; how many had a site
// and how many allowed the search.
struct SiteCounts {
  size_t events = 0, sited = 0, searched = 0;
};
SiteCounts check_fixture_events(const std::string& directory) {
  SiteCounts counts;
  for (const std::string& event : testsupport::fixture_events(directory)) {
    ++counts.events;
    if (check_site(event)) ++counts.sited;
    if (check_search(event)) ++counts.searched;
  }
  return counts;
}

}  // namespace

TEST_CASE("sites and the key search point at pid and ts in every fixture event that has them") {
  const SiteCounts all = check_fixture_events(TRACECOMPACT_FIXTURES);
  // The random traces' escaped and reordered keys are checked too, but left
  // out of the share: most other events have pid and ts plainly before args.
  const SiteCounts random = check_fixture_events(TRACECOMPACT_FIXTURES "/random");
  CHECK(all.events > 1000);
  CHECK(random.events > 0);
  CHECK((all.sited - random.sited) * 2 > all.events - random.events);
  CHECK((all.searched - random.searched) * 2 > all.events - random.events);
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
  FieldSpan pid, ts;
  CHECK_FALSE(splice_site_spans(parsed.text, site, pid, ts));
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

TEST_CASE("the key search finds pid and ts in random events pass 1 allows it for") {
  testsupport::RandomEventMaker maker(20261207);
  size_t searched = 0;
  for (int i = 0; i < 20000; ++i)
    if (check_search(maker.event())) ++searched;
  // Random members around a plain pid and ts: strings, keys and nested values
  // full of the keys' text before and after them.
  for (int i = 0; i < 20000; ++i) {
    const std::string before = members_of(maker.event()), after = members_of(maker.event());
    const std::string event = "{" + before + (before.empty() ? "" : ",") +
                              R"("pid": 7, "tid": 1, "ts": 8.5)" + (after.empty() ? "" : ",") +
                              after + "}";
    if (check_search(event)) ++searched;
  }
  CHECK(searched > 500);
}

TEST_CASE("the key search steps over the keys' text where it is no key") {
  // In a string (its quotes escaped), a key whose text ends in an escaped
  // quote, a string value "pid" (no colon after it), longer keys.
  CHECK(check_search(R"({"name": "q\"pid\": 5, \"ts\": 6", "pid": 1, "tid": 2, "ts": 3})"));
  CHECK(check_search(R"({"x\"pid": 5, "y\"ts": 6, "pid": 1, "ts": 3})"));
  CHECK(check_search(R"({"name": "pid", "cat": "ts", "pid": 1, "ts": 3})"));
  CHECK(check_search(R"({"pidx": 0, "xpid": 0, "pid" : 1, "tsx": 2, "ts"	:	3})"));
  CHECK(check_search(R"({"name": "a\\", "pid": -1, "ts": 1.5e3})"));
  // Keys across the search's 32-byte steps.
  for (size_t pad = 20; pad < 40; ++pad)
    CHECK(check_search(R"({"name": ")" + std::string(pad, 'n') + R"(", "pid": 1, "ts": 2})"));
}

TEST_CASE("pass 1 allows the key search only where the first keys found are the fields") {
  const std::string fields = R"("pid": 0, "tid": 7, "ts": 12.5, "dur": 1)";
  CHECK(allowed(R"({"ph": "X", )" + fields + R"(, "args": {"pid": 9, "ts": 8}})"));
  // An object or array before them may hold the same keys.
  CHECK_FALSE(allowed(R"({"args": {"pid": 9, "ts": 8}, )" + fields + "}"));
  CHECK_FALSE(allowed(R"({"pid": 0, "args": {"ts": 8}, "ts": 12.5})"));
  CHECK_FALSE(allowed(R"({"dims": [1], )" + fields + "}"));
  // ts before pid, or absent (the search would go on into args).
  CHECK_FALSE(allowed(R"({"ts": 12.5, "pid": 0, "args": {"ts": 1}})"));
  CHECK_FALSE(allowed(R"({"pid": 0, "args": {"ts": 1}})"));
  CHECK_FALSE(allowed(R"({"ts": 1, "args": {"pid": 1}})"));
  // Keys spelled with escapes: the search would miss them.
  CHECK_FALSE(allowed(R"({"p\u0069d": 0, "ts": 1, "args": {"pid": 2}})"));
  CHECK_FALSE(allowed(R"({"pid": 0, "t\u0073": 1, "args": {"ts": 2}})"));
  // Metadata and flows: pass 2 reads them whole.
  for (const char* phase : {"M", "s", "t", "f"})
    CHECK_FALSE(allowed(R"({"ph": ")" + std::string(phase) + R"(", )" + fields + "}"));
}

TEST_CASE("pass 1's digesters work out the key search for a merge's events only") {
  const Parsed parsed = padded(R"({"ph": "X", "pid": 9, "tid": 1, "ts": 3.25, "dur": 1})");
  std::string arena;
  SpliceSiteGate sites;
  EventDigester merging({EventChecks::kMergeRank, PerEventRecords::kForMerge, &sites});
  const EventDigest with_site = merging.digest(parsed.text, 0, 0, arena);
  CHECK(with_site.splice_site != kNoSpliceSite);
  // Whether the site is kept is the index builder's to say: the bit comes too.
  CHECK(with_site.plain_pid_ts);
  sites.close();
  CHECK(merging.digest(parsed.text, 1, 0, arena).plain_pid_ts);
  EventDigester single_trace;
  CHECK_FALSE(single_trace.digest(parsed.text, 0, 0, arena).plain_pid_ts);
}

TEST_CASE("the key search refuses values that are no numbers (pass 2 then scans)") {
  FieldSpan pid, ts;
  for (const std::string event :
       {R"({"pid": "main", "ts": 1})", R"({"pid": 0, "ts": null})", R"({"pid": 0, "ts": "5"})"}) {
    INFO(event);
    CHECK(allowed(event));
    const Parsed parsed = padded(event);
    CHECK_FALSE(find_plain_pid_ts(parsed.text, pid, ts));
  }
  // The same where the input changed since pass 1.
  const std::string event = R"({"ph": "X", "pid": 3, "ts": 5})";
  REQUIRE(allowed(event));
  std::string changed = event;
  changed[changed.find('3')] = '"';
  const Parsed parsed = padded(changed);
  CHECK_FALSE(find_plain_pid_ts(parsed.text, pid, ts));
}

}  // namespace tracecompact
