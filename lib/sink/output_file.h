// The output of a run: written to a temporary file beside the target and renamed
// into place only when everything succeeded, or streamed to stdout.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sink/byte_sink.h"
#include "sink/write_behind_sink.h"

namespace tracecompact {

// Whether `path` names an existing device, FIFO or other file that is neither a
// regular file nor a folder: such an output is written in place, since a file
// renamed over it would replace the node, and it cannot be read back.
bool written_in_place(const std::string& path);

struct OutputSpec {
  std::string path;  // "-" = stdout
  bool gzip = false;
  int gzip_level = 1;
  bool overwrite = false;
  bool read_back = false;  // the run reads the file again (--verify): keep it in the page cache
  uint64_t expected_bytes = 0;  // about how much will be written (0: unknown), to size buffers
};

class OutputFile {
 public:
  explicit OutputFile(const OutputSpec& spec);
  ~OutputFile();  // removes the temporary file unless commit() succeeded
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Deflating and writing happen on a writer thread behind this sink.
  ByteSink& sink() { return *behind_; }
  // Flushes and closes the output and frees its buffers (sink() is gone);
  // returns where its bytes now are (the temporary file, or the target when
  // written in place), so that --verify can read them before commit() puts
  // them in place.
  const std::string& finish_writing();
  // Finishes writing if not done yet and renames the temporary file onto the target.
  void commit();
  // Whether the file is written with O_DIRECT (a new file on a local disk that
  // the run does not read back).
  bool bypasses_page_cache() const { return bypasses_page_cache_; }

 private:
  void release();  // stops the sinks, closes, and removes what was not committed
  // Where the bytes go: the temporary file, or the target when written in place.
  const std::string& written_path() const { return temp_path_.empty() ? spec_.path : temp_path_; }
  OutputSpec spec_;
  std::string display_name_;
  // What the temporary file replaces: the path, or the file its link names.
  std::string target_path_;
  std::string temp_path_;
  int fd_ = -1;
  std::unique_ptr<ByteSink>
      plain_;  // FdSink, or a DirectFileSink or PreparedFileSink for a new file
  std::unique_ptr<GzipSink> gzip_;
  std::unique_ptr<WriteBehindSink> behind_;  // over gzip_ or plain_
  bool finished_ = false;
  bool committed_ = false;
  bool bypasses_page_cache_ = false;
  bool direct_fd_ = false;  // fd_ is ours to close, but there is no file to rename
  std::vector<std::filesystem::path> created_folders_;

  std::unique_ptr<ByteSink> new_file_sink();
  void create_parent_folders(const std::filesystem::path& directory);
  void remove_created_folders();
};

// Refuses an existing output without --overwrite (spec 12: checked first).
void check_output_allowed(const std::string& path, bool overwrite);

}  // namespace tracecompact
