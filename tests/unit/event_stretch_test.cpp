// A stretch of the events array read on its own: from a known start it finds
// the tokenizer's events; from a guess inside an event it finds its way to the
// next true one.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tokenizer/event_stretch.h"

using namespace tracecompact;

namespace {

struct Read {
  std::vector<std::string> events;
  uint64_t first_event = 0;
  EventStretchReader::Stop stop = EventStretchReader::Stop::kIrregular;
  uint64_t stop_offset = 0;
};

Read read_stretch(const std::string& text, uint64_t begin, uint64_t end, uint64_t known_first) {
  RandomAccessMemory input(text);
  EventStretchReader reader;
  reader.start(input, text.size(), begin, end, known_first);
  Read out;
  do {
    out.events.clear();
    std::string_view event;
    uint64_t offset = 0;
    while (reader.next(event, offset)) out.events.emplace_back(event);
  } while (reader.guess_again());
  out.first_event = reader.first_event();
  out.stop = reader.stop();
  out.stop_offset = reader.stop_offset();
  return out;
}

}  // namespace

TEST_CASE("a stretch from a known start holds the events that start in it", "[stretch]") {
  const std::string text = R"({"traceEvents":[ {"a":1}, {"b":"},{"} ,{"c":[{"d":2}]}],"x":1})";
  const uint64_t array = text.find('[') + 1;
  const uint64_t c = text.find(R"({"c")");
  const Read all = read_stretch(text, array, text.size(), array);
  CHECK(all.events ==
        std::vector<std::string>{R"({"a":1})", R"({"b":"},{"})", R"({"c":[{"d":2}]})"});
  CHECK(all.first_event == text.find(R"({"a")"));
  CHECK(all.stop == EventStretchReader::Stop::kArrayEnd);
  CHECK(all.stop_offset == text.find("],"));
  // Cut before "c": the stretch stops at the event that starts at or after its end.
  const Read head = read_stretch(text, array, c - 1, array);
  CHECK(head.events.size() == 2);
  CHECK(head.stop == EventStretchReader::Stop::kNextEvent);
  CHECK(head.stop_offset == c);
  const std::string empty = R"({"traceEvents":[  ]})";
  const Read none = read_stretch(empty, 16, empty.size(), 16);
  CHECK(none.events.empty());
  CHECK(none.stop == EventStretchReader::Stop::kArrayEnd);
}

TEST_CASE("a guess inside an array of objects moves on to the next event", "[stretch]") {
  const std::string text = R"({"traceEvents":[{"a":[{"x":1},{"y":2}]},{"b":1},{"c":3}],"z":0})";
  const uint64_t y = text.find(R"({"y")");
  const Read read = read_stretch(text, y, text.size(), EventStretchReader::kNone);
  CHECK(read.first_event == text.find(R"({"b")"));
  CHECK(read.events == std::vector<std::string>{R"({"b":1})", R"({"c":3})"});
  CHECK(read.stop == EventStretchReader::Stop::kArrayEnd);
}

TEST_CASE("a stretch with nothing to guess has no first event", "[stretch]") {
  const std::string text = R"({"traceEvents":[{"a":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},{"b":1}]})";
  const Read read = read_stretch(text, 20, 30, EventStretchReader::kNone);
  CHECK(read.first_event == EventStretchReader::kNone);
  CHECK(read.events.empty());
}
