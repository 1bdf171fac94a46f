// How much of pass 1's per-event records (TraceIndex::event_lengths and, in a
// merge, splice_sites; 2 bytes each per event) a run's indexes may hold at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

namespace tracecompact {

// The records only spare pass 2 a scan, and the memory bound is per measured
// slice (64 MiB + 64 bytes each), so they are kept within a fixed allowance
// plus one per slice indexed (by every rank of a merge). A single trace keeps
// lengths only, for pass 2's workers, with a smaller fixed allowance (below).
// The index itself takes ~58 bytes per slice of the generated traces when a
// merge holds every rank's at once (423 MiB of 485 at 5 GB, --threads 1; pass
// 1 may run that far ahead of a slow writer in the other schedule too), and
// the records' chunks round up, which leaves the records 4. At two bytes each
// (four per event) the generated ranks (two events per slice) keep all their
// records up to 1 GB in all; at 5 GB every event's length (taken first: the
// tokenizer reads ahead) and the sites of the first 0.5-36 % of each rank's
// events. Traces with many events per slice (real Kineto traces: seven, their
// CPU events first) keep those of their first events; the rest are scanned
// for. The fixed allowance is 4 MiB: with 8, two real-like ranks of 257 MB
// (five events per slice, so their fixed buffers weigh more than the generated
// traces') merged to a file peaked at 85-92 MiB against a bound of 90; with 4,
// at 80 (the records spare ~2 % of such a merge's instructions).
class RecordBudget {
 public:
  static constexpr uint64_t kFixedBytes = uint64_t{4} << 20;
  static constexpr uint64_t kBytesPerSlice = 4;
  // A single trace's lengths: 4 MiB took the 1 M identical annotations shape
  // (few slices, so a bound of 67.8 MiB) from 64 to 69 MiB, 1 MiB to 66.9,
  // 256 KiB to 64.2. The generated traces (two events per slice) keep every
  // length up to 1 GB with it, and the first 47 % at 5 GB.
  static constexpr uint64_t kSingleTraceFixedBytes = uint64_t{256} << 10;

  explicit RecordBudget(uint64_t fixed_bytes = kFixedBytes,
                        uint64_t bytes_per_slice = kBytesPerSlice)
      : left_(static_cast<int64_t>(fixed_bytes)), bytes_per_slice_(bytes_per_slice) {}
  RecordBudget(const RecordBudget&) = delete;
  RecordBudget& operator=(const RecordBudget&) = delete;

  // Takes `bytes` if that much is left; false (nothing taken) if not.
  bool try_take(uint64_t bytes);
  void give_back(uint64_t bytes) { left_.fetch_add(static_cast<int64_t>(bytes)); }
  // Slices indexed: the allowance grows by theirs.
  void add_slices(uint64_t count) {
    left_.fetch_add(static_cast<int64_t>(count * bytes_per_slice_));
  }

 private:
  std::atomic<int64_t> left_;
  const uint64_t bytes_per_slice_;
};

// One index's share of a budget, given back when the index goes. Without a
// budget every take succeeds (a single trace's tests, tools).
class RecordGrant {
 public:
  RecordGrant() = default;
  explicit RecordGrant(std::shared_ptr<RecordBudget> budget) : budget_(std::move(budget)) {}
  RecordGrant(RecordGrant&& other) noexcept { swap(other); }
  RecordGrant& operator=(RecordGrant&& other) noexcept {
    RecordGrant old(std::move(other));
    swap(old);
    return *this;
  }
  ~RecordGrant() {
    if (budget_) budget_->give_back(taken_);
  }

  // Credits the budget with the slices indexed since the last call (this
  // index's `slices_indexed` in all), whether or not it still takes.
  void credit_slices(uint64_t slices_indexed);
  // Takes `bytes` if the budget has them; false (nothing taken) if not.
  bool take(uint64_t bytes);
  uint64_t taken() const { return taken_; }

 private:
  void swap(RecordGrant& other) noexcept {
    std::swap(budget_, other.budget_);
    std::swap(taken_, other.taken_);
    std::swap(slices_credited_, other.slices_credited_);
  }

  std::shared_ptr<RecordBudget> budget_;
  uint64_t taken_ = 0;
  uint64_t slices_credited_ = 0;
};

}  // namespace tracecompact
