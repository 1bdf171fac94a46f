// The merge's field scan finds pid, tid, ts, ph and a flow's id by their spans,
// stops once it has them (pass 1 rejects repeated keys), and asks for a real
// parse when a key spelled with escapes comes before that.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "support/fixture_events.h"
#include "support/random_events.h"
#include "writer/top_level_fields.h"

namespace tracecompact {
namespace {

// The tokenizer leaves 64 readable bytes after every event; so does this.
std::string padded(const std::string& event) {
  return event + std::string(64, ' ');
}

std::string describe(const FieldSpan& span) {
  return span.found ? std::to_string(span.at) + "+" + std::to_string(span.length) : "-";
}

// What a scan makes of an event, as text.
std::string scanned(const std::string& event, bool need_tid, bool by_bytes) {
  const std::string buffer = padded(event);
  const std::string_view text(buffer.data(), event.size());
  TopLevelFields f;
  const bool found = by_bytes ? locate_top_level_fields_by_bytes(text, f, need_tid)
                              : locate_top_level_fields(text, f, need_tid);
  if (!found) return "refused";
  return describe(f.pid) + " " + describe(f.tid) + " " + describe(f.ts) + " " + describe(f.ph) +
         " " + describe(f.id);
}

void check_alike(const std::string& event) {
  INFO(event);
  for (const bool need_tid : {false, true})
    CHECK(scanned(event, need_tid, false) == scanned(event, need_tid, true));
}

}  // namespace

TEST_CASE("the block scan and the byte scan find the same spans in every fixture event") {
  size_t compared = 0;
  for (const std::string& event : testsupport::fixture_events(TRACECOMPACT_FIXTURES)) {
    check_alike(event);
    ++compared;
  }
  CHECK(compared > 1000);
}

TEST_CASE("the block scan and the byte scan find the same spans in random events") {
  testsupport::RandomEventMaker maker(20261203);
  for (int i = 0; i < 20000; ++i) check_alike(maker.event());
  // Hand-picked: fields after a nested value, a key split by a block boundary,
  // a string full of structure, a closing brace inside a string.
  check_alike(
      R"({"args": {"pid": 1, "ts": [1, {"tid": 2}]}, "ph": "X", "pid": 3, "tid": 4, "ts": 5})");
  check_alike("{\"name\": \"" + std::string(58, 'n') + "\", \"pid\": 1, \"tid\": 2, \"ts\": 3}");
  check_alike(R"({"name": "a:b,{c}[d]\"e", "pid": 1, "ts": 2, "ph": "s", "id": "x}"})");
  check_alike(R"({"ph": "f", "pid": 1, "ts": 2, "tid": 3, "id": {"a": 1}})");
  check_alike(R"({ "ts" : 1 , "pid" : 2 , "ph" : "X" , "tid" : 3 })");
  // Escapes in values the scan steps over: an escaped backslash before the
  // closing quote, an escaped quote before a key's text, escapes across the
  // 32-byte steps, and \u escapes.
  check_alike(R"({"name": "a\\", "pid": 1, "ts": 2, "ph": "X", "tid": 3})");
  check_alike(R"({"name": "q\"pid\": 5", "pid": 1, "ts": 2, "ph": "X", "tid": 3})");
  for (size_t pad = 25; pad < 40; ++pad)
    check_alike("{\"name\": \"" + std::string(pad, 'n') + "\\\"\\\\\\u0041\", \"pid\": 1, " +
                "\"ts\": 2, \"ph\": \"X\", \"tid\": 3}");
  // A value that ends the event, and literals.
  check_alike(R"({"ph": "X", "pid": true, "tid": null, "ts": 12.5e3})");
}

TEST_CASE("the field scan finds the spans of the fields it splices") {
  const std::string event =
      R"({"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": 12.5, "args": {"pid": 9}})";
  const std::string buffer = padded(event);
  const std::string_view text(buffer.data(), event.size());
  TopLevelFields fields;
  REQUIRE(locate_top_level_fields(text, fields, true));
  CHECK(fields.ph.in(text) == "\"X\"");
  CHECK(fields.pid.in(text) == "0");
  CHECK(fields.tid.in(text) == "7");
  CHECK(fields.ts.in(text) == "12.5");
  CHECK_FALSE(fields.id.found);
}

TEST_CASE("the field scan stops once it has what the splice needs") {
  // An escaped key after ts: never reached, as pass 1 has ruled out that it
  // repeats pid/tid/ts/ph/id.
  const std::string event = R"({"ph":"X","pid":1,"tid":2,"ts":3,"dur":1,"p\u0069d":4})";
  const std::string buffer = padded(event);
  const std::string_view text(buffer.data(), event.size());
  TopLevelFields fields;
  CHECK(locate_top_level_fields(text, fields, true));
  CHECK(fields.pid.in(text) == "1");

  // A flow needs its id too: the escaped key comes first, so a real parse is asked for.
  const std::string flow = R"({"ph":"s","pid":1,"tid":2,"ts":3,"i\u0064":4})";
  const std::string flow_buffer = padded(flow);
  CHECK_FALSE(
      locate_top_level_fields(std::string_view(flow_buffer.data(), flow.size()), fields, true));

  // Without tid wanted, an event lacking it still completes.
  const std::string no_tid = R"({"ph":"i","pid":1,"ts":3,"s":"g","\u0074id":5})";
  const std::string no_tid_buffer = padded(no_tid);
  CHECK(locate_top_level_fields(std::string_view(no_tid_buffer.data(), no_tid.size()), fields,
                                false));
  CHECK_FALSE(fields.tid.found);
}

TEST_CASE("flow phases are told from their tokens") {
  CHECK(is_flow_phase_token("\"s\""));
  CHECK(is_flow_phase_token("\"t\""));
  CHECK(is_flow_phase_token("\"f\""));
  CHECK_FALSE(is_flow_phase_token("\"X\""));
  CHECK_FALSE(is_flow_phase_token("\"\\u0073\""));
}

}  // namespace tracecompact
