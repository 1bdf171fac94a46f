// Index chunks touched ahead of use. On these machines the first touch of fresh
// memory is slow (a 2 MiB huge page costs about as much to clear as 2 MB of
// JSON costs to tokenize), and in a threaded pass 1 it falls on the reading
// thread, the one the parser threads wait for. While a WarmChunkSupply lives, a
// helper thread keeps a few full-size chunks allocated and touched (from the
// first one asked for on: small traces never need any), and ChunkedVectors
// grown on the supply's thread take those instead of fresh ones.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace tracecompact {

// The size and alignment of a full-size chunk: one transparent huge page.
inline constexpr size_t kIndexChunkBytes = size_t{2} << 20;

// A full-size chunk for the calling thread: a warm one from its supply if one
// is ready, else fresh memory. Release it with std::free.
void* take_index_chunk();

class WarmChunkSupply {
 public:
  // Keeps `ahead` chunks ready for the constructing thread until destroyed.
  // While the thread has a supply, another made on it stays inactive (so the
  // order they go in does not matter); so does one that cannot start its thread.
  explicit WarmChunkSupply(size_t ahead = 4);
  ~WarmChunkSupply();
  WarmChunkSupply(const WarmChunkSupply&) = delete;
  WarmChunkSupply& operator=(const WarmChunkSupply&) = delete;

  // A warm chunk, or nullptr if none is ready (the caller then allocates); the
  // first call starts the preparing.
  void* take();

 private:
  void keep_ready();

  const size_t ahead_;
  size_t wanted_ = 0;  // chunks to keep ready: 0, then ahead_ once asked
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<void*> ready_;
  bool stopping_ = false;
  std::thread helper_;
};

}  // namespace tracecompact
