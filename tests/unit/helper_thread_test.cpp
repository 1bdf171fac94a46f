// Helper threads leave SIGINT, SIGTERM and SIGHUP to the main thread (the
// temporary-file cleanup relies on it), and the starting thread's own mask is
// left as it was.
#include <signal.h>

#include <catch2/catch.hpp>

#include "util/helper_thread.h"

namespace tracecompact {
namespace {

bool blocked_here(int signal_number) {
  sigset_t current;
  pthread_sigmask(SIG_BLOCK, nullptr, &current);
  return sigismember(&current, signal_number) == 1;
}

}  // namespace

TEST_CASE("helper threads start with the cleanup signals blocked") {
  REQUIRE_FALSE(blocked_here(SIGTERM));
  bool int_blocked = false, term_blocked = false, hup_blocked = false, pipe_blocked = true;
  start_helper_thread([&] {
    int_blocked = blocked_here(SIGINT);
    term_blocked = blocked_here(SIGTERM);
    hup_blocked = blocked_here(SIGHUP);
    pipe_blocked = blocked_here(SIGPIPE);
  }).join();
  CHECK(int_blocked);
  CHECK(term_blocked);
  CHECK(hup_blocked);
  CHECK_FALSE(pipe_blocked);  // only those three
  CHECK_FALSE(blocked_here(SIGINT));
  CHECK_FALSE(blocked_here(SIGTERM));
  CHECK_FALSE(blocked_here(SIGHUP));
}

}  // namespace tracecompact
