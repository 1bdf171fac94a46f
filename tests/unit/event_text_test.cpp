// The events the plan adds are written as text without RapidJSON's writer, in
// the same bytes it would write: strings with every byte value, integers and
// times.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "sink/byte_sink.h"
#include "writer/event_text.h"
#include "writer/json_writer.h"

namespace tracecompact {
namespace {

template <typename WriteWithRapidJson>
std::string rapidjson_text(WriteWithRapidJson write) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  write(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// One output for every check: a new one clears 256 KiB, which under the
// sanitizers made this test the suite's slowest.
class EventTextOut {
 public:
  template <typename WriteWithEventText>
  std::string operator()(WriteWithEventText write) {
    written_.clear();
    EventText text(out_.stream());
    write(text);
    out_.stream().drain();
    return written_;
  }

 private:
  std::string written_;
  StringSink sink_{written_};
  JsonOut out_{sink_};
};

}  // namespace

TEST_CASE("event text spells strings and numbers as RapidJSON's writer does") {
  EventTextOut event_text;
  std::string every_byte;
  for (int c = 1; c < 256; ++c) every_byte += static_cast<char>(c);
  for (const std::string& s :
       {std::string(), std::string("layers.0.attention"), std::string("PP:0F1 -> PP:1F1"),
        every_byte, std::string("a\0b", 3), std::string("\xc3\xa9 \"q\" \\")}) {
    CHECK(event_text([&](EventText& t) { t.string(s); }) == rapidjson_text([&](auto& w) {
            w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
          }));
  }
  std::mt19937_64 random(5);
  for (int i = 0; i < 20000; ++i) {
    const auto bits = random();
    const int64_t value = static_cast<int64_t>(bits) >> (random() % 64);
    CHECK(event_text([&](EventText& t) { t.integer(value); }) ==
          rapidjson_text([&](auto& w) { w.Int64(value); }));
    CHECK(event_text([&](EventText& t) { t.unsigned_integer(bits); }) ==
          rapidjson_text([&](auto& w) { w.Uint64(bits); }));
    const double time = i % 2 ? static_cast<double>(bits % 10000000000000000ull) / 1000.0
                              : std::ldexp(static_cast<double>(bits >> 11), -(i % 90));
    CHECK(event_text([&](EventText& t) { t.time(time); }) ==
          rapidjson_text([&](auto& w) { w.Double(time); }));
  }
  CHECK_THROWS(
      EventTextOut()([](EventText& t) { t.time(std::numeric_limits<double>::infinity()); }));
}

}  // namespace tracecompact
