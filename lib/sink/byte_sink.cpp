#include "sink/byte_sink.h"

#include <isa-l/igzip_lib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "tracecompact/error.h"

namespace tracecompact {

void FdSink::write(const char* data, size_t size) {
  while (size > 0) {
    const ssize_t wrote = ::write(fd_, data, size);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      fail_io("cannot write " + display_name_ + ": " + std::strerror(errno));
    }
    data += wrote;
    size -= static_cast<size_t>(wrote);
  }
}

struct GzipSink::State {
  isal_zstream stream;
  std::vector<uint8_t> level_buffer;
  std::vector<uint8_t> output = std::vector<uint8_t>(1 << 20);
};

namespace {
size_t level_buffer_size(int level) {
  switch (level) {
    case 0:
      return ISAL_DEF_LVL0_DEFAULT;
    case 1:
      return ISAL_DEF_LVL1_DEFAULT;
    case 2:
      return ISAL_DEF_LVL2_DEFAULT;
    default:
      return ISAL_DEF_LVL3_DEFAULT;
  }
}
}  // namespace

GzipSink::GzipSink(ByteSink& inner, int level) : inner_(inner), state_(std::make_unique<State>()) {
  if (level < 0 || level > 3) fail_usage("--level must be 0..3 (ISA-L levels)");
  auto& s = *state_;
  isal_deflate_init(&s.stream);
  s.level_buffer.resize(level_buffer_size(level));
  s.stream.level = static_cast<uint32_t>(level);
  s.stream.level_buf = s.level_buffer.empty() ? nullptr : s.level_buffer.data();
  s.stream.level_buf_size = static_cast<uint32_t>(s.level_buffer.size());
  s.stream.gzip_flag = IGZIP_GZIP;
  s.stream.end_of_stream = 0;
  s.stream.flush = NO_FLUSH;
}

GzipSink::~GzipSink() = default;

void GzipSink::drain(bool finishing) {
  auto& s = *state_;
  do {
    s.stream.next_out = s.output.data();
    s.stream.avail_out = static_cast<uint32_t>(s.output.size());
    if (isal_deflate(&s.stream) != COMP_OK) fail_io("gzip compression failed");
    const size_t produced = s.output.size() - s.stream.avail_out;
    if (produced) inner_.write(reinterpret_cast<const char*>(s.output.data()), produced);
  } while (s.stream.avail_in > 0 || (finishing && s.stream.internal_state.state != ZSTATE_END));
}

void GzipSink::write(const char* data, size_t size) {
  auto& s = *state_;
  while (size > 0) {
    const uint32_t take = static_cast<uint32_t>(std::min<size_t>(size, 1u << 30));
    s.stream.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data));
    s.stream.avail_in = take;
    drain(false);
    data += take;
    size -= take;
  }
}

void GzipSink::finish() {
  auto& s = *state_;
  s.stream.next_in = nullptr;
  s.stream.avail_in = 0;
  s.stream.end_of_stream = 1;
  drain(true);
  inner_.finish();
}

}  // namespace tracecompact
