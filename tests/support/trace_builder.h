// Small hand-built traces for unit tests, written as JSON text.
#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <string>
#include <vector>

namespace testsupport {

// `ts`/`dur` are JSON number texts so that tests control int/float spelling.
inline std::string kernel(int pid, int tid, const std::string& ts, const std::string& dur,
                          const std::string& name = "gemm", const std::string& extra_args = "") {
  return "{\"name\":\"" + name +
         "\",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts + ",\"dur\":" + dur +
         ",\"args\":{\"stream\":" + std::to_string(tid) + extra_args + "}}";
}
inline std::string annotation(int pid, int tid, const std::string& ts, const std::string& dur,
                              const std::string& name, const std::string& args = "{}") {
  return "{\"name\":\"" + name +
         "\",\"cat\":\"gpu_user_annotation\",\"ph\":\"X\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts + ",\"dur\":" + dur +
         ",\"args\":" + args + "}";
}
inline std::string flow(int pid, int tid, const std::string& ts, int id) {
  return "{\"name\":\"ac2g\",\"cat\":\"ac2g\",\"ph\":\"f\",\"bp\":\"e\",\"pid\":" +
         std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts +
         ",\"id\":" + std::to_string(id) + "}";
}
inline std::string trace(const std::vector<std::string>& events, const std::string& extra = "") {
  std::string text = "{\"traceEvents\":[";
  for (size_t i = 0; i < events.size(); ++i) text += (i ? "," : "") + events[i];
  return text + "]" + extra + "}";
}

// A PP rank's events, about 330 bytes a step: per step a kernel on one of
// `streams` streams from tid 7, its flow and a CPU op, and every fourth step a
// PP annotation named `pp_name(step)` on the kernel's stream.
std::vector<std::string> pp_rank_events(int steps, int streams,
                                        const std::function<std::string(int)>& pp_name);

// `bytes` as one gzip member (ISA-L, level 1).
std::string gzip_member(const std::string& bytes);

// The parsed output of a compaction, for assertions.
struct Compacted {
  rapidjson::Document output;
  rapidjson::Document summary;
  const rapidjson::Value& events() const { return output["traceEvents"]; }
};
Compacted compact(const std::string& trace_text);

}  // namespace testsupport
