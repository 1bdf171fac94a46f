// The one exception type of tracecompact: every failure the user can cause or
// meet (bad input, bad arguments, I/O trouble) is reported through it and turned
// into one line on stderr and an exit code at the CLI boundary.
#pragma once

#include <stdexcept>
#include <string>

namespace tracecompact {

// Exit codes are part of the CLI contract (docs/errors.md).
enum class ErrorKind : int {
  kInvalidInput = 1,  // the trace is not valid JSON or breaks a rule of the spec
  kUsage = 2,         // bad arguments, refused output path
  kIo = 3,            // cannot read the input or write the output
};
// A signal (SIGINT, SIGTERM, SIGHUP) is no error value: the handler removes the
// temporary files and re-raises it, so the process dies of it (exit 128+N).

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }
  int exit_code() const { return static_cast<int>(kind_); }

 private:
  ErrorKind kind_;
};

[[noreturn]] inline void fail_input(const std::string& message) {
  throw Error(ErrorKind::kInvalidInput, message);
}
[[noreturn]] inline void fail_usage(const std::string& message) {
  throw Error(ErrorKind::kUsage, message);
}
[[noreturn]] inline void fail_io(const std::string& message) {
  throw Error(ErrorKind::kIo, message);
}

}  // namespace tracecompact
