// WriteBehindSink: bytes arrive in order through the writer thread whatever the
// write sizes; the inner sink is finished last; a writer failure reaches the caller.
#include <catch2/catch.hpp>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sink/write_behind_sink.h"

namespace tracecompact {
namespace {

class RecordingSink final : public ByteSink {
 public:
  void write(const char* data, size_t size) override {
    if (finished) throw std::logic_error("write after finish");
    text.append(data, size);
    if (fail_after && text.size() > fail_after) throw std::runtime_error("disk full");
  }
  void finish() override { finished = true; }
  std::string text;
  bool finished = false;
  size_t fail_after = 0;
};

}  // namespace

TEST_CASE("write-behind keeps byte order across block boundaries") {
  std::string expected;
  for (int i = 0; i < 5000; ++i) expected += std::to_string(i * 7919) + (i % 13 ? "," : "\n");
  for (size_t block : {size_t{1}, size_t{7}, size_t{64}, size_t{4096}}) {
    RecordingSink inner;
    {
      WriteBehindSink sink(inner, block, 3);
      for (size_t at = 0, step = 1; at < expected.size(); at += step, step = step % 97 + 5)
        sink.write(expected.data() + at, std::min(step, expected.size() - at));
      sink.finish();
      CHECK(inner.finished);
    }
    CHECK(inner.text == expected);
  }
}

TEST_CASE("write-behind keeps byte order when whole buffers are handed over") {
  std::string expected;
  RecordingSink inner;
  {
    WriteBehindSink sink(inner, 64, 3);
    IoBytes buffer;
    for (int i = 0; i < 2000; ++i) {
      const std::string piece =
          "<" + std::to_string(i) + std::string(static_cast<size_t>(i % 150), '.') + ">";
      if (i % 3 == 0) {
        sink.write(piece.data(), piece.size());
        expected += piece;
        continue;
      }
      // A buffer with a prefix that is not written, as a rendered batch has.
      buffer.assign(1 + i % 5, '[');
      const size_t begin = buffer.size();
      buffer.insert(buffer.end(), piece.begin(), piece.end());
      sink.adopt(buffer, begin, buffer.size());  // buffer now holds other storage
      expected += piece;
    }
    sink.finish();
  }
  CHECK(inner.text == expected);
}

TEST_CASE("write-behind rethrows the writer's failure to the caller") {
  RecordingSink inner;
  inner.fail_after = 10000;
  const std::string chunk(1000, 'x');
  auto write_all = [&] {
    WriteBehindSink sink(inner, 512, 2);
    for (int i = 0; i < 1000; ++i) sink.write(chunk.data(), chunk.size());
    sink.finish();
  };
  CHECK_THROWS_WITH(write_all(), "disk full");
  CHECK_FALSE(inner.finished);
}

TEST_CASE("write-behind dropped without finish stops quietly") {
  RecordingSink inner;
  {
    WriteBehindSink sink(inner, 16, 2);
    sink.write("partial output", 14);
  }
  CHECK_FALSE(inner.finished);
}

TEST_CASE("write-behind reports blocks it could not prepare at the first use") {
  // The writer thread sizes the blocks; a size no vector can have fails there.
  RecordingSink inner;
  for (int use = 0; use < 3; ++use) {
    WriteBehindSink sink(inner, std::numeric_limits<size_t>::max(), 2);
    IoBytes buffer(8, 'x');
    if (use == 0) CHECK_THROWS_AS(sink.write("x", 1), std::length_error);
    if (use == 1) CHECK_THROWS_AS(sink.adopt(buffer, 0, buffer.size()), std::length_error);
    if (use == 2) CHECK_THROWS_AS(sink.finish(), std::length_error);
  }
  CHECK(inner.text.empty());
  CHECK_FALSE(inner.finished);
}

TEST_CASE("write-behind queue is at most a quarter of the expected output, 2 to 8 blocks") {
  constexpr size_t kBlock = WriteBehindSink::kBlockBytes;
  CHECK(WriteBehindSink::depth_for(0) == WriteBehindSink::kDeepest);  // unknown: the deepest
  CHECK(WriteBehindSink::depth_for(100'000) == 2);
  CHECK(WriteBehindSink::depth_for(7'614'657) == 2);  // repeated_pp_key n=1000
  CHECK(WriteBehindSink::depth_for(12 * kBlock) == 3);
  CHECK(WriteBehindSink::depth_for(25'200'000) == 6);
  CHECK(WriteBehindSink::depth_for(32 * kBlock) == WriteBehindSink::kDeepest);
  CHECK(WriteBehindSink::depth_for(uint64_t{5} << 30) == WriteBehindSink::kDeepest);
}

TEST_CASE("write-behind with the shallowest queue keeps byte order") {
  RecordingSink inner;
  std::string expected;
  const size_t depth = WriteBehindSink::depth_for(100, 64);  // under four blocks expected
  REQUIRE(depth == 2);
  {
    WriteBehindSink sink(inner, 64, depth);
    for (int i = 0; i < 200; ++i) {
      const std::string piece = std::to_string(i) + ",";
      sink.write(piece.data(), piece.size());
      expected += piece;
    }
    sink.finish();
  }
  CHECK(inner.text == expected);
  CHECK(inner.finished);
}

}  // namespace tracecompact
