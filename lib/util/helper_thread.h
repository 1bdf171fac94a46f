// Every thread of ours starts through start_helper_thread(): it leaves SIGINT,
// SIGTERM and SIGHUP to the main thread. The handler that removes temporary
// files can run on any thread that takes the signal, and the main thread blocks
// the signals while it creates and registers such a file (sink/temp_files.cpp);
// a helper taking the signal in that window would let the file stay behind.
#pragma once

#include <signal.h>

#include <thread>
#include <utility>

namespace tracecompact {

template <typename Function>
std::thread start_helper_thread(Function&& function) {
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&blocked, signal_number);
  pthread_sigmask(SIG_BLOCK, &blocked, &previous);  // the new thread inherits the mask
  struct Restore {
    sigset_t* mask;
    ~Restore() { pthread_sigmask(SIG_SETMASK, mask, nullptr); }
  } restore{&previous};
  return std::thread(std::forward<Function>(function));
}

}  // namespace tracecompact
