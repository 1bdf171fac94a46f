// A task beside the caller gives the same result started on its helper thread
// or computed when asked for, once, and hands on what it threw.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <thread>

#include "util/task_beside.h"

namespace tracecompact {

TEST_CASE("a task beside computes once, on its thread or when asked") {
  for (const bool started : {false, true}) {
    std::atomic<int> runs{0};
    std::thread::id ran_on;
    // The task owns what it works on (moved in), as the arrows own their blocks.
    TaskBeside<int> task([owned = std::make_unique<int>(41), &runs, &ran_on]() {
      ++runs;
      ran_on = std::this_thread::get_id();
      return *owned + 1;
    });
    if (started) task.start();
    CHECK(task.result() == 42);
    CHECK(task.result() == 42);
    CHECK(runs == 1);
    CHECK((ran_on == std::this_thread::get_id()) == !started);
  }
}

TEST_CASE("a task beside rethrows what it threw") {
  for (const bool started : {false, true}) {
    TaskBeside<int> task([]() -> int { throw std::runtime_error("no arrows"); });
    if (started) task.start();
    CHECK_THROWS_WITH(task.result(), "no arrows");
  }
}

}  // namespace tracecompact
