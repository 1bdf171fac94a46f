// Sources of input bytes: a file, memory, or gzip inflated on the fly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tracecompact {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `capacity` bytes; returns 0 only at the end of the data.
  virtual size_t read(char* destination, size_t capacity) = 0;
};

class FileSource final : public ByteSource {
 public:
  FileSource(const std::string& path, std::string display_name);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  size_t read(char* destination, size_t capacity) override;

 private:
  int fd_ = -1;
  std::string display_name_;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t read(char* destination, size_t capacity) override;

 private:
  std::string_view bytes_;
  size_t position_ = 0;
};

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
