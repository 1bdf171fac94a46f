// Wall time of the phases of a run (--timings), for performance work.
#pragma once

#include <chrono>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace tracecompact {

class PhaseTimer {
 public:
  using Phases = std::vector<std::pair<std::string, double>>;

  PhaseTimer() : last_(std::chrono::steady_clock::now()) {}
  // Records the time since the previous mark under `phase`.
  void mark(std::string phase) {
    const auto now = std::chrono::steady_clock::now();
    phases_.emplace_back(std::move(phase) + " (peak " + std::to_string(peak_rss_mb()) + " MB)",
                         std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  // Peak resident memory of the process so far (VmHWM), in MB.
  static long peak_rss_mb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6)) / 1024;
    return 0;
  }
  const Phases& phases() const { return phases_; }

 private:
  std::chrono::steady_clock::time_point last_;
  Phases phases_;
};

}  // namespace tracecompact
