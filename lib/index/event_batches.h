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

  void clear();
};

// A parser thread's state.
class EventDigester {
 public:
  void process(EventBatch& batch);

 private:
  EventParser parser_;
};

class EventBatches : public OrderedBatchRing<EventBatch, EventDigester> {
 public:
  explicit EventBatches(unsigned workers)
      : OrderedBatchRing(workers, kBatchesPerWorker,
                         [] { return std::make_unique<EventDigester>(); }) {}

 private:
  static constexpr size_t kBatchesPerWorker = 3;
};

}  // namespace tracecompact
