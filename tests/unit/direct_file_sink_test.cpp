// DirectFileSink: whole blocks past the page cache, the tail through it; the file
// holds exactly the bytes written whatever their sizes, also after falling back to
// plain writes and where O_DIRECT is not used (tmpfs). OutputFile uses it for new
// files on a local disk, unless the run reads the file back.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
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

// Whether files in `folder` can be written with O_DIRECT here; the checks that
// need it are skipped, and say so, where the test's folder is not on a local disk.
bool on_local_disk(const std::filesystem::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const bool local = fd >= 0 && file_system_kind(fd) == FileSystemKind::local_disk;
  if (fd >= 0) ::close(fd);
  if (!local) WARN("the test folder is not on a local disk: O_DIRECT paths not exercised");
  return local;
}

off_t file_size(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 ? info.st_size : -1;
}

}  // namespace

TEST_CASE("a direct file holds exactly the bytes written") {
  testsupport::TempDir dir;
  const bool local_disk = on_local_disk(dir.root());
  const std::string path = dir.path("out.json");
  std::string expected;
  {
    testsupport::NewFile file(path);
    REQUIRE(file.fd >= 0);
    DirectFileSink sink(file.fd, path, kSmallBuffer);
    // On a local disk the writes bypass the page cache until finish().
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

TEST_CASE("a direct file shorter than a block, or a whole number of blocks, finished twice") {
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
      sink.finish();  // writes nothing more
    }
    INFO("size " << size);
    CHECK(testsupport::read_file(path) == data);
  }
}

TEST_CASE("a direct file falls back to plain writes when a direct write is refused") {
  testsupport::TempDir dir;
  if (!on_local_disk(dir.root())) return;
  // Refused while writing, or first in finish() with a partial block behind it.
  for (const size_t total : {size_t{200000}, size_t{5000}}) {
    INFO("bytes " << total);
    const std::string path = dir.path("fallback" + std::to_string(total) + ".json");
    std::string expected = "x";
    {
      testsupport::NewFile file(path);
      // One byte written first leaves the file offset unaligned: the first direct
      // write fails with EINVAL, as on a file system that wants larger alignment.
      REQUIRE(::write(file.fd, "x", 1) == 1);
      DirectFileSink sink(file.fd, path, kSmallBuffer);
      REQUIRE(sink.direct());
      if (total < kSmallBuffer) {  // all of it waits in the buffer until finish()
        const std::string piece(total, 'p');
        sink.write(piece.data(), piece.size());
        expected += piece;
      } else {
        expected += write_random_pieces(sink, total, 7);
      }
      sink.finish();
      CHECK_FALSE(sink.direct());
      CHECK_FALSE(o_direct_set(file.fd));
    }
    CHECK(testsupport::read_file(path) == expected);
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

TEST_CASE("a direct file sink dropped without finish() leaves whole blocks only") {
  testsupport::TempDir dir;
  const bool local_disk = on_local_disk(dir.root());
  const std::string path = dir.path("dropped.json");
  testsupport::NewFile file(path);
  {
    DirectFileSink sink(file.fd, path, kSmallBuffer);
    const std::string piece(100000, 'x');
    sink.write(piece.data(), piece.size());
  }  // a failed run: the caller removes the file
  // What was written went out in whole buffers; the rest was dropped, not flushed.
  if (local_disk) CHECK(file_size(path) == 100000 / kSmallBuffer * kSmallBuffer);
}

TEST_CASE("an output file bypasses the page cache unless the run reads it back") {
  testsupport::TempDir dir;
  const bool local_disk = on_local_disk(dir.root());
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

TEST_CASE("direct sink buffers are an eighth of the expected output, 256 KiB to 2 MiB") {
  constexpr size_t kLargest = DirectFileSink::kLargestBuffer;
  CHECK(DirectFileSink::buffer_size_for(0) == kLargest);  // unknown: the largest
  CHECK(DirectFileSink::buffer_size_for(100'000) == size_t{256} << 10);
  // repeated_pp_key n=1000 (7.6 MB): 951 804 bytes, rounded down to whole 4 KiB pages
  CHECK(DirectFileSink::buffer_size_for(7'614'657) == 950'272);
  CHECK(DirectFileSink::buffer_size_for(7'614'657) % DirectFileSink::kAlignment == 0);
  CHECK(DirectFileSink::buffer_size_for(16 * kLargest) == kLargest);
  CHECK(DirectFileSink::buffer_size_for(uint64_t{5} << 30) == kLargest);
}

}  // namespace tracecompact
