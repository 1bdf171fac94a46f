// Reads (and inflates) ahead on a second thread, so that I/O and gzip overlap
// with parsing on the machines' two cores. Bytes come out in order, in the
// caller's thread; errors of the reader are rethrown there.
#pragma once

#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "source/byte_source.h"
#include "util/io_bytes.h"

namespace tracecompact {

class PrefetchSource final : public ByteSource {
 public:
  explicit PrefetchSource(std::unique_ptr<ByteSource> inner, size_t block_size = size_t{1} << 20,
                          size_t depth = 4);
  ~PrefetchSource() override;
  PrefetchSource(const PrefetchSource&) = delete;
  PrefetchSource& operator=(const PrefetchSource&) = delete;

  size_t read(char* destination, size_t capacity) override;

 private:
  struct Block {
    IoBytes bytes;
    size_t size = 0;
  };
  void produce();

  std::unique_ptr<ByteSource> inner_;
  std::vector<Block> blocks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t filled_ = 0;    // blocks handed to the consumer so far (producer side)
  size_t consumed_ = 0;  // blocks fully read by the consumer
  size_t offset_ = 0;    // read position in the consumer's current block
  bool finished_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace tracecompact
