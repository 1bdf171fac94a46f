// PreparedFileSink: whatever the helper reserved ahead, the file holds exactly the
// bytes written, in order, once finished; stopping without finish() is safe.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "sink/prepared_file_sink.h"
#include "support/json_compare.h"
#include "support/new_file.h"
#include "support/temp_dir.h"

namespace tracecompact {
TEST_CASE("a prepared file holds exactly the bytes written") {
  testsupport::TempDir dir;
  const std::string path = dir.path("out.json");
  std::mt19937 random(3);
  std::string expected;
  {
    testsupport::NewFile file(path);
    REQUIRE(file.fd >= 0);
    // Small steps and lead, so that the helper reserves many times during the writes.
    PreparedFileSink sink(file.fd, path, 64 << 10, 256 << 10);
    INFO("preparing: " << sink.preparing());  // ext4, XFS, btrfs, tmpfs: yes
    while (expected.size() < (3u << 20)) {
      const std::string piece(1 + random() % 70000, static_cast<char>('a' + random() % 26));
      sink.write(piece.data(), piece.size());
      expected += piece;
    }
    sink.finish();
  }
  const std::string got = testsupport::read_file(path);
  REQUIRE(got.size() == expected.size());
  CHECK(got == expected);
}

TEST_CASE("a prepared file with nothing written is empty") {
  testsupport::TempDir dir;
  const std::string path = dir.path("empty.json");
  {
    testsupport::NewFile file(path);
    PreparedFileSink sink(file.fd, path, 64 << 10, 256 << 10);
    sink.finish();
  }
  CHECK(testsupport::read_file(path).empty());
}

TEST_CASE("a prepared file sink stops its helper without finish()") {
  testsupport::TempDir dir;
  const std::string path = dir.path("dropped.json");
  testsupport::NewFile file(path);
  {
    PreparedFileSink sink(file.fd, path, 64 << 10, 256 << 10);
    const std::string piece(100000, 'x');
    sink.write(piece.data(), piece.size());
  }  // a failed run: the caller removes the file
  SUCCEED("helper joined");
}

}  // namespace tracecompact
