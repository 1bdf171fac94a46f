// An empty file opened for writing, closed when the test is done with it: what
// OutputFile hands its sinks.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace testsupport {

class NewFile {
 public:
  explicit NewFile(const std::string& path)
      : fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) {}
  ~NewFile() {
    if (fd >= 0) ::close(fd);
  }
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;
  const int fd;
};

}  // namespace testsupport
