// --verify's input side: the measured slices of the inputs, one rank after
// another, read on a thread of their own while the caller reads the output.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "util/hash128.h"
#include "verify/verifier.h"

namespace tracecompact {

// What pass 2 must have written of one input slice.
struct ExpectedSlice {
  Hash128 signature;  // of EventParser::slice_signature(): all but pid, tid, ts, args.stream
  int64_t pid;
  double ts;
  double dur;
  const VerifyRank* rank;
};

class ExpectedSlices {
 public:
  // Starts reading `ranks` (which must outlive this).
  explicit ExpectedSlices(const std::vector<VerifyRank>& ranks);
  ~ExpectedSlices();  // stops the reader if it has not finished
  ExpectedSlices(const ExpectedSlices&) = delete;
  ExpectedSlices& operator=(const ExpectedSlices&) = delete;

  // The next slice in input order; false after the last. A fault in an input
  // is thrown here, after the slices before it.
  bool next(ExpectedSlice& slice);

 private:
  using Batch = std::vector<ExpectedSlice>;
  void read_all();               // the reader thread
  bool hand_over(Batch& batch);  // false once stopped
  bool take_batch();             // the caller: false when nothing more will come

  const std::vector<VerifyRank>& ranks_;
  // Batches of slices, a few in flight: memory stays small whatever the input.
  static constexpr size_t kBatchSlices = 4096;
  static constexpr uint64_t kBatchEvents = 65536;  // a batch is handed over after this many events
  static constexpr size_t kBatchesInFlight = 4;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> ready_;
  bool done_ = false;  // the reader will hand over nothing more
  // Also read without the lock between events: a failed check stops the
  // reader where it is, not a batch or the rest of the inputs later.
  std::atomic<bool> stopping_{false};
  std::exception_ptr failure_;
  Batch current_;  // the caller's
  size_t next_in_current_ = 0;
  std::thread reader_;  // last: it uses the members above
};

}  // namespace tracecompact
