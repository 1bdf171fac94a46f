// Sources of input bytes: a file, memory, or gzip inflated on the fly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace tracecompact {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `capacity` bytes; returns 0 only at the end of the data.
  virtual size_t read(char* destination, size_t capacity) = 0;
};

// Bytes read at any offset, from any thread: pass 2's workers each read their
// own stretch of a plain input.
class RandomAccessInput {
 public:
  virtual ~RandomAccessInput() = default;
  // Reads up to `length` bytes at `offset`; fewer only at the end of the data.
  virtual size_t read_at(uint64_t offset, char* destination, size_t length) const = 0;
};

class RandomAccessFile final : public RandomAccessInput {
 public:
  RandomAccessFile(const std::string& path, std::string display_name);
  ~RandomAccessFile() override;
  RandomAccessFile(const RandomAccessFile&) = delete;
  RandomAccessFile& operator=(const RandomAccessFile&) = delete;
  size_t read_at(uint64_t offset, char* destination, size_t length) const override;

 private:
  int fd_ = -1;
  std::string display_name_;
};

class RandomAccessMemory final : public RandomAccessInput {
 public:
  explicit RandomAccessMemory(std::string_view bytes) : bytes_(bytes) {}
  size_t read_at(uint64_t offset, char* destination, size_t length) const override;

 private:
  std::string_view bytes_;
};

// A random-access input read front to back: plain files and bytes in memory.
template <typename Input>
class InOrderSource final : public ByteSource {
 public:
  template <typename... Args>
  explicit InOrderSource(Args&&... args) : input_(std::forward<Args>(args)...) {}
  size_t read(char* destination, size_t capacity) override {
    const size_t got = input_.read_at(position_, destination, capacity);
    position_ += got;
    return got;
  }
  // Reading goes on from `offset` (a tokenizer resumed there).
  void seek(uint64_t offset) { position_ = offset; }

 private:
  Input input_;
  uint64_t position_ = 0;
};

using FileSource = InOrderSource<RandomAccessFile>;
using MemorySource = InOrderSource<RandomAccessMemory>;

// Inflates one or more concatenated gzip members (multi-member input is read
// whole), checking each member's CRC and length with ISA-L.
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> compressed, std::string display_name);
  ~GzipSource() override;
  size_t read(char* destination, size_t capacity) override;

 private:
  bool refill();
  struct State;
  std::unique_ptr<ByteSource> compressed_;
  std::unique_ptr<State> state_;
  std::string display_name_;
};

bool starts_with_gzip_magic(std::string_view head);

}  // namespace tracecompact
