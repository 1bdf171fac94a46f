// What the sinks need to know about the file system under an output file.
#pragma once

namespace tracecompact {

enum class FileSystemKind {
  local_disk,  // ext4, XFS, btrfs: blocks on a local device
  memory,      // tmpfs: the page cache is the file
  other,       // network, FUSE, overlay, unknown: left to plain write()
};

FileSystemKind file_system_kind(int fd);

// Whether no file size limit (ulimit -f) applies: reserving space past the
// data's end could otherwise cross it before the data does.
bool file_size_unlimited();

}  // namespace tracecompact
