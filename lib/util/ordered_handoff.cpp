#include "util/ordered_handoff.h"

#include <stdexcept>
#include <utility>

#include "util/helper_thread.h"

namespace tracecompact {

OrderedHandoff::OrderedHandoff(size_t slots, AtStop at_stop, std::function<void()> set_up,
                               std::function<void(size_t)> process)
    : slots_(slots), at_stop_(at_stop), set_up_(std::move(set_up)), process_(std::move(process)) {
  if (slots_ < 2) throw std::logic_error("an ordered handoff needs two slots");
  thread_ = start_helper_thread([this] { run(); });
}

OrderedHandoff::~OrderedHandoff() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void OrderedHandoff::rethrow_failure() const {
  if (failure_) std::rethrow_exception(failure_);
}

void OrderedHandoff::wait_for_set_up() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return set_up_done_; });
  rethrow_failure();
}

void OrderedHandoff::hand_over() {
  std::unique_lock lock(mutex_);
  rethrow_failure();
  ++handed_;
  changed_.notify_all();
  changed_.wait(lock, [&] { return handed_ - processed_ < slots_ || failure_; });
  rethrow_failure();
}

void OrderedHandoff::wait_until_processed() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return processed_ == handed_ || failure_; });
  rethrow_failure();
}

void OrderedHandoff::run() {
  auto fail = [&] {
    std::lock_guard lock(mutex_);
    failure_ = std::current_exception();
    set_up_done_ = true;
  };
  try {
    if (set_up_) set_up_();
  } catch (...) {
    fail();
  }
  {
    std::lock_guard lock(mutex_);
    set_up_done_ = true;
  }
  changed_.notify_all();
  for (;;) {
    size_t slot;
    {
      std::unique_lock lock(mutex_);
      if (failure_) return;
      changed_.wait(lock, [&] { return stopping_ || processed_ < handed_; });
      if (processed_ == handed_ || (stopping_ && at_stop_ == AtStop::kDropHanded)) return;
      slot = processed_ % slots_;
    }
    try {
      process_(slot);
    } catch (...) {
      fail();
      changed_.notify_all();
      return;
    }
    {
      std::lock_guard lock(mutex_);
      ++processed_;
    }
    changed_.notify_all();
  }
}

}  // namespace tracecompact
