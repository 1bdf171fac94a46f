// A RapidJSON output stream that fills a reused buffer and hands full blocks to
// a ByteSink (plain file, gzip, memory) — or, without a sink, grows the buffer
// and hands the whole of it over at once (a render worker's batch output).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "sink/byte_sink.h"
#include "util/io_bytes.h"

namespace tracecompact {

class OutputStream {
 public:
  typedef char Ch;  // RapidJSON's stream concept

  explicit OutputStream(ByteSink& sink, size_t capacity = size_t{256} << 10)
      : sink_(&sink), buffer_(capacity) {}
  // In memory: see take().
  OutputStream() : sink_(nullptr), buffer_(size_t{256} << 10) {}

  void Put(char c) {
    if (used_ == buffer_.size()) make_room(1);
    buffer_[used_++] = c;
  }
  void Flush() {}  // RapidJSON calls this after each document; blocks are drained when full
  // Small enough to be inlined where it is called with a constant size (the
  // plan's events are put together from many short pieces): the copy then
  // becomes a few moves.
  void write(const char* data, size_t size) {
    if (size > buffer_.size() - used_) [[unlikely]]
      if (write_past_buffer(data, size)) return;
    std::memcpy(buffer_.data() + used_, data, size);
    used_ += size;
  }
  // Room for `size` bytes at the end, filled by the caller and ended by
  // commit(): one check for a run of small copies. Null when `size` would not
  // fit even in an empty buffer (then write() piece by piece).
  char* claim(size_t size) {
    if (size > buffer_.size() - used_) {
      if (sink_ && size > buffer_.size()) return nullptr;
      make_room(size);
    }
    return buffer_.data() + used_;
  }
  void commit(const char* end) { used_ = static_cast<size_t>(end - buffer_.data()); }
  // Hands the remaining bytes to the sink (the sink itself is finished by its owner).
  void drain() {
    if (used_ == 0 || !sink_) return;
    sink_->write(buffer_.data(), used_);
    written_ += used_;
    used_ = 0;
  }
  // Writes bytes[begin, end), handing the buffer itself to a sink that takes it
  // over (`bytes` then holds other storage). Pending bytes that fit in front
  // of `begin` (a separator) go along in the same buffer.
  void adopt(IoBytes& bytes, size_t begin, size_t end) {
    if (!sink_) {
      write(bytes.data() + begin, end - begin);
      return;
    }
    if (used_ <= begin) {  // counted below, with the rest of the buffer
      begin -= used_;
      std::memcpy(bytes.data() + begin, buffer_.data(), used_);
      used_ = 0;
    } else {
      drain();
    }
    sink_->adopt(bytes, begin, end);
    written_ += end - begin;
  }
  // In memory: swaps the bytes written so far (the first `size` of `bytes`)
  // with `bytes`, whose old storage the stream reuses unless it is outsized
  // (left by a huge event). Allocates nothing.
  void take(IoBytes& bytes, size_t& size) {
    bytes.swap(buffer_);
    size = used_;
    written_ += used_;
    used_ = 0;
    if (buffer_.size() > kLargestKept) IoBytes().swap(buffer_);
  }
  uint64_t bytes_written() const { return written_ + used_; }

 private:
  static constexpr size_t kMinimumCapacity = size_t{64} << 10;
  static constexpr size_t kLargestKept = size_t{16} << 20;

  // For a write that does not fit: one at least the buffer's size goes to the
  // sink directly (true: written); else room is made and write() copies it.
  [[gnu::noinline]] bool write_past_buffer(const char* data, size_t size) {
    if (sink_ && size >= buffer_.size()) {
      drain();
      sink_->write(data, size);
      written_ += size;
      return true;
    }
    make_room(size);
    return false;
  }
  void make_room(size_t size) {
    if (sink_) {
      drain();
      return;
    }
    size_t capacity = std::max(buffer_.size() * 2, kMinimumCapacity);
    while (capacity < used_ + size) capacity *= 2;
    buffer_.resize(capacity);
  }

  ByteSink* sink_;
  IoBytes buffer_;
  size_t used_ = 0;
  uint64_t written_ = 0;
};

}  // namespace tracecompact
