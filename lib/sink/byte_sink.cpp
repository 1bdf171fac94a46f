#include "sink/byte_sink.h"

#include <isa-l/igzip_lib.h>
#include <unistd.h>

#include <algorithm>
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

// ISA-L's output depends on where each call's input ends, so the input is
// handed over in fixed steps of the uncompressed stream: the same bytes give
// the same member however they were split into writes (by thread counts and
// render batches). Only a step's pieces at the ends of writes are copied.
constexpr size_t kGzipStepBytes = size_t{64} << 10;

struct GzipSink::State {
  isal_zstream stream;
  std::vector<uint8_t> level_buffer;
  std::vector<uint8_t> output = std::vector<uint8_t>(1 << 20);
  std::vector<uint8_t> step = std::vector<uint8_t>(kGzipStepBytes);
  size_t step_filled = 0;  // bytes of the step begun by earlier writes
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

void GzipSink::deflate_step(const uint8_t* data, size_t size) {
  auto& s = *state_;
  s.stream.next_in = const_cast<uint8_t*>(data);
  s.stream.avail_in = static_cast<uint32_t>(size);
  drain(false);
}

void GzipSink::write(const char* data, size_t size) {
  auto& s = *state_;
  const auto* bytes = reinterpret_cast<const uint8_t*>(data);
  if (s.step_filled > 0) {  // complete the step an earlier write began
    const size_t take = std::min(size, kGzipStepBytes - s.step_filled);
    std::memcpy(s.step.data() + s.step_filled, bytes, take);
    s.step_filled += take;
    bytes += take;
    size -= take;
    if (s.step_filled < kGzipStepBytes) return;
    deflate_step(s.step.data(), kGzipStepBytes);
    s.step_filled = 0;
  }
  for (; size >= kGzipStepBytes; bytes += kGzipStepBytes, size -= kGzipStepBytes)
    deflate_step(bytes, kGzipStepBytes);
  if (size > 0) {
    std::memcpy(s.step.data(), bytes, size);
    s.step_filled = size;
  }
}

void GzipSink::finish() {
  auto& s = *state_;
  if (s.step_filled > 0) deflate_step(s.step.data(), s.step_filled);
  s.step_filled = 0;
  s.stream.next_in = nullptr;
  s.stream.avail_in = 0;
  s.stream.end_of_stream = 1;
  drain(true);
  inner_.finish();
}

}  // namespace tracecompact
