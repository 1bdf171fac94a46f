// Pass 1 over a plain input with workers: each worker reads a stretch of the
// traceEvents array itself, finds its events (tokenizer/event_stretch.h) and
// digests them where it read them. No thread reads ahead of the workers and no
// event is copied: against a reading thread that hands copied events to parser
// threads, pass 1 took 10-15 % less CPU and a quarter less time on two cores
// (docs/performance_history.md, session 25). The caller confirms each
// stretch's first event, in order (reading a stretch again where a guess was
// wrong), and takes its digests as if the events had been read one by one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "index/event_batches.h"
#include "source/trace_input.h"
#include "tokenizer/event_stretch.h"
#include "tokenizer/trace_tokenizer.h"

namespace tracecompact {

// One stretch: what a worker is asked to read, and what it found.
struct StretchBatch {
  struct Place {
    uint64_t offset;
    uint64_t length;
  };
  bool assigned = false;
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t known_first = EventStretchReader::kNone;  // else the first event is guessed
  uint64_t first_event = EventStretchReader::kNone;
  EventStretchReader::Stop stop = EventStretchReader::Stop::kIrregular;
  uint64_t stop_offset = 0;
  std::vector<EventDigest> digests;
  std::vector<Place> places;  // one per digest
  std::string arena;

  bool empty() const { return !assigned; }
  void clear();
};

// A worker's state: reads and digests stretches.
class StretchDigester {
 public:
  StretchDigester(const RandomAccessInput& input, uint64_t input_size, DigestSetup setup)
      : input_(input), input_size_(input_size), digester_(setup) {}
  // Must not throw: a failure to read or digest stops the stretch as irregular,
  // and the tokenizer, taking over there, reports it.
  void process(StretchBatch& batch);

 private:
  // The events the reader hands out, until it stops or one fails to digest.
  void digest_events(StretchBatch& batch);

  const RandomAccessInput& input_;
  const uint64_t input_size_;
  EventStretchReader reader_;
  EventDigester digester_;
};

// The events that stretches hand over: `batch`'s digests are events
// first_index, first_index + 1, ...
using TakeStretch = std::function<void(const StretchBatch& batch, uint64_t first_index)>;

// Reads traceEvents from `events_begin` (just past its '[') in stretches on
// `workers` threads, handing their events over in order, until the array ends
// or something irregular (bad or unusual input) stops a stretch. Returns where
// the tokenizer takes over: just past the last event handed over.
TraceTokenizer::ResumePoint read_in_stretches(const TraceInput& input, uint64_t events_begin,
                                              unsigned workers, DigestSetup setup,
                                              const TakeStretch& take);

}  // namespace tracecompact
