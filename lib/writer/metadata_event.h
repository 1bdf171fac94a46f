// The metadata events the tool adds (track and process names and sort
// indexes): {"name", "ph": "M", "pid", "tid", "args": {<one argument>}}, in
// the key order the reference writes.
#pragma once

#include <cstdint>
#include <string_view>

#include "writer/json_writer.h"

namespace tracecompact {

// `write_argument(out)` writes the value of args.<argument>.
template <typename WriteArgument>
void write_metadata_event(JsonOut& out, std::string_view name, int64_t pid, int64_t tid,
                          std::string_view argument, WriteArgument write_argument) {
  out.start_object();
  out.key("name");
  out.string(name);
  out.key("ph");
  out.string("M");
  out.key("pid");
  out.integer(pid);
  out.key("tid");
  out.integer(tid);
  out.key("args");
  out.start_object();
  out.key(argument);
  write_argument(out);
  out.end_object();
  out.end_object();
}

}  // namespace tracecompact
