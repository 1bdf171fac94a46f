// OutputStream: bytes_written() is where the output stands, whether bytes were
// copied into its buffer, handed to the sink with a buffer taken over (a
// separator folded in front of it, or drained before it), or written past the
// buffer.
#include <catch2/catch.hpp>

#include <string>

#include "sink/byte_sink.h"
#include "writer/output_stream.h"

namespace tracecompact {

TEST_CASE("bytes_written counts each byte once whichever way it reaches the sink") {
  std::string written;
  StringSink sink(written);
  OutputStream out(sink, 64 << 10);
  auto adopt = [&](const std::string& text, size_t prefix) {
    IoBytes buffer(prefix, '[');
    buffer.insert(buffer.end(), text.begin(), text.end());
    out.adopt(buffer, prefix, buffer.size());
  };
  std::string expected;
  auto check = [&] {
    out.drain();
    CHECK(written == expected);
    CHECK(out.bytes_written() == written.size());
  };

  out.write("{", 1);
  expected += "{";
  adopt("\"a\":1", 1);  // the pending "{" fits in front of the buffer's data
  expected += "\"a\":1";
  check();

  out.write(",", 1);
  adopt("\"b\":2", 4);  // pending "," folded in, three bytes of room left unused
  expected += ",\"b\":2";
  check();

  out.write(",  ", 3);
  adopt("\"c\":3", 1);  // pending bytes that do not fit are drained first
  expected += ",  \"c\":3";
  check();

  const std::string large(100 << 10, 'x');  // larger than the buffer: straight to the sink
  out.write(large.data(), large.size());
  expected += large;
  check();
}

}  // namespace tracecompact
