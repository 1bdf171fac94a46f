#include "source/byte_source.h"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "tracecompact/error.h"

namespace tracecompact {

RandomAccessFile::RandomAccessFile(const std::string& path, std::string display_name)
    : display_name_(std::move(display_name)) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail_io("cannot read " + display_name_ + ": " + std::strerror(errno));
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);  // read front to back, in whole stretches
}

RandomAccessFile::~RandomAccessFile() {
  if (fd_ >= 0) ::close(fd_);
}

size_t RandomAccessFile::read_at(uint64_t offset, char* destination, size_t length) const {
  size_t done = 0;
  while (done < length) {
    const ssize_t got =
        ::pread(fd_, destination + done, length - done, static_cast<off_t>(offset + done));
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot read " + display_name_ + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(got);
  }
  return done;
}

size_t RandomAccessMemory::read_at(uint64_t offset, char* destination, size_t length) const {
  if (offset >= bytes_.size()) return 0;
  const size_t n = std::min<uint64_t>(length, bytes_.size() - offset);
  std::memcpy(destination, bytes_.data() + offset, n);
  return n;
}

bool starts_with_gzip_magic(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

struct GzipSource::State {
  inflate_state inflate;
  std::vector<unsigned char> input = std::vector<unsigned char>(1 << 20);
  bool input_exhausted = false;
  bool member_finished = false;
  bool any_member = false;
};

GzipSource::GzipSource(std::unique_ptr<ByteSource> compressed, std::string display_name)
    : compressed_(std::move(compressed)),
      state_(std::make_unique<State>()),
      display_name_(std::move(display_name)) {
  isal_inflate_init(&state_->inflate);
  state_->inflate.crc_flag = ISAL_GZIP;
  state_->inflate.avail_in = 0;
}

GzipSource::~GzipSource() = default;

bool GzipSource::refill() {
  if (state_->input_exhausted) return false;
  const size_t got =
      compressed_->read(reinterpret_cast<char*>(state_->input.data()), state_->input.size());
  if (got == 0) {
    state_->input_exhausted = true;
    return false;
  }
  state_->inflate.next_in = state_->input.data();
  state_->inflate.avail_in = static_cast<uint32_t>(got);
  return true;
}

size_t GzipSource::read(char* destination, size_t capacity) {
  auto& s = *state_;
  for (;;) {
    if (s.member_finished) {
      // Another member may follow (multi-member gzip, e.g. from `cat a.gz b.gz`).
      if (s.inflate.avail_in == 0 && !refill()) return 0;
      if (s.inflate.next_in[0] != 0x1f || (s.inflate.avail_in >= 2 && s.inflate.next_in[1] != 0x8b))
        fail_input(display_name_ + ": trailing data after the gzip stream");
      uint8_t* next_in = s.inflate.next_in;
      uint32_t avail_in = s.inflate.avail_in;
      isal_inflate_reset(&s.inflate);
      s.inflate.crc_flag = ISAL_GZIP;
      s.inflate.next_in = next_in;
      s.inflate.avail_in = avail_in;
      s.member_finished = false;
    }
    if (s.inflate.avail_in == 0 && !s.input_exhausted) refill();
    s.inflate.next_out = reinterpret_cast<uint8_t*>(destination);
    s.inflate.avail_out = static_cast<uint32_t>(std::min<size_t>(capacity, 1u << 30));
    const int status = isal_inflate(&s.inflate);
    if (status < 0) {
      const char* why = status == ISAL_INCORRECT_CHECKSUM ? "CRC or length check failed"
                        : status == ISAL_INVALID_WRAPPER  ? "bad gzip header"
                                                          : "corrupt deflate data";
      fail_input(display_name_ + ": gzip data is corrupt (" + why + ")");
    }
    const size_t produced = capacity - s.inflate.avail_out;
    if (s.inflate.block_state == ISAL_BLOCK_FINISH) {
      s.member_finished = true;
      s.any_member = true;
    } else if (produced == 0 && s.inflate.avail_in == 0 && s.input_exhausted) {
      fail_input(display_name_ + ": gzip data is truncated (unexpected end of file)");
    }
    if (produced > 0) return produced;
  }
}

}  // namespace tracecompact
