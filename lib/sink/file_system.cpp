#include "sink/file_system.h"

#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>

namespace tracecompact {

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif

FileSystemKind file_system_kind(int fd) {
  struct statfs info {};
  if (::fstatfs(fd, &info) != 0) return FileSystemKind::other;
  switch (static_cast<unsigned long>(info.f_type)) {
    case EXT4_SUPER_MAGIC:  // also ext2 and ext3
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC:
      return FileSystemKind::local_disk;
    case TMPFS_MAGIC:
      return FileSystemKind::memory;
    default:
      return FileSystemKind::other;
  }
}

bool file_size_unlimited() {
  struct rlimit limit {};
  return ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur == RLIM_INFINITY;
}

}  // namespace tracecompact
