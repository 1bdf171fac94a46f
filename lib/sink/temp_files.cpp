#include "sink/temp_files.h"

#include <signal.h>
#include <unistd.h>

#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "tracecompact/error.h"

namespace tracecompact {
namespace {

constexpr int kMaxTempFiles = 64;
constexpr int kMaxPath = 4096;

// A fixed table, so that the signal handler never allocates or locks. Zeroed
// at compile time: a table built at start-up would touch its 64 pages in
// every run.
struct Slot {
  std::atomic<bool> used{false};
  char path[kMaxPath] = {};
};
constinit Slot g_slots[kMaxTempFiles];
std::mutex g_mutex;

void cleanup_and_reraise(int signal_number) {
  for (auto& slot : g_slots)
    if (slot.used.load()) ::unlink(slot.path);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

void register_temp_file(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (path.size() >= static_cast<size_t>(kMaxPath)) return;
  for (auto& slot : g_slots) {
    if (!slot.used.load()) {
      std::memcpy(slot.path, path.c_str(), path.size() + 1);
      slot.used.store(true);
      return;
    }
  }
}

int create_temp_file(std::string& path_template) {
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&blocked, signal_number);
  pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  const int fd = ::mkstemp(path_template.data());
  const int saved = errno;
  if (fd >= 0) register_temp_file(path_template);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = saved;
  return fd;
}

int create_scratch_file(const char* stem, std::string& path) {
  const char* tmpdir = std::getenv("TMPDIR");
  path = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/tracecompact-" + stem + "-XXXXXX";
  const int fd = create_temp_file(path);
  if (fd < 0) fail_io("cannot create a temporary file " + path + ": " + std::strerror(errno));
  return fd;
}

void release_temp_file(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& slot : g_slots) {
    if (slot.used.load() && path == slot.path) {
      slot.used.store(false);
      return;
    }
  }
}

void remove_temp_file(const std::string& path) {
  ::unlink(path.c_str());
  release_temp_file(path);
}

void install_cleanup_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = cleanup_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal_number, &action, nullptr);
  // A closed stdout pipe ends the write with EPIPE, reported like any I/O error.
  ::signal(SIGPIPE, SIG_IGN);
  // Likewise an output past `ulimit -f` ends the write with EFBIG instead of a kill
  // that would leave the temporary file behind.
  ::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace tracecompact
