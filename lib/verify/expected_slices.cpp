#include "verify/expected_slices.h"

#include <memory>
#include <utility>

#include "index/index_pass.h"
#include "json/event_parser.h"
#include "tokenizer/trace_tokenizer.h"
#include "util/helper_thread.h"

namespace tracecompact {

ExpectedSlices::ExpectedSlices(const std::vector<VerifyRank>& ranks) : ranks_(ranks) {
  reader_ = start_helper_thread([this] { read_all(); });
}

ExpectedSlices::~ExpectedSlices() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  reader_.join();
}

void ExpectedSlices::read_all() {
  Batch batch;
  std::exception_ptr failure;
  try {
    batch.reserve(kBatchSlices);
    EventParser parser;
    uint64_t events_in_batch = 0;
    for (const VerifyRank& rank : ranks_) {
      const auto source = rank.input->open();
      TraceTokenizer tokenizer(*source, rank.input->chunk_size());
      for (;;) {
        if (stopping_.load(std::memory_order_relaxed)) return;
        const auto item = tokenizer.next();
        if (item.kind == TraceTokenizer::Kind::kEnd) break;
        if (item.kind != TraceTokenizer::Kind::kEvent) continue;
        const EventFields& f = parser.parse_in_place(item.text, {item.index, item.offset});
        ++events_in_batch;
        if (is_measured_slice(f))
          batch.push_back(
              {parser.slice_signature(), f.pid.int_value, f.ts.number, f.dur.number, &rank});
        // Full, or waited for long enough: where slices are sparse, the output
        // side need not wait for the whole input to compare the first ones.
        if (batch.size() == kBatchSlices || (!batch.empty() && events_in_batch >= kBatchEvents)) {
          if (!hand_over(batch)) return;
          events_in_batch = 0;
        }
      }
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // The slices before a fault reach the caller before the fault does.
  try {
    if (!batch.empty() && !hand_over(batch)) return;
  } catch (...) {  // no memory for the queue
    if (!failure) failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    failure_ = failure;
    done_ = true;
  }
  changed_.notify_all();
}

bool ExpectedSlices::hand_over(Batch& batch) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return stopping_ || ready_.size() < kBatchesInFlight; });
  if (stopping_) return false;
  ready_.push_back(std::move(batch));
  lock.unlock();
  changed_.notify_all();
  batch = Batch();
  return true;
}

bool ExpectedSlices::take_batch() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || done_; });
  if (ready_.empty()) {
    if (failure_) std::rethrow_exception(failure_);
    return false;
  }
  current_ = std::move(ready_.front());
  ready_.pop_front();
  next_in_current_ = 0;
  lock.unlock();
  changed_.notify_all();
  return true;
}

bool ExpectedSlices::next(ExpectedSlice& slice) {
  if (next_in_current_ == current_.size() && !take_batch()) return false;
  slice = current_[next_in_current_++];
  return true;
}

}  // namespace tracecompact
