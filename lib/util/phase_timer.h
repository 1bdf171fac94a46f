// Wall time of the phases of a run (--timings), for performance work.
#pragma once

#include <chrono>
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
    phases_.emplace_back(std::move(phase), std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  const Phases& phases() const { return phases_; }

 private:
  std::chrono::steady_clock::time_point last_;
  Phases phases_;
};

}  // namespace tracecompact
