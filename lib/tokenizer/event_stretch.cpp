#include "tokenizer/event_stretch.h"

#include <algorithm>
#include <cstring>

#include "json/whitespace.h"
#include "tokenizer/structure_scanner.h"

namespace tracecompact {

void EventStretchReader::start(const RandomAccessInput& input, uint64_t input_size, uint64_t begin,
                               uint64_t end, uint64_t known_first) {
  input_ = &input;
  input_size_ = input_size;
  end_ = end;
  guessed_ = known_first == kNone;
  guesses_ = guessed_ ? 1 : 0;
  stopped_ = false;
  first_event_ = kNone;
  buffer_offset_ = guessed_ ? begin - std::min<uint64_t>(begin, kLookBack) : known_first;
  filled_ = 0;
  const uint64_t wanted = std::min(input_size, std::max(end, buffer_offset_) + kReadPast);
  const size_t length = wanted > buffer_offset_ ? static_cast<size_t>(wanted - buffer_offset_) : 0;
  if (buffer_.size() < length + kPadding) buffer_.resize(length + kPadding);
  filled_ = input.read_at(buffer_offset_, buffer_.data(), length);
  pad();
  position_ = guessed_ ? guess_first_event(begin, end) : known_first;
  if (position_ == kNone) finish(Stop::kIrregular, begin);
}

bool EventStretchReader::read_more(uint64_t keep_from) {
  const uint64_t filled_to = buffer_offset_ + filled_;
  if (filled_to >= input_size_) return false;
  const size_t keep = static_cast<size_t>(filled_to - keep_from);
  std::memmove(buffer_.data(), buffer_.data() + (keep_from - buffer_offset_), keep);
  buffer_offset_ = keep_from;
  filled_ = keep;
  const size_t length = static_cast<size_t>(
      std::min<uint64_t>(input_size_ - filled_to, std::max<size_t>(keep, kReadPast)));
  if (buffer_.size() < keep + length + kPadding) buffer_.resize(keep + length + kPadding);
  const size_t got = input_->read_at(filled_to, buffer_.data() + keep, length);
  filled_ += got;
  pad();
  return got > 0;
}

// simdjson reads the padding after an event at the end of the data: spaces,
// as the tokenizer's buffer has them, so that both read an event alike.
void EventStretchReader::pad() {
  std::memset(buffer_.data() + filled_, ' ', kPadding);
}

bool EventStretchReader::skip_whitespace(uint64_t& offset, uint64_t keep_from) {
  for (;;) {
    while (in_buffer(offset) && is_json_whitespace(at(offset))) ++offset;
    if (in_buffer(offset)) return true;
    if (!read_more(std::min(keep_from, offset))) return false;
  }
}

// The first '{' in [begin, end) whose previous bytes, whitespace aside, are
// "}," (only those in the buffer are looked at).
uint64_t EventStretchReader::guess_first_event(uint64_t begin, uint64_t end) const {
  const uint64_t last = std::min(end, buffer_offset_ + filled_);
  for (uint64_t p = begin; p < last; ++p) {
    const char* hit = static_cast<const char*>(
        std::memchr(buffer_.data() + (p - buffer_offset_), '{', static_cast<size_t>(last - p)));
    if (!hit) return kNone;
    p = buffer_offset_ + static_cast<uint64_t>(hit - buffer_.data());
    uint64_t q = p;
    auto previous = [&]() -> char {
      while (q > buffer_offset_) {
        const char c = at(--q);
        if (!is_json_whitespace(c)) return c;
      }
      return 0;
    };
    if (previous() == ',' && previous() == '}') return p;
  }
  return kNone;
}

uint64_t EventStretchReader::event_end(uint64_t offset) {
  ScanState state;
  uint64_t scanned = offset;
  for (;;) {
    const size_t from = static_cast<size_t>(scanned - buffer_offset_);
    const size_t i = scan_to_value_end(buffer_.data(), from, filled_, state);
    if (state.depth == 0) return buffer_offset_ + i;
    scanned = buffer_offset_ + filled_;
    if (guessed_ && scanned > end_ + kGuessReach) return kNone;
    if (!read_more(offset)) return kNone;
  }
}

void EventStretchReader::finish(Stop stop, uint64_t offset) {
  stopped_ = true;
  stop_ = stop;
  stop_offset_ = offset;
}

void EventStretchReader::stop_irregular() {
  if (!stopped_) finish(Stop::kIrregular, position_);
}

bool EventStretchReader::guess_again() {
  // Not after an event that could not be closed within reach (first_event_ is
  // kNone then): another guess inside it would read as far again.
  if (!guessed_ || !stopped_ || stop_ == Stop::kNextEvent || first_event_ == kNone ||
      guesses_ == kMostGuesses || stop_offset_ + 1 >= end_ || !in_buffer(stop_offset_ + 1))
    return false;
  // Nothing more to guess: this guess stands, for the caller to judge (the
  // stretch that holds the array's end stops there rightly).
  const uint64_t guess = guess_first_event(stop_offset_ + 1, end_);
  if (guess == kNone) return false;
  ++guesses_;
  position_ = guess;
  first_event_ = kNone;
  stopped_ = false;
  return true;
}

bool EventStretchReader::next(std::string_view& text, uint64_t& offset) {
  if (stopped_) return false;
  if (first_event_ == kNone) {
    // Known start: whitespace first, and an empty array ends here.
    if (!skip_whitespace(position_, position_)) {
      finish(Stop::kIrregular, position_);
      return false;
    }
    first_event_ = position_;
    if (!guessed_ && at(position_) == ']') {
      finish(Stop::kArrayEnd, position_);
      return false;
    }
    if (position_ >= end_) {
      finish(Stop::kNextEvent, position_);
      return false;
    }
  } else {
    // After the previous event: ',' and the next one, or ']'.
    if (!skip_whitespace(position_, position_)) {
      finish(Stop::kIrregular, position_);
      return false;
    }
    if (at(position_) == ']') {
      finish(Stop::kArrayEnd, position_);
      return false;
    }
    uint64_t next_event = position_ + 1;
    if (at(position_) != ',' || !skip_whitespace(next_event, position_)) {
      finish(Stop::kIrregular, position_);
      return false;
    }
    position_ = next_event;
    if (position_ >= end_) {
      finish(Stop::kNextEvent, position_);
      return false;
    }
  }
  if (at(position_) != '{') {
    finish(Stop::kIrregular, position_);
    return false;
  }
  const uint64_t event_end_offset = event_end(position_);
  if (event_end_offset == kNone) {
    // A guessed stretch is then not judged (its guess may be what went wrong):
    // it is read again from a known start.
    if (guessed_) first_event_ = kNone;
    finish(Stop::kIrregular, position_);
    return false;
  }
  offset = position_;
  text = std::string_view(buffer_.data() + (position_ - buffer_offset_),
                          static_cast<size_t>(event_end_offset - position_));
  position_ = event_end_offset;
  return true;
}

}  // namespace tracecompact
