#include "sink/output_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "sink/direct_file_sink.h"
#include "sink/prepared_file_sink.h"
#include "sink/temp_files.h"
#include "tracecompact/error.h"

namespace tracecompact {
namespace fs = std::filesystem;

bool written_in_place(const std::string& path) {
  struct stat existing {};
  return path != "-" && ::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode) &&
         !S_ISDIR(existing.st_mode);
}

namespace {

// The file a symbolic link leads to (where it exists, or its folder does), so
// that the output replaces that file and the link stays a link: renaming over
// the link itself would replace it (`-o /dev/stdout` with stdout redirected to
// a file would replace /dev/stdout). Any other path is returned as it is.
std::string followed_link(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return path;
  std::error_code error;
  const fs::path target = fs::weakly_canonical(path, error);
  return error ? path : target.string();
}

}  // namespace

void check_output_allowed(const std::string& path, bool overwrite) {
  if (path == "-" || overwrite) return;
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0)
    fail_usage("output already exists: " + path + "; pass --overwrite to replace it");
}

OutputFile::OutputFile(const OutputSpec& spec) : spec_(spec) {
  const bool special_target = written_in_place(spec.path);
  if (spec.path == "-") {
    display_name_ = "<stdout>";
    fd_ = STDOUT_FILENO;
  } else if (special_target) {
    // A device or FIFO (/dev/null, a named pipe) is written in place: renaming a
    // file over it would replace the device node.
    display_name_ = spec.path;
    fd_ = ::open(spec.path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail_io("cannot write " + spec.path + ": " + std::strerror(errno));
    direct_fd_ = true;
  } else {
    display_name_ = spec.path;
    target_path_ = followed_link(spec.path);
    const fs::path target(target_path_);
    const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
    create_parent_folders(directory);
    std::string path = (directory / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    fd_ = create_temp_file(path);
    if (fd_ < 0) {
      const int saved = errno;
      remove_created_folders();
      fail_io("cannot create output in " + directory.string() + ": " + std::strerror(saved));
    }
    temp_path_ = path;
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);
  }
  try {
    plain_ = new_file_sink();
    if (spec.gzip) gzip_ = std::make_unique<GzipSink>(*plain_, spec.gzip_level);
    behind_ = std::make_unique<WriteBehindSink>(gzip_ ? static_cast<ByteSink&>(*gzip_) : *plain_,
                                                WriteBehindSink::kBlockBytes,
                                                WriteBehindSink::depth_for(spec.expected_bytes));
  } catch (...) {
    release();  // no destructor runs for a half-made object: no file left behind
    throw;
  }
}

OutputFile::~OutputFile() {
  release();
}

void OutputFile::release() {
  behind_.reset();  // the writer thread stops before its descriptor is closed
  gzip_.reset();
  plain_.reset();  // and so does the helper of a prepared file
  if (direct_fd_) ::close(fd_);
  if (!temp_path_.empty()) {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) remove_temp_file(temp_path_);
  }
  if (!committed_) remove_created_folders();
}

// A new file on a local disk is written past the page cache, unless the run
// reads it back (--verify read it from the disk 3.5-4 s slower at 1 GB); elsewhere
// it is prepared ahead of its writer. Stdout and devices get plain writes.
std::unique_ptr<ByteSink> OutputFile::new_file_sink() {
  if (temp_path_.empty()) return std::make_unique<FdSink>(fd_, display_name_);
  if (!spec_.read_back) {
    // The sink itself knows where O_DIRECT is used (local disks only).
    auto direct = std::make_unique<DirectFileSink>(
        fd_, display_name_, DirectFileSink::buffer_size_for(spec_.expected_bytes));
    bypasses_page_cache_ = direct->direct();
    if (bypasses_page_cache_) return direct;
  }
  return std::make_unique<PreparedFileSink>(fd_, display_name_);
}

// Missing parent folders are created (spec 12), and removed again if the run fails.
void OutputFile::create_parent_folders(const fs::path& directory) {
  std::vector<fs::path> missing;
  std::error_code error;
  for (fs::path p = directory; !p.empty() && !fs::exists(p, error); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!fs::create_directory(*it, error) && error) {
      remove_created_folders();
      fail_io("cannot create output folder " + it->string() + ": " + error.message());
    }
    created_folders_.push_back(*it);
  }
}

void OutputFile::remove_created_folders() {
  std::error_code ignored;
  for (auto it = created_folders_.rbegin(); it != created_folders_.rend(); ++it)
    fs::remove(*it, ignored);  // only removes empty folders
  created_folders_.clear();
}

const std::string& OutputFile::finish_writing() {
  if (finished_) return written_path();
  sink().finish();
  finished_ = true;
  // Their buffers go before --verify reads the output (the writer's threads
  // stop before the descriptor closes).
  behind_.reset();
  gzip_.reset();
  plain_.reset();
  if (temp_path_.empty()) return written_path();  // stdout or a device: no file to close
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail_io("cannot write " + display_name_ + ": " + std::strerror(errno));
  }
  fd_ = -1;
  return written_path();
}

void OutputFile::commit() {
  finish_writing();
  if (temp_path_.empty()) return;  // stdout or a device, written in place
  // Without --overwrite a file that appeared meanwhile is not clobbered either.
  const unsigned flags = spec_.overwrite ? 0 : RENAME_NOREPLACE;
  if (::renameat2(AT_FDCWD, temp_path_.c_str(), AT_FDCWD, target_path_.c_str(), flags) != 0) {
    if (errno == EEXIST)
      fail_usage("output already exists: " + spec_.path + "; pass --overwrite to replace it");
    fail_io("cannot move the output into place at " + spec_.path + ": " + std::strerror(errno));
  }
  release_temp_file(temp_path_);
  committed_ = true;
  created_folders_.clear();
}

}  // namespace tracecompact
