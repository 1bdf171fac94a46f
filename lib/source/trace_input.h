// One input trace that can be read several times (pass 1, pass 2, --verify):
// a file on disk, stdin or a pipe spooled to a temporary file, or bytes in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "source/byte_source.h"

namespace tracecompact {

class TraceInput {
 public:
  // `path` "-" means stdin. Non-seekable inputs are spooled to $TMPDIR so that
  // the two passes can read them again.
  static TraceInput open_path(const std::string& path);
  static TraceInput from_memory(std::string bytes, std::string display_name = "<memory>");

  TraceInput(TraceInput&&) noexcept;
  TraceInput& operator=(TraceInput&&) noexcept;
  ~TraceInput();

  // A fresh reader over the decompressed JSON bytes.
  std::unique_ptr<ByteSource> open() const;
  // The same bytes read at any offset; null for gzip, which only reads in order.
  std::unique_ptr<RandomAccessInput> open_random_access() const;
  // A reader from `offset` on; null for gzip.
  std::unique_ptr<ByteSource> open_at(uint64_t offset) const;
  const std::string& display_name() const { return display_name_; }
  // Read chunk for the tokenizer: 4 MiB, less for a small plain input.
  size_t chunk_size() const;
  bool is_gzip() const { return gzip_; }
  // Bytes of the file or memory as stored (compressed if gzip).
  uint64_t stored_size() const { return size_; }
  // Bytes of JSON where known without reading them (plain inputs); 0 for gzip.
  uint64_t json_size() const { return gzip_ ? 0 : size_; }

 private:
  TraceInput() = default;
  std::unique_ptr<ByteSource> stored_bytes_from(uint64_t offset) const;
  std::string path_;        // file to read (empty for memory)
  std::string spool_path_;  // temporary file we own and delete
  std::shared_ptr<std::string> memory_;
  std::string display_name_;
  bool gzip_ = false;
  uint64_t size_ = 0;  // bytes of the file or memory (compressed if gzip)
};

}  // namespace tracecompact
