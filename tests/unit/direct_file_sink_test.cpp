// DirectFileSink: whole blocks past the page cache, the tail through it; the file
// holds exactly the bytes written whatever their sizes, also where O_DIRECT is
// not used (tmpfs), and stopping without finish() is safe.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "sink/direct_file_sink.h"
#include "sink/file_system.h"
#include "sink/output_file.h"
#include "support/json_compare.h"
#include "support/new_file.h"
#include "support/temp_dir.h"

namespace tracecompact {
namespace {

constexpr size_t kSmallBuffer = 4 * DirectFileSink::kAlignment;

// Writes pieces of random sizes (unaligned, some larger than the buffer) and
// returns what the file must hold.
std::string write_random_pieces(ByteSink& sink, size_t total, unsigned seed) {
  std::mt19937 random(seed);
  std::string expected;
  while (expected.size() < total) {
    const size_t size = random() % 3 == 0 ? kSmallBuffer : 1 + random() % 40000;
    const std::string piece(size, static_cast<char>('a' + random() % 26));
    sink.write(piece.data(), piece.size());
    expected += piece;
  }
  return expected;
}

bool o_direct_set(int fd) {
  return (::fcntl(fd, F_GETFL) & O_DIRECT) != 0;
}

}  // namespace

TEST_CASE("a direct file holds exactly the bytes written") {
  testsupport::TempDir dir;
  const std::string path = dir.path("out.json");
  std::string expected;
  {
    testsupport::NewFile file(path);
    REQUIRE(file.fd >= 0);
    DirectFileSink sink(file.fd, path, kSmallBuffer);
    // On a local disk the writes bypass the page cache until finish().
    const bool local_disk = file_system_kind(file.fd) == FileSystemKind::local_disk;
    CHECK(sink.direct() == local_disk);
    CHECK(o_direct_set(file.fd) == local_disk);
    expected = write_random_pieces(sink, 3u << 20, 5);
    CHECK(sink.direct() == local_disk);
    sink.finish();
    CHECK_FALSE(o_direct_set(file.fd));  // the tail went through the page cache
  }
  const std::string got = testsupport::read_file(path);
  REQUIRE(got.size() == expected.size());
  CHECK(got == expected);
}

TEST_CASE("a direct file shorter than a block, or a whole number of blocks") {
  testsupport::TempDir dir;
  for (const size_t size : {size_t{0}, size_t{1}, DirectFileSink::kAlignment - 1,
                            DirectFileSink::kAlignment, kSmallBuffer, 3 * kSmallBuffer + 17}) {
    const std::string path = dir.path("out" + std::to_string(size) + ".json");
    const std::string data(size, 'q');
    {
      testsupport::NewFile file(path);
      DirectFileSink sink(file.fd, path, kSmallBuffer);
      sink.write(data.data(), data.size());
      sink.finish();
    }
    INFO("size " << size);
    CHECK(testsupport::read_file(path) == data);
  }
}

TEST_CASE("a direct file sink off a local disk writes plainly") {
  const std::filesystem::path shm("/dev/shm");
  if (!std::filesystem::is_directory(shm)) return;  // no tmpfs to try
  const std::string path = (shm / ("tracecompact-direct-" + std::to_string(::getpid()))).string();
  std::string expected;
  {
    testsupport::NewFile file(path);
    REQUIRE(file.fd >= 0);
    DirectFileSink sink(file.fd, path, kSmallBuffer);
    CHECK_FALSE(sink.direct());
    expected = write_random_pieces(sink, 200000, 6);
    sink.finish();
  }
  const std::string got = testsupport::read_file(path);
  std::filesystem::remove(path);
  CHECK(got == expected);
}

TEST_CASE("a direct file sink dropped without finish() leaves no thread or leak") {
  testsupport::TempDir dir;
  const std::string path = dir.path("dropped.json");
  testsupport::NewFile file(path);
  {
    DirectFileSink sink(file.fd, path, kSmallBuffer);
    const std::string piece(100000, 'x');
    sink.write(piece.data(), piece.size());
  }  // a failed run: the caller removes the file
  SUCCEED("dropped");
}

}  // namespace tracecompact

namespace tracecompact {

TEST_CASE("an output file bypasses the page cache unless the run reads it back") {
  testsupport::TempDir dir;
  const int folder = ::open(dir.root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(folder >= 0);
  const bool local_disk = file_system_kind(folder) == FileSystemKind::local_disk;
  ::close(folder);
  const std::string data(3 * DirectFileSink::kAlignment + 5, 'z');
  for (const bool read_back : {false, true}) {
    INFO("read back: " << read_back);
    OutputSpec spec;
    spec.path = dir.path(read_back ? "verified.json" : "plain.json");
    spec.read_back = read_back;
    {
      OutputFile file(spec);
      CHECK(file.bypasses_page_cache() == (local_disk && !read_back));
      file.sink().write(data.data(), data.size());
      file.commit();
    }
    CHECK(testsupport::read_file(spec.path) == data);
  }
}

}  // namespace tracecompact
