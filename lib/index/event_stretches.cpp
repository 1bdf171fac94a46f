#include "index/event_stretches.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "util/ordered_batch_ring.h"

namespace tracecompact {
namespace {

constexpr uint64_t kNone = EventStretchReader::kNone;
// Events are parsed where the stretch reader holds them.
static_assert(EventStretchReader::kPadding >= simdjson::SIMDJSON_PADDING);

// Stretches in flight per worker: the caller only confirms them and builds the
// index, so a few keep the workers busy.
constexpr size_t kStretchesPerWorker = 4;

// About 16 stretches per worker over the array, within bounds: small inputs
// still get several (and tests many boundaries), large ones ~1,400 events each.
uint64_t stretch_bytes(uint64_t span, unsigned workers) {
  constexpr uint64_t kSmallest = uint64_t{1} << 10, kLargest = uint64_t{512} << 10;
  return std::clamp<uint64_t>(span / (uint64_t{workers} * 16), kSmallest, kLargest);
}

}  // namespace

void StretchBatch::clear() {
  assigned = false;
  known_first = first_event = kNone;
  stop = EventStretchReader::Stop::kIrregular;
  stop_offset = 0;
  digests.clear();
  places.clear();
  arena.clear();
}

void StretchDigester::process(StretchBatch& batch) {
  auto drop_events = [&] {
    batch.digests.clear();
    batch.places.clear();
    batch.arena.clear();
  };
  drop_events();  // a batch read again holds an earlier reading's
  try {
    reader_.start(input_, input_size_, batch.begin, batch.end, batch.known_first);
    for (;;) {
      digest_events(batch);
      if (!reader_.guess_again()) break;
      drop_events();
    }
    batch.first_event = reader_.first_event();
    batch.stop = reader_.stop();
    batch.stop_offset = reader_.stop_offset();
  } catch (...) {
    // A read failed: a guessed stretch is read again from a known start, a
    // known one stops here (its events so far are whole).
    batch.first_event = kNone;
    batch.stop = EventStretchReader::Stop::kIrregular;
  }
}

void StretchDigester::digest_events(StretchBatch& batch) {
  std::string_view text;
  uint64_t offset = 0;
  while (reader_.next(text, offset)) {
    const size_t arena_size = batch.arena.size();
    try {
      // The index is the stretch's own: messages are made again by the tokenizer.
      batch.digests.push_back(digester_.digest(text, batch.digests.size(), offset, batch.arena));
    } catch (...) {
      batch.arena.resize(arena_size);
      reader_.stop_irregular();
      return;
    }
    batch.places.push_back({offset, text.size()});
  }
}

TraceTokenizer::ResumePoint read_in_stretches(const TraceInput& input, uint64_t events_begin,
                                              unsigned workers, DigestSetup setup,
                                              const TakeStretch& take) {
  const std::unique_ptr<RandomAccessInput> random_access = input.open_random_access();
  const uint64_t size = input.stored_size();
  TraceTokenizer::ResumePoint resume{events_begin, 0};
  if (!random_access || size <= events_begin) return resume;
  const uint64_t stretch = stretch_bytes(size - events_begin, workers);
  uint64_t expected = events_begin;  // where the next event starts
  bool ended = false;
  std::optional<StretchDigester> again;  // the caller's, for stretches read again
  auto accept = [&](StretchBatch& batch) {
    if (ended) return;
    if (batch.known_first == kNone) {
      if (expected >= batch.end) return;  // inside one event that started earlier
      if (batch.first_event != expected) {
        if (!again) again.emplace(*random_access, size, setup);
        batch.known_first = expected;
        again->process(batch);
      }
    }
    if (resume.events_seen + batch.digests.size() > TraceIndex::kMaxEvents) {
      ended = true;  // the tokenizer reports it, at the event it is about
      return;
    }
    take(batch, resume.events_seen);
    if (!batch.places.empty()) {
      const StretchBatch::Place& last = batch.places.back();
      resume = {last.offset + last.length, resume.events_seen + batch.places.size()};
    }
    if (batch.stop == EventStretchReader::Stop::kNextEvent)
      expected = batch.stop_offset;
    else
      ended = true;
  };
  OrderedBatchRing<StretchBatch, StretchDigester> ring(workers, kStretchesPerWorker, [&] {
    return std::make_unique<StretchDigester>(*random_access, size, setup);
  });
  for (uint64_t begin = events_begin; begin < size && !ended; begin += stretch) {
    const uint64_t end = size - begin > stretch ? begin + stretch : size;
    const uint64_t known_first = begin == events_begin ? events_begin : kNone;
    ring.put(
        [&](StretchBatch& batch) {
          if (batch.assigned) return false;
          batch.assigned = true;
          batch.begin = begin;
          batch.end = end;
          batch.known_first = known_first;
          return true;
        },
        accept);
  }
  ring.drain(accept);
  return resume;
}

}  // namespace tracecompact
