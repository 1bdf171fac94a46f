// parse_floor: the cost of merely reading a trace, as a floor for tracecompact's run time.
//
// Reads a .json trace in fixed 4 MiB chunks (never the whole file), cuts the elements of the
// top-level "traceEvents" array out with a minimal tokenizer (strings, escapes, depth), and
// gives each element one simdjson on-demand parse that touches every key, string and number.
// Offsets and counters are 64-bit, so files over 4 GiB work.

#include <fcntl.h>
#include <unistd.h>

#include <simdjson.h>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace od = simdjson::ondemand;

[[noreturn]] void Fail(const std::string& what) {
  throw std::runtime_error(what);
}

constexpr size_t kChunkSize = size_t{4} << 20;

// What the visit saw; printed so that no work can be optimised away.
struct Totals {
  uint64_t events = 0;
  uint64_t keys = 0;
  uint64_t strings = 0;
  uint64_t string_bytes = 0;
  uint64_t numbers = 0;
  uint64_t literals = 0;
  double number_sum = 0;
};

void VisitNumber(od::number number, Totals& totals) {
  ++totals.numbers;
  totals.number_sum += number.as_double();
}

void Visit(od::value value, Totals& totals) {
  switch (value.type()) {
    case od::json_type::object:
      for (auto field : value.get_object()) {
        const std::string_view key = field.unescaped_key();
        ++totals.keys;
        totals.string_bytes += key.size();
        Visit(field.value(), totals);
      }
      break;
    case od::json_type::array:
      for (auto element : value.get_array()) Visit(element.value(), totals);
      break;
    case od::json_type::number:
      VisitNumber(value.get_number(), totals);
      break;
    case od::json_type::string: {
      const std::string_view text = value.get_string();
      ++totals.strings;
      totals.string_bytes += text.size();
      break;
    }
    case od::json_type::boolean:
      totals.literals += value.get_bool() ? 1 : 0;
      break;
    case od::json_type::null:
      totals.literals += value.is_null() ? 1 : 0;
      break;
  }
}

