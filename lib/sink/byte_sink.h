// Destinations of output bytes: a file descriptor, memory, or gzip on the fly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/io_bytes.h"

namespace tracecompact {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const char* data, size_t size) = 0;
  // Writes bytes[begin, end). A sink that can take the buffer over swaps it for
  // storage of its own (contents unspecified); this one copies.
  virtual void adopt(IoBytes& bytes, size_t begin, size_t end) {
    write(bytes.data() + begin, end - begin);
  }
  // Flushes everything (and writes the gzip trailer); no write may follow.
  virtual void finish() = 0;
};

class FdSink final : public ByteSink {
 public:
  FdSink(int fd, std::string display_name) : fd_(fd), display_name_(std::move(display_name)) {}
  void write(const char* data, size_t size) override;
  void finish() override {}

 private:
  int fd_;
  std::string display_name_;
};

class StringSink final : public ByteSink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}
  void write(const char* data, size_t size) override { out_.append(data, size); }
  void finish() override {}

 private:
  std::string& out_;
};

// One gzip member, deflated by ISA-L at level 0..3; the same bytes give the
// same member whatever the sizes of the writes that bring them.
class GzipSink final : public ByteSink {
 public:
  GzipSink(ByteSink& inner, int level);
  ~GzipSink() override;
  void write(const char* data, size_t size) override;
  void finish() override;

 private:
  void drain(bool finishing);
  void deflate_step(const uint8_t* data, size_t size);
  struct State;
  ByteSink& inner_;
  std::unique_ptr<State> state_;
};

}  // namespace tracecompact
