// A computation whose result is needed later (the PP arrows, written last):
// run on a helper thread once start() is called, while the caller works on,
// or by result() itself when it was not started (no threads to spare).
#pragma once

#include <functional>
#include <future>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "util/helper_thread.h"

namespace tracecompact {

template <typename Result>
class TaskBeside {
 public:
  // `compute` may own what it works on (moved in, freed when it is done).
  template <typename Compute>
  explicit TaskBeside(Compute&& compute)
      : task_(std::forward<Compute>(compute)), future_(task_.get_future()) {}
  ~TaskBeside() {
    if (thread_.joinable()) thread_.join();
  }
  TaskBeside(const TaskBeside&) = delete;
  TaskBeside& operator=(const TaskBeside&) = delete;

  void start() {
    if (thread_.joinable() || result_) return;
    try {
      thread_ = start_helper_thread(std::ref(task_));
    } catch (const std::system_error&) {
      // No thread to spare: result() computes it when asked.
    }
  }
  // Waits for the result (or computes it now); rethrows what the computation threw.
  Result& result() {
    if (!result_) {
      if (!thread_.joinable()) task_();
      result_ = future_.get();
      if (thread_.joinable()) thread_.join();
    }
    return *result_;
  }

 private:
  std::packaged_task<Result()> task_;
  std::future<Result> future_;
  std::thread thread_;
  std::optional<Result> result_;
};

}  // namespace tracecompact
