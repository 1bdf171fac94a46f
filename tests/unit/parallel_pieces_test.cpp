// render_array_pieces: pieces rendered on helper threads land in piece order,
// with the array's separators right, whatever the thread count; failures come
// back in piece order and leave no temporary file behind.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "merge/parallel_pieces.h"
#include "sink/byte_sink.h"
#include "support/temp_dir.h"

namespace tracecompact {
namespace {

// Piece p holds p % 3 elements ("p.0", "p.1"): some pieces are empty.
void render_numbers(size_t piece, JsonOut& out) {
  for (size_t k = 0; k < piece % 3; ++k)
    out.string(std::to_string(piece) + "." + std::to_string(k));
}

std::string render_all(size_t count, unsigned threads) {
  std::string text;
  StringSink sink(text);
  {
    JsonOut out(sink);
    out.start_array();
    render_array_pieces(count, threads, out, render_numbers);
    out.end_array();
    out.stream().drain();
  }
  return text;
}

std::string expected_text(size_t count) {
  std::string text = "[";
  for (size_t piece = 0; piece < count; ++piece)
    for (size_t k = 0; k < piece % 3; ++k) {
      if (text.size() > 1) text += ",";
      text += "\"" + std::to_string(piece) + "." + std::to_string(k) + "\"";
    }
  return text + "]";
}

size_t files_in(const std::filesystem::path& folder) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++n;
  return n;
}

}  // namespace

TEST_CASE("parallel pieces keep piece order and separators at any thread count") {
  testsupport::TempDir tmp;
  ::setenv("TMPDIR", tmp.root().c_str(), 1);
  for (size_t count : {0u, 1u, 2u, 3u, 7u, 12u})
    for (unsigned threads : {1u, 2u, 3u, 8u}) {
      INFO("count " << count << " threads " << threads);
      CHECK(render_all(count, threads) == expected_text(count));
    }
  CHECK(files_in(tmp.root()) == 0);
  ::unsetenv("TMPDIR");
}

TEST_CASE("parallel pieces report the first failure in piece order and clean up") {
  testsupport::TempDir tmp;
  ::setenv("TMPDIR", tmp.root().c_str(), 1);
  for (unsigned threads : {1u, 2u, 4u}) {
    std::string text;
    StringSink sink(text);
    JsonOut out(sink);
    out.start_array();
    auto render = [](size_t piece, JsonOut& piece_out) {
      if (piece == 3 || piece == 5) throw std::runtime_error("piece " + std::to_string(piece));
      render_numbers(piece, piece_out);
    };
    CHECK_THROWS_WITH(render_array_pieces(8, threads, out, render), "piece 3");
  }
  CHECK(files_in(tmp.root()) == 0);
  ::unsetenv("TMPDIR");
}

}  // namespace tracecompact
