// Cores a merge's pass 1 is not using. Ranks are indexed side by side, each on
// one thread; cores beyond the ranks, and the core of a thread that finds no
// rank left to start, are given here, and a rank still being read takes them
// to parse its remaining events on worker threads. Without this, the last rank
// (or one larger than the others) is read on one core while the others idle.
#pragma once

#include <algorithm>
#include <atomic>

namespace tracecompact {

class SpareCores {
 public:
  void give(unsigned cores) { count_.fetch_add(cores, std::memory_order_relaxed); }

  // Up to `at_most` cores, or 0 when none are spare (then only a load).
  unsigned take(unsigned at_most) {
    unsigned spare = count_.load(std::memory_order_relaxed);
    while (spare > 0) {
      const unsigned taken = std::min(spare, at_most);
      if (count_.compare_exchange_weak(spare, spare - taken, std::memory_order_relaxed))
        return taken;
    }
    return 0;
  }

 private:
  std::atomic<unsigned> count_{0};
};

// Cores taken from a SpareCores (none may be: null), given back when destroyed.
class BorrowedCores {
 public:
  explicit BorrowedCores(SpareCores* from) : from_(from) {}
  ~BorrowedCores() {
    if (from_ && count_ > 0) from_->give(count_);
  }
  BorrowedCores(const BorrowedCores&) = delete;
  BorrowedCores& operator=(const BorrowedCores&) = delete;

  // Takes spare cores until `wanted` are held; returns how many are held.
  unsigned take_up_to(unsigned wanted) {
    if (from_ && count_ < wanted) count_ += from_->take(wanted - count_);
    return count_;
  }
  unsigned count() const { return count_; }

 private:
  SpareCores* from_;
  unsigned count_ = 0;
};

}  // namespace tracecompact
