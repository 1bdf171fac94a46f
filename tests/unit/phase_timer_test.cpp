// --timings' lines: each phase with its peak memory (in MiB, as VmHWM reads)
// and its CPU time.
#include <catch2/catch.hpp>

#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "util/phase_timer.h"

namespace tracecompact {

TEST_CASE("a phase names its peak memory in MiB and its CPU seconds") {
  PhaseTimer timer;
  // 64 MiB touched: the peak the next mark reads is at least that.
  std::vector<char> touched(size_t{64} << 20);
  std::memset(touched.data(), 1, touched.size());
  timer.mark("touching");
  REQUIRE(timer.phases().size() == 1);
  const std::string& label = timer.phases()[0].first;
  std::smatch match;
  REQUIRE(std::regex_match(label, match,
                           std::regex(R"(touching \(peak (\d+) MiB, cpu \d+\.\d{3} s\))")));
  CHECK(std::stol(match[1].str()) >= 64);
  CHECK(timer.phases()[0].second >= 0);
  CHECK(touched[touched.size() - 1] == 1);
}

}  // namespace tracecompact
