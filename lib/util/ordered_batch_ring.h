// A ring of batches that the caller fills in order, worker threads process
// (each with its own Worker state), and the caller takes back in the same
// order: the parallel part of both passes (without workers, the passes do not
// batch at all). A batch keeps its own failure (Worker::process must not
// throw), so that the caller meets it in input order. Batch has empty() and
// clear().
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>
#include "util/helper_thread.h"

namespace tracecompact {

template <typename Batch, typename Worker>
class OrderedBatchRing {
 public:
  // `make_worker()` returns a std::unique_ptr<Worker>; it is called on each of
  // the `workers` (at least one) threads, and must not throw (nor must
  // Worker::process: a batch carries its own failure).
  template <typename MakeWorker>
  OrderedBatchRing(unsigned workers, size_t batches_per_worker, MakeWorker make_worker)
      : batches_(std::max(workers, 1u) * batches_per_worker), done_(batches_.size(), false) {
    if (workers == 0) throw std::logic_error("an ordered batch ring needs a worker");
    threads_.reserve(workers);  // a push_back that throws would drop a running thread
    try {
      for (unsigned w = 0; w < workers; ++w)
        threads_.push_back(start_helper_thread([this, make_worker] {
          const std::unique_ptr<Worker> worker = make_worker();
          run(*worker);
        }));
    } catch (...) {
      stop();  // the threads that did start
      throw;
    }
  }
  ~OrderedBatchRing() { stop(); }
  OrderedBatchRing(const OrderedBatchRing&) = delete;
  OrderedBatchRing& operator=(const OrderedBatchRing&) = delete;

  // Puts one item into the batch being filled through `put_item(batch)`, which
  // returns false when that batch is full: the full batch is then handed to the
  // workers (once every batch is out, the oldest first goes back through
  // `take(batch)`), and the item put into the next one.
  template <typename PutItem, typename Take>
  void put(PutItem put_item, Take take) {
    if (put_item(filling())) return;
    submit();
    if (pending() == capacity()) take_oldest(take);
    put_item(filling());
  }
  // Hands over the batch being filled (unless empty) and takes every batch back
  // through `take(batch)`, in order. A throwing `take` leaves the rest pending.
  template <typename Take>
  void drain(Take take) {
    if (!filling().empty()) submit();
    while (pending() > 0) take_oldest(take);
  }

 private:
  Batch& filling() { return batches_[submitted_ % batches_.size()]; }
  void submit() {
    const size_t slot = submitted_ % batches_.size();
    {
      std::lock_guard lock(mutex_);
      done_[slot] = false;
      ++submitted_;
    }
    changed_.notify_all();
  }
  // The oldest submitted batch, once processed, to `take`; then cleared for reuse.
  template <typename Take>
  void take_oldest(Take& take) {
    const size_t slot = taken_ % batches_.size();
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return bool(done_[slot]); });
    }
    take(batches_[slot]);
    batches_[slot].clear();
    ++taken_;
  }
  // Submitted batches not taken back yet, and how many there may be.
  size_t pending() const { return submitted_ - taken_; }
  size_t capacity() const { return batches_.size(); }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    for (auto& thread : threads_) thread.join();
  }
  void run(Worker& worker) {
    for (;;) {
      size_t index;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || claimed_ < submitted_; });
        if (stopping_) return;
        index = claimed_++;
      }
      worker.process(batches_[index % batches_.size()]);
      {
        std::lock_guard lock(mutex_);
        done_[index % batches_.size()] = true;
      }
      changed_.notify_all();
    }
  }

  std::vector<Batch> batches_;  // the ring
  std::vector<char> done_;      // per slot; char, not the packed vector<bool>
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t submitted_ = 0;  // caller side
  size_t claimed_ = 0;    // next batch a worker takes
  size_t taken_ = 0;      // popped by the caller
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace tracecompact
