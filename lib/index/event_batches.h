// Pass 1's parallel part: events are copied into batches in file order, parsed
// and digested by worker threads (each with its own parser), and handed back in
// the same order, so that the index is built on one thread exactly as if the
// events had been read one by one. With no workers the caller digests each
// batch itself when submitting it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "index/event_digest.h"

namespace tracecompact {

struct EventBatch {
  struct Slot {
    size_t at;
    size_t length;
    uint64_t index;   // event index in traceEvents
    uint64_t offset;  // byte offset in the (decompressed) input
  };
  std::vector<char> text;  // the events back to back, then simdjson's padding
  size_t used = 0;
  std::vector<Slot> slots;
  std::vector<EventDigest> digests;  // one per slot, up to the first failure
  std::string arena;                 // strings the digests keep
  std::exception_ptr error;          // the failure of event digests.size(), if any

  bool add(std::string_view event, uint64_t index, uint64_t offset);  // false: full
  bool empty() const { return slots.empty(); }
  void clear();
  void digest(EventParser& parser);
};

class EventBatches {
 public:
  explicit EventBatches(unsigned workers);
  ~EventBatches();
  EventBatches(const EventBatches&) = delete;
  EventBatches& operator=(const EventBatches&) = delete;

  // The batch the caller fills; submit() hands it over without waiting. The
  // caller pops a batch before submitting more than capacity() at once.
  EventBatch& filling() { return batches_[submitted_ % batches_.size()]; }
  void submit();
  // The oldest submitted batch, once digested; pop() releases it for reuse.
  EventBatch& oldest();
  void pop();
  // Submitted batches that the caller has not popped yet, and how many there may be.
  size_t pending() const { return submitted_ - taken_; }
  size_t capacity() const { return batches_.size(); }

 private:
  void work();

  std::vector<EventBatch> batches_;  // a ring
  std::vector<bool> done_;
  EventParser caller_parser_;  // without workers
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t submitted_ = 0;  // caller side
  size_t claimed_ = 0;    // next batch a worker takes
  size_t taken_ = 0;      // popped by the caller
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace tracecompact
