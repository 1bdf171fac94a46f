// A RapidJSON output stream that fills a reused buffer and hands full blocks to
// a ByteSink (plain file, gzip, memory).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "sink/byte_sink.h"

namespace tracecompact {

class OutputStream {
 public:
  typedef char Ch;  // RapidJSON's stream concept

  explicit OutputStream(ByteSink& sink, size_t capacity = size_t{256} << 10)
      : sink_(sink), buffer_(capacity) {}

  void Put(char c) {
    if (used_ == buffer_.size()) drain();
    buffer_[used_++] = c;
  }
  void Flush() {}  // RapidJSON calls this after each document; blocks are drained when full
  void write(const char* data, size_t size) {
    if (size > buffer_.size() - used_) {
      drain();
      if (size >= buffer_.size()) {
        sink_.write(data, size);
        written_ += size;
        return;
      }
    }
    std::memcpy(buffer_.data() + used_, data, size);
    used_ += size;
  }
  // Hands the remaining bytes to the sink (the sink itself is finished by its owner).
  void drain() {
    if (used_ == 0) return;
    sink_.write(buffer_.data(), used_);
    written_ += used_;
    used_ = 0;
  }
  uint64_t bytes_written() const { return written_ + used_; }

 private:
  ByteSink& sink_;
  std::vector<char> buffer_;
  size_t used_ = 0;
  uint64_t written_ = 0;
};

}  // namespace tracecompact
