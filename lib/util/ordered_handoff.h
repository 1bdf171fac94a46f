// The output side's handoff: one caller fills the slots of a ring in order and
// hands each over; a consumer thread of the handoff's own processes them in the
// same order (a write to a file, a deflate). The caller refills a slot once the
// consumer is done with it. A failure on the consumer's thread reaches the
// caller at its next hand_over(), wait_for_set_up() or wait_until_processed().
//
// WriteBehindSink and DirectFileSink keep their buffers in such a ring; the
// handoff holds only the counting, the waiting and the thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace tracecompact {

class OrderedHandoff {
 public:
  // What the consumer does with the slots handed over before the handoff is
  // destroyed without wait_until_processed().
  enum class AtStop { kDropHanded, kProcessHanded };

  // Starts the consumer thread: set_up() once (the caller may meet its failure
  // through wait_for_set_up()), then process(slot) for each slot handed over.
  // Declare the handoff after what these use: it stops and joins the thread
  // when destroyed.
  OrderedHandoff(size_t slots, AtStop at_stop, std::function<void()> set_up,
                 std::function<void(size_t)> process);
  ~OrderedHandoff();
  OrderedHandoff(const OrderedHandoff&) = delete;
  OrderedHandoff& operator=(const OrderedHandoff&) = delete;

  // The caller's side. filling(): the slot it fills, which the consumer does
  // not touch until it is handed over.
  size_t filling() const { return handed_ % slots_; }
  void wait_for_set_up();
  // Hands the filling slot over, then waits until the next one is free.
  void hand_over();
  // Waits until every slot handed over is processed.
  void wait_until_processed();

 private:
  void run();  // the consumer thread
  void rethrow_failure() const;

  const size_t slots_;
  const AtStop at_stop_;
  std::function<void()> set_up_;
  std::function<void(size_t)> process_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t handed_ = 0;     // slots handed over (changed by the caller only)
  size_t processed_ = 0;  // slots the consumer is done with
  bool set_up_done_ = false;
  bool stopping_ = false;
  std::exception_ptr failure_;  // the consumer's
  std::thread thread_;
};

}  // namespace tracecompact
