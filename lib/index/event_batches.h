// Pass 1's parallel part: events are copied into batches in file order, parsed
// and digested by worker threads (each with its own parser), and handed back in
// the same order, so that the index is built on one thread exactly as if the
// events had been read one by one.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "index/event_digest.h"
#include "tokenizer/copied_events.h"
#include "util/ordered_batch_ring.h"

namespace tracecompact {

struct EventBatch {
  CopiedEvents events;
  std::vector<EventDigest> digests;  // one per event, up to the first failure
  std::string arena;                 // strings the digests keep
  std::exception_ptr error;          // the failure of event digests.size(), if any

  bool empty() const { return events.empty(); }
  void clear();
};

// A parser's state: digests events of a batch (a parser thread) or one at a
// time where the tokenizer holds them (the caller, without workers).
class EventDigester {
 public:
  explicit EventDigester(DigestSetup setup = {}) : setup_(setup) {}
  void process(EventBatch& batch);
  // `text` must be followed by simdjson's padding of readable bytes.
  EventDigest digest(std::string_view text, uint64_t index, uint64_t offset, std::string& arena);

 private:
  EventParser parser_;
  const DigestSetup setup_;
};

class EventBatches : public OrderedBatchRing<EventBatch, EventDigester> {
 public:
  EventBatches(unsigned workers, DigestSetup setup)
      : OrderedBatchRing(workers, kBatchesPerWorker,
                         [setup] { return std::make_unique<EventDigester>(setup); }) {}

 private:
  // The reading thread is pass 1's critical path; a deep ring lets it run on
  // while one parser is on a slow batch (3 per worker: it waited 0.4 s per GB).
  static constexpr size_t kBatchesPerWorker = 8;
};

}  // namespace tracecompact
