// GzipSink: the same bytes give the same gzip member however they are split
// into writes (thread counts and render batches split the output differently),
// and the member decompresses to those bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sink/byte_sink.h"
#include "source/byte_source.h"

namespace tracecompact {
namespace {

// About 3 MB of trace-like text: repetitive enough to compress, varied
// enough that the encoder's choices depend on what it has seen.
std::string trace_like_text() {
  std::string text;
  uint64_t state = 88172645463325252ull;
  while (text.size() < (size_t{3} << 20)) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    text += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k" + std::to_string(state % 97) +
            "\",\"pid\":" + std::to_string(state % 5) +
            ",\"tid\":" + std::to_string(1000 + state % 13) +
            ",\"ts\":" + std::to_string(state % 1000003) + "." + std::to_string(state % 1000) +
            ",\"dur\":" + std::to_string(state % 77) + "},";
  }
  return text;
}

// Inflated by the input side's reader, which checks the member's CRC and length.
std::string gunzip(const std::string& packed) {
  GzipSource source(std::make_unique<MemorySource>(packed), "test");
  std::string text;
  char buffer[1 << 16];
  while (const size_t got = source.read(buffer, sizeof buffer)) text.append(buffer, got);
  return text;
}

std::string gzip_in_pieces(const std::string& text, int level,
                           const std::vector<size_t>& piece_sizes) {
  std::string packed;
  StringSink out(packed);
  GzipSink gzip(out, level);
  size_t at = 0;
  for (size_t i = 0; at < text.size(); ++i) {
    const size_t piece = std::min(piece_sizes[i % piece_sizes.size()], text.size() - at);
    gzip.write(text.data() + at, piece);
    at += piece;
  }
  gzip.finish();
  return packed;
}

}  // namespace

TEST_CASE("a gzip member does not depend on how its bytes were split into writes", "[gzip]") {
  const std::string text = trace_like_text();
  for (int level = 0; level <= 3; ++level) {
    INFO("level " << level);
    const std::string whole = gzip_in_pieces(text, level, {text.size()});
    CHECK((gunzip(whole) == text));
    // Render batches of ~504 KiB, write-behind blocks of 1 MiB, tiny pieces,
    // pieces of the step size and around it.
    for (const auto& pieces : std::vector<std::vector<size_t>>{{516096},
                                                               {1 << 20},
                                                               {1, 7, 4093, 100000},
                                                               {65536},
                                                               {65535, 65537},
                                                               {300000, 12, 65536, 999}}) {
      INFO("first piece " << pieces.front());
      CHECK((gzip_in_pieces(text, level, pieces) == whole));  // not printed: binary
    }
  }
}

TEST_CASE("an empty gzip member decompresses to nothing", "[gzip]") {
  const std::string packed = gzip_in_pieces("", 1, {1});
  CHECK(gunzip(packed).empty());
}

}  // namespace tracecompact
