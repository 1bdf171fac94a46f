#include "index/record_budget.h"

namespace tracecompact {

bool RecordBudget::try_take(uint64_t bytes) {
  const auto wanted = static_cast<int64_t>(bytes);
  int64_t left = left_.load();
  do {
    if (left < wanted) return false;
  } while (!left_.compare_exchange_weak(left, left - wanted));
  return true;
}

void RecordGrant::credit_slices(uint64_t slices_indexed) {
  if (!budget_ || slices_indexed <= slices_credited_) return;
  budget_->add_slices(slices_indexed - slices_credited_);
  slices_credited_ = slices_indexed;
}

bool RecordGrant::take(uint64_t bytes) {
  if (!budget_) return true;
  if (!budget_->try_take(bytes)) return false;
  taken_ += bytes;
  return true;
}

}  // namespace tracecompact
