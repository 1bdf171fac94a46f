// Two independent steps at once: `side` on a helper thread while `main` runs on
// the caller's. Without `parallel`, or when no thread can be started, main runs
// first and then side, the order a single thread would take. Failures come out
// after both are done, main's first.
#pragma once

#include <exception>
#include <system_error>
#include <thread>
#include "util/helper_thread.h"

namespace tracecompact {

template <typename Side, typename Main>
void run_side_by_side(bool parallel, Side&& side, Main&& main) {
  std::exception_ptr side_error, main_error;
  auto run_side = [&] {
    try {
      side();
    } catch (...) {
      side_error = std::current_exception();
    }
  };
  std::thread helper;
  if (parallel) {
    try {
      helper = start_helper_thread(run_side);
    } catch (const std::system_error&) {
      // No thread to spare: one after the other.
    }
  }
  try {
    main();
  } catch (...) {
    main_error = std::current_exception();
  }
  if (helper.joinable())
    helper.join();
  else if (!main_error)
    run_side();
  if (main_error) std::rethrow_exception(main_error);
  if (side_error) std::rethrow_exception(side_error);
}

}  // namespace tracecompact