// One parse per event. A document is not a value: scalars are read from it directly.
void ParseEvent(od::parser& parser, simdjson::padded_string_view text, Totals& totals) {
  od::document doc = parser.iterate(text);
  switch (doc.type()) {
    case od::json_type::object:
    case od::json_type::array:
      Visit(doc.get_value(), totals);
      break;
    case od::json_type::number:
      VisitNumber(doc.get_number(), totals);
      break;
    case od::json_type::string:
      totals.string_bytes += std::string_view(doc.get_string()).size();
      break;
    case od::json_type::boolean:
    case od::json_type::null:
      ++totals.literals;
      break;
  }
  ++totals.events;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Finds the elements of the top-level traceEvents array in a stream of chunks. Elements are
// parsed in place when they lie inside one chunk; only those cut by a chunk edge are copied.
class EventSplitter {
 public:
  explicit EventSplitter(Totals& totals) : totals_(totals) {}

  // `data` must stay readable for SIMDJSON_PADDING bytes past `size`.
  void Feed(const char* data, size_t size) {
    size_t i = 0;
    element_start_ = in_element_ ? 0 : size;  // an element cut by the last edge resumes here
    if (in_string_) {
      string_start_ = 0;
      i = ContinueString(data, 0, size) + 1;  // past the closing quote (or past the end)
    }
    for (; i < size; ++i) {
      const char c = data[i];
      if (in_events_ && !in_element_ && depth_ == 2 && !IsSpace(c) && c != ',' && c != ']') {
        in_element_ = true;
        element_start_ = i;
      }
      switch (c) {
        case '"':
          OpenString(i + 1);
          i = ContinueString(data, i + 1, size);
          break;
        case '{':
        case '[':
          OpenContainer(c);
          break;
        case '}':
        case ']':
          CloseContainer(c, data, i);
          break;
        case ',':
          if (in_element_ && depth_ == 2) EndElement(data, i);
          if (depth_ == 1) {
            expect_key_ = true;
            value_is_events_ = false;
          }
          break;
        case ':':
          if (depth_ == 1) value_is_events_ = last_key_is_events_;
          break;
        default:
          break;
      }
    }
    if (in_string_ && capture_key_) key_.append(data + string_start_, size - string_start_);
    if (in_element_) carry_.insert(carry_.end(), data + element_start_, data + size);
  }

  void Finish() const {
    if (depth_ != 0 || in_string_) Fail("truncated JSON document");
    if (!saw_events_) Fail("no top-level traceEvents array");
  }

 private:
  void OpenString(size_t content_start) {
    in_string_ = true;
    string_start_ = content_start;
    capture_key_ = depth_ == 1 && expect_key_;
    if (capture_key_) key_.clear();
  }

  // Skips string content from `i`; returns the closing quote's index, or `size` if the string
  // runs past this chunk. memchr does the scanning: names and args are mostly long strings.
  size_t ContinueString(const char* data, size_t i, size_t size) {
    if (escape_pending_) {
      escape_pending_ = false;
      ++i;
    }
    while (i < size) {
      const char* quote = static_cast<const char*>(std::memchr(data + i, '"', size - i));
      const size_t stop = quote != nullptr ? static_cast<size_t>(quote - data) : size;
      const char* backslash = static_cast<const char*>(std::memchr(data + i, '\\', stop - i));
      if (backslash == nullptr) {
        if (quote == nullptr) return size;
        CloseString(data, stop);
        return stop;
      }
      i = static_cast<size_t>(backslash - data) + 2;  // the escaped character is never special
      if (i > size) escape_pending_ = true;
    }
    return size;
  }

  void CloseString(const char* data, size_t quote) {
    in_string_ = false;
    if (!capture_key_) return;
    key_.append(data + string_start_, quote - string_start_);
    last_key_is_events_ = key_ == "traceEvents";
    expect_key_ = false;
    capture_key_ = false;
  }

  void OpenContainer(char c) {
    if (depth_ == 0 && c == '{') expect_key_ = true;
    if (depth_ == 1 && c == '[' && value_is_events_) {
      in_events_ = true;
      saw_events_ = true;
    }
    ++depth_;
  }

  void CloseContainer(char c, const char* data, size_t i) {
    if (depth_ == 2 && in_events_ && c == ']') {
      if (in_element_) EndElement(data, i);
      in_events_ = false;
    }
    if (--depth_ < 0) Fail("unbalanced brackets");
  }

  void EndElement(const char* data, size_t end) {
    in_element_ = false;
    if (carry_.empty()) {
      while (end > element_start_ && IsSpace(data[end - 1])) --end;
      const size_t length = end - element_start_;
      // The chunk buffer is padded, so everything up to its end plus padding is readable.
      ParseEvent(parser_,
                 simdjson::padded_string_view(data + element_start_, length,
                                              length + simdjson::SIMDJSON_PADDING),
                 totals_);
      return;
    }
    carry_.insert(carry_.end(), data, data + end);
    while (!carry_.empty() && IsSpace(carry_.back())) carry_.pop_back();
    const size_t length = carry_.size();
    carry_.resize(length + simdjson::SIMDJSON_PADDING, ' ');
    ParseEvent(parser_, simdjson::padded_string_view(carry_.data(), length, carry_.size()),
               totals_);
    carry_.clear();
  }

  Totals& totals_;
  od::parser parser_;
  std::vector<char> carry_;  // an element cut by a chunk edge
  std::string key_;          // top-level key being read
  size_t element_start_ = 0;
  size_t string_start_ = 0;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_pending_ = false;
  bool capture_key_ = false;
  bool expect_key_ = false;
  bool last_key_is_events_ = false;
  bool value_is_events_ = false;
  bool in_events_ = false;
  bool saw_events_ = false;
  bool in_element_ = false;
};

// Fills `buffer` from `fd` up to `size` bytes; returns how many were read (0 at end of file).
size_t ReadChunk(int fd, char* buffer, size_t size, const std::string& path) {
  size_t filled = 0;
  while (filled < size) {
    const ssize_t n = ::read(fd, buffer + filled, size - filled);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      Fail("cannot read " + path + ": " + std::strerror(errno));
    }
    filled += static_cast<size_t>(n);
  }
  return filled;
}

uint64_t ParseFile(const std::string& path, Totals& totals) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail("cannot open " + path + ": " + std::strerror(errno));
  std::vector<char> buffer(kChunkSize + simdjson::SIMDJSON_PADDING, ' ');
  EventSplitter splitter(totals);
  uint64_t bytes = 0;
  try {
    for (;;) {
      const size_t n = ReadChunk(fd, buffer.data(), kChunkSize, path);
      if (n == 0) break;
      bytes += n;
      splitter.Feed(buffer.data(), n);
    }
    splitter.Finish();
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::string_view(argv[1]) == "-h" || std::string_view(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: parse_floor TRACE.json\n");
    return 2;
  }
  try {
    Totals totals;
    const auto start = std::chrono::steady_clock::now();
    const uint64_t bytes = ParseFile(argv[1], totals);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "events %llu bytes %llu seconds %.3f MB/s %.1f (keys %llu strings %llu numbers %llu "
        "checksum %.6g)\n",
        static_cast<unsigned long long>(totals.events), static_cast<unsigned long long>(bytes),
        seconds, seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0.0,
        static_cast<unsigned long long>(totals.keys),
        static_cast<unsigned long long>(totals.strings),
        static_cast<unsigned long long>(totals.numbers), totals.number_sum);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parse_floor: %s\n", e.what());
    return 1;
  }
}
