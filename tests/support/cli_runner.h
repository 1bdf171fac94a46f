// Runs the built tracecompact CLI as a child process for tests: posix_spawn, no
// shell, stdin from a file, stdout/stderr captured in files. Header-only, so
// that it needs no CMake change; TempDir comes from the test support library.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.h"

extern char** environ;

namespace testsupport {

#ifdef TRACECOMPACT_CLI
inline std::string cli_path() {
  return TRACECOMPACT_CLI;
}
#endif

// How a child ended, and what it wrote.
struct CliOutcome {
  bool exited = false;  // normal exit: see exit_code
  int exit_code = -1;
  bool signaled = false;  // killed by a signal: see signal
  int signal = 0;
  long peak_rss_kb = 0;  // the child's maximum resident set size
  std::string out;       // captured stdout (empty when redirected elsewhere)
  std::string err;       // captured stderr

  bool failed() const { return signaled || (exited && exit_code != 0); }
  // Number of '\n'-terminated lines in stderr (a final unterminated line counts too).
  size_t err_lines() const {
    const size_t newlines = static_cast<size_t>(std::count(err.begin(), err.end(), '\n'));
    return newlines + (!err.empty() && err.back() != '\n' ? 1 : 0);
  }
  std::string describe() const {
    std::string text = exited     ? "exit " + std::to_string(exit_code)
                       : signaled ? "signal " + std::to_string(signal)
                                  : "unknown";
    return text + "; stderr: " + err + (out.size() < 2000 ? "; stdout: " + out : "");
  }
};

struct CliIo {
  std::string stdin_path = "/dev/null";
  std::string stdout_path;  // empty: captured into CliOutcome::out
  std::string stderr_path;  // empty: captured into CliOutcome::err
  // Environment variables to set (or replace) for the child; the rest is inherited.
  std::vector<std::pair<std::string, std::string>> env;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Names of the entries of a folder (hidden ones included), sorted.
inline std::vector<std::string> entries_of(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string join(const std::vector<std::string>& items,
                        const std::string& separator = ", ") {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// One running child. The destructor kills and reaps a child still running.
class CliProcess {
 public:
  CliProcess(const std::string& program, const std::vector<std::string>& args, CliIo io = {})
      : io_(std::move(io)) {
    if (io_.stdout_path.empty() || io_.stderr_path.empty()) capture_ = std::make_unique<TempDir>();
    if (io_.stdout_path.empty()) {
      io_.stdout_path = capture_->path("stdout");
      capture_out_ = true;
    }
    if (io_.stderr_path.empty()) {
      io_.stderr_path = capture_->path("stderr");
      capture_err_ = true;
    }

    std::vector<std::string> argv_text{program};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);

    std::vector<std::string> env_text;
    for (char** entry = environ; entry && *entry; ++entry) {
      const std::string item(*entry);
      const std::string key = item.substr(0, item.find('='));
      const bool replaced = std::any_of(io_.env.begin(), io_.env.end(),
                                        [&](const auto& kv) { return kv.first == key; });
      if (!replaced) env_text.push_back(item);
    }
    for (const auto& [key, value] : io_.env) env_text.push_back(key + "=" + value);
    std::vector<char*> envp;
    for (auto& item : env_text) envp.push_back(item.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, io_.stdin_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, io_.stdout_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, io_.stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // A clean signal state, whatever the test runner blocked or ignored.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const int error =
        ::posix_spawn(&pid_, program.c_str(), &actions, &attributes, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0)
      throw std::runtime_error("posix_spawn " + program + ": " + std::strerror(error));
  }

  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  ~CliProcess() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }

  pid_t pid() const { return pid_; }

  // True while the child has not exited; reaps it (keeping its status) once it has.
  bool running() {
    if (reaped_) return false;
    const pid_t got = ::waitpid(pid_, &status_, WNOHANG);
    if (got == pid_) reaped_ = true;
    return !reaped_;
  }

  void send(int signal_number) {
    if (!reaped_) ::kill(pid_, signal_number);
  }

  CliOutcome wait() {
    while (!reaped_) {
      struct rusage usage {};
      const pid_t got = ::wait4(pid_, &status_, 0, &usage);
      if (got == pid_) peak_rss_kb_ = usage.ru_maxrss;
      if (got == pid_)
        reaped_ = true;
      else if (got < 0 && errno != EINTR)
        throw std::runtime_error("waitpid failed");
    }
    CliOutcome outcome;
    outcome.peak_rss_kb = peak_rss_kb_;
    outcome.exited = WIFEXITED(status_);
    if (outcome.exited) outcome.exit_code = WEXITSTATUS(status_);
    outcome.signaled = WIFSIGNALED(status_);
    if (outcome.signaled) outcome.signal = WTERMSIG(status_);
    if (capture_out_) outcome.out = read_bytes(io_.stdout_path);
    if (capture_err_) outcome.err = read_bytes(io_.stderr_path);
    return outcome;
  }

 private:
  CliIo io_;
  std::unique_ptr<TempDir> capture_;
  bool capture_out_ = false;
  bool capture_err_ = false;
  pid_t pid_ = -1;
  int status_ = 0;
  long peak_rss_kb_ = 0;
  bool reaped_ = false;
};

inline CliOutcome run_program(const std::string& program, const std::vector<std::string>& args,
                              CliIo io = {}) {
  CliProcess process(program, args, std::move(io));
  return process.wait();
}

#ifdef TRACECOMPACT_CLI
// Runs `tracecompact args...` to completion.
inline CliOutcome run_cli(const std::vector<std::string>& args, CliIo io = {}) {
  return run_program(cli_path(), args, std::move(io));
}
#endif

}  // namespace testsupport
