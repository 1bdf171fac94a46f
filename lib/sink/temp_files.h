// Temporary files that must not outlive a failed or interrupted run. Cleanup
// from a signal handler only uses async-signal-safe calls.
#pragma once

#include <string>

namespace tracecompact {

void register_temp_file(const std::string& path);
// mkstemp on `path_template` (ending in XXXXXX) with the new file registered
// before any signal can be taken; returns the fd (or -1 with errno set).
int create_temp_file(std::string& path_template);
// A new private file $TMPDIR/tracecompact-<stem>-XXXXXX (/tmp without TMPDIR),
// created as create_temp_file does; sets `path`, throws an I/O error on failure.
int create_scratch_file(const char* stem, std::string& path);
// Unlinks the file (if it still exists) and forgets it.
void remove_temp_file(const std::string& path);
// Forgets the file without unlinking it (it was renamed into place).
void release_temp_file(const std::string& path);
// SIGINT/SIGTERM/SIGHUP: unlink every registered file, then die of the signal.
// SIGPIPE and SIGXFSZ are ignored: the write fails instead (EPIPE, EFBIG) and is
// reported as an I/O error, which also removes the files.
void install_cleanup_signal_handlers();

}  // namespace tracecompact
