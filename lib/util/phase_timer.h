// Wall time of the phases of a run (--timings), for performance work, with the
// CPU time all threads spent in it (how well a phase uses the cores).
#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace tracecompact {

class PhaseTimer {
 public:
  using Phases = std::vector<std::pair<std::string, double>>;

  PhaseTimer() : last_(std::chrono::steady_clock::now()), last_cpu_(cpu_seconds()) {}
  // Records the time since the previous mark under `phase`.
  void mark(std::string phase) {
    const auto now = std::chrono::steady_clock::now();
    const double cpu = cpu_seconds();
    char cpu_text[32];
    std::snprintf(cpu_text, sizeof cpu_text, "%.3f", cpu - last_cpu_);
    phases_.emplace_back(std::move(phase) + " (peak " + std::to_string(peak_rss_mib()) +
                             " MiB, cpu " + cpu_text + " s)",
                         std::chrono::duration<double>(now - last_).count());
    last_ = now;
    last_cpu_ = cpu;
  }
  // User and system time of all threads of the process so far.
  static double cpu_seconds() {
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
  }
  // Peak resident memory of the process so far (VmHWM, which the kernel gives
  // in KiB), in MiB.
  static long peak_rss_mib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6)) / 1024;
    return 0;
  }
  const Phases& phases() const { return phases_; }

 private:
  std::chrono::steady_clock::time_point last_;
  double last_cpu_;
  Phases phases_;
};

}  // namespace tracecompact
