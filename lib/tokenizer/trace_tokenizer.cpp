#include "tokenizer/trace_tokenizer.h"

#include <simdjson.h>

#include <cstring>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "json/whitespace.h"
#include "tokenizer/structure_scanner.h"
#include "tracecompact/error.h"

namespace tracecompact {
namespace {

// The next '"' or '\\' at or after i, or `end`.
inline size_t find_quote_or_backslash(const char* data, size_t i, size_t end) {
#ifdef __AVX2__
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  for (; i < end; i += 32) {
    const __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + i));
    const __m256i hits =
        _mm256_or_si256(_mm256_cmpeq_epi8(block, quote), _mm256_cmpeq_epi8(block, backslash));
    const auto mask = static_cast<uint32_t>(_mm256_movemask_epi8(hits));
    if (mask) return std::min(end, i + static_cast<size_t>(__builtin_ctz(mask)));
  }
  return end;
#else
  for (; i < end; ++i)
    if (data[i] == '"' || data[i] == '\\') return i;
  return end;
#endif
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(uint32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// Unescapes the body of a JSON string (without quotes); false if malformed.
bool unescape(std::string_view body, std::string& out) {
  out.clear();
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (static_cast<unsigned char>(c) < 0x20) return false;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= body.size()) return false;
    switch (body[i]) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '/':
        out += '/';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        auto read_hex4 = [&](size_t at, uint32_t& value) {
          if (at + 4 > body.size()) return false;
          value = 0;
          for (size_t k = 0; k < 4; ++k) {
            const int h = hex_value(body[at + k]);
            if (h < 0) return false;
            value = value * 16 + static_cast<uint32_t>(h);
          }
          return true;
        };
        uint32_t code = 0;
        if (!read_hex4(i + 1, code)) return false;
        i += 4;
        if (code >= 0xD800 && code < 0xDC00) {
          uint32_t low = 0;
          if (i + 2 >= body.size() || body[i + 1] != '\\' || body[i + 2] != 'u' ||
              !read_hex4(i + 3, low) || low < 0xDC00 || low >= 0xE000)
            return false;
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        } else if (code >= 0xDC00 && code < 0xE000) {
          return false;
        }
        append_utf8(code, out);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

TraceTokenizer::TraceTokenizer(ByteSource& source, size_t chunk_size)
    : source_(source), buffer_(chunk_size + kSlack) {}

TraceTokenizer::TraceTokenizer(ByteSource& source, size_t chunk_size, ResumePoint resume)
    : TraceTokenizer(source, chunk_size) {
  base_offset_ = resume.offset;
  state_ = resume.events_seen > 0 ? State::kAfterEvent : State::kEvents;
  event_count_ = resume.events_seen;
  seen_events_ = true;
}

bool TraceTokenizer::fill(size_t keep_from) {
  if (eof_) return false;
  // Keep the unfinished value at the front; grow only for a value larger than
  // the whole buffer.
  if (keep_from > 0) {
    std::memmove(buffer_.data(), buffer_.data() + keep_from, end_ - keep_from);
    base_offset_ += keep_from;
    position_ -= std::min(position_, keep_from);
    end_ -= keep_from;
  }
  if (end_ == capacity()) buffer_.resize(capacity() * 2 + kSlack);
  const size_t got = source_.read(buffer_.data() + end_, capacity() - end_);
  end_ += got;
  // An event parsed in place at the end of the data has the slack for
  // simdjson's padding, which simdjson reads: the same bytes in every run
  // (and as the workers' stretches have them), not what the buffer last held.
  std::memset(buffer_.data() + end_, ' ', kSlack);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  return true;
}

bool TraceTokenizer::skip_whitespace() {
  for (;;) {
    while (position_ < end_ && is_json_whitespace(buffer_[position_])) ++position_;
    if (position_ < end_) return true;
    if (!fill(position_)) return false;
  }
}

void TraceTokenizer::fail_at(const std::string& message) const {
  fail_input(message + " at byte offset " + std::to_string(base_offset_ + position_));
}

void TraceTokenizer::fail_truncated(const std::string& inside) const {
  fail_input("input ends unexpectedly " + inside + " (after byte offset " +
             std::to_string(base_offset_ + end_) + "): the trace is truncated");
}

// Returns the index just past the closing quote of a string whose body starts
// at `from`. `start` marks the beginning of the value being scanned and is
// moved to 0 when the buffer is refilled.
size_t TraceTokenizer::scan_string_end(size_t from, size_t& start) {
  size_t i = from;
  for (;;) {
    i = find_quote_or_backslash(buffer_.data(), i, end_);
    // A backslash escapes the next byte, which must be in the buffer too.
    if (i + (i < end_ && buffer_[i] == '\\' ? 1 : 0) >= end_) {
      const size_t relative = i - start;
      if (!fill(start)) return static_cast<size_t>(-1);
      start = 0;
      i = relative;
      continue;
    }
    if (buffer_[i] == '"') return i + 1;
    i += 2;
  }
}

std::string_view TraceTokenizer::scan_value(size_t& start) {
  start = position_;
  const char first = buffer_[position_];
  size_t i = position_;
  constexpr size_t kTruncated = static_cast<size_t>(-1);
  if (first == '"') {
    i = scan_string_end(i + 1, start);
    if (i == kTruncated) return {};
  } else if (first == '{' || first == '[') {
    ScanState state;
    for (;;) {
      i = scan_to_value_end(buffer_.data(), i, end_, state);
      if (state.depth == 0) break;
      const size_t relative = i - start;
      if (!fill(start)) return {};
      start = 0;
      i = relative;
    }
  } else {
    // A bare scalar ends at a delimiter; the parser judges its spelling.
    for (;;) {
      if (i == end_) {
        const size_t relative = i - start;
        if (!fill(start)) return {};
        start = 0;
        i = relative;
        continue;
      }
      const char c = buffer_[i];
      if (c == ',' || c == '}' || c == ']' || is_json_whitespace(c)) break;
      ++i;
    }
  }
  position_ = i;
  return std::string_view(buffer_.data() + start, i - start);
}

std::string TraceTokenizer::read_key() {
  if (peek() != '"') fail_at("expected a quoted key in the top-level object");
  size_t start = position_;
  const size_t end = scan_string_end(position_ + 1, start);
  if (end == static_cast<size_t>(-1)) fail_truncated("inside a top-level key");
  position_ = end;
  std::string key;
  if (!unescape(std::string_view(buffer_.data() + start + 1, end - start - 2), key))
    fail_at("malformed top-level key");
  // Its raw bytes are copied as they are (escapes give UTF-8): the output
  // writes the key back, and Python's json reads UTF-8 only.
  if (!simdjson::validate_utf8(key.data(), key.size())) fail_at("top-level key is not valid UTF-8");
  return key;
}

TraceTokenizer::Item TraceTokenizer::next() {
  Item item;
  for (;;) {
    switch (state_) {
      case State::kStart: {
        if (!fill(0) && end_ == 0) fail_input("input is empty: expected a JSON trace");
        while (end_ < 3 && fill(0)) {
        }
        if (end_ >= 3 && std::memcmp(buffer_.data(), "\xEF\xBB\xBF", 3) == 0) position_ = 3;
        const auto b0 = static_cast<unsigned char>(buffer_[0]);
        const bool utf16 =
            (end_ >= 2 && ((b0 == 0xFF && static_cast<unsigned char>(buffer_[1]) == 0xFE) ||
                           (b0 == 0xFE && static_cast<unsigned char>(buffer_[1]) == 0xFF))) ||
            (end_ >= 2 && (buffer_[0] == 0 || buffer_[1] == 0));
        if (utf16) fail_input("input looks like UTF-16 text; JSON traces must be UTF-8");
        if (!skip_whitespace()) fail_input("input is empty: expected a JSON trace");
        if (peek() != '{') fail_at("top-level JSON value must be an object");
        ++position_;
        if (!skip_whitespace()) fail_truncated("inside the top-level object");
        if (peek() == '}') {
          ++position_;
          state_ = State::kEnd;
        } else {
          state_ = State::kObjectKey;
        }
        continue;
      }
      case State::kObjectKey: {
        key_ = read_key();
        if (!skip_whitespace()) fail_truncated("after a top-level key");
        if (peek() != ':') fail_at("expected ':' after the top-level key \"" + key_ + "\"");
        ++position_;
        if (!skip_whitespace()) fail_truncated("after a top-level key");
        if (key_ == "traceEvents") {
          if (seen_events_) fail_input("the trace repeats the key \"traceEvents\"");
          seen_events_ = true;
          if (peek() != '[') fail_input("traceEvents must be a list");
          item.offset = base_offset_ + position_;
          ++position_;
          state_ = State::kEvents;
          item.kind = Kind::kEventsBegin;
          item.key = key_;
          return item;
        }
        size_t start = 0;
        item.text = scan_value(start);
        if (item.text.empty()) fail_truncated("inside the top-level value \"" + key_ + "\"");
        item.kind = Kind::kTopLevelValue;
        item.key = key_;
        item.offset = base_offset_ + start;
        state_ = State::kAfterMember;
        return item;
      }
      case State::kAfterMember: {
        if (!skip_whitespace()) fail_truncated("before the end of the top-level object");
        const char c = peek();
        ++position_;
        if (c == ',') {
          if (!skip_whitespace()) fail_truncated("after ',' in the top-level object");
          state_ = State::kObjectKey;
        } else if (c == '}') {
          state_ = State::kEnd;
        } else {
          --position_;
          fail_at("expected ',' or '}' in the top-level object");
        }
        continue;
      }
      case State::kEvents:
      case State::kAfterEvent: {
        const bool after_event = state_ == State::kAfterEvent;
        auto where = [this] {
          return event_count_ == 0
                     ? std::string("inside traceEvents before its first event")
                     : "inside traceEvents after event " + std::to_string(event_count_ - 1);
        };
        if (!skip_whitespace()) fail_truncated(where());
        char c = peek();
        if (after_event) {
          if (c == ']') {
            ++position_;
            state_ = State::kAfterMember;
            continue;
          }
          if (c != ',')
            fail_at("expected ',' or ']' after event " + std::to_string(event_count_ - 1));
          ++position_;
          if (!skip_whitespace()) fail_truncated(where());
          c = peek();
        } else if (c == ']' && event_count_ == 0) {
          ++position_;
          state_ = State::kAfterMember;
          continue;
        }
        if (c != '{') fail_at("event " + std::to_string(event_count_) + " is not a JSON object");
        size_t start = 0;
        item.text = scan_value(start);
        if (item.text.empty()) fail_truncated("inside event " + std::to_string(event_count_));
        item.kind = Kind::kEvent;
        item.index = event_count_++;
        item.offset = base_offset_ + start;
        state_ = State::kAfterEvent;
        return item;
      }
      case State::kEnd: {
        if (skip_whitespace()) fail_at("unexpected data after the end of the JSON document");
        item.kind = Kind::kEnd;
        return item;
      }
    }
  }
}

}  // namespace tracecompact
