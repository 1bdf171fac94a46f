#include "merge/parallel_pieces.h"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sink/byte_sink.h"
#include "sink/temp_files.h"
#include "source/byte_source.h"

namespace tracecompact {
namespace {

// A piece rendered by a helper: "[" followed by its elements, in a temporary file.
struct HelperPiece {
  std::string path;
  bool done = false;
  std::exception_ptr error;
};

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

void render_to_temp(size_t index, HelperPiece& piece,
                    const std::function<void(size_t, JsonOut&)>& render) {
  std::string path;
  const FileDescriptor fd(create_scratch_file("part", path));
  piece.path = path;
  FdSink sink(fd.get(), path);
  JsonOut part(sink);
  part.start_array();  // so that the writer separates the piece's elements
  render(index, part);
  part.stream().drain();
}

// Appends a helper's elements (its file without the leading '[') as one raw value.
void append_piece(const std::string& path, JsonOut& out) {
  FileSource part(path, path);
  std::vector<char> buffer(size_t{1} << 20);
  size_t bracket = 1;  // the '[' of the helper's own writer
  bool started = false;
  while (const size_t got = part.read(buffer.data(), buffer.size())) {
    const size_t skip = std::min(bracket, got);
    bracket -= skip;
    if (got == skip) continue;
    if (!started) out.begin_raw_value();  // an empty piece adds no separator
    started = true;
    out.stream().write(buffer.data() + skip, got - skip);
  }
}

class Helpers {
 public:
  Helpers(size_t count, unsigned threads, const std::function<void(size_t, JsonOut&)>& render)
      : count_(count), threads_(threads), render_(render), pieces_(count) {
    for (unsigned t = 1; t < threads_; ++t) pool_.emplace_back([this] { work(); });
  }
  Helpers(const Helpers&) = delete;
  Helpers& operator=(const Helpers&) = delete;
  ~Helpers() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    for (auto& thread : pool_) thread.join();
    for (auto& piece : pieces_)
      if (!piece.path.empty()) remove_temp_file(piece.path);
  }

  bool on_caller(size_t piece) const { return piece % threads_ == 0; }

  // Waits for a helper's piece and appends it; rethrows its failure.
  void append(size_t index, JsonOut& out) {
    HelperPiece& piece = pieces_[index];
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return piece.done; });
    }
    if (piece.error) std::rethrow_exception(piece.error);
    append_piece(piece.path, out);
    remove_temp_file(piece.path);
    piece.path.clear();
  }

 private:
  void work() {
    for (;;) {
      size_t index;
      {
        std::lock_guard lock(mutex_);
        while (next_ < count_ && on_caller(next_)) ++next_;
        if (stopping_ || next_ >= count_) return;
        index = next_++;
      }
      HelperPiece& piece = pieces_[index];
      try {
        render_to_temp(index, piece, render_);
      } catch (...) {
        piece.error = std::current_exception();
      }
      {
        std::lock_guard lock(mutex_);
        piece.done = true;
      }
      ready_.notify_all();
    }
  }

  const size_t count_;
  const unsigned threads_;
  const std::function<void(size_t, JsonOut&)>& render_;
  std::vector<HelperPiece> pieces_;
  std::mutex mutex_;
  std::condition_variable ready_;
  size_t next_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> pool_;
};

}  // namespace

void render_array_pieces(size_t count, unsigned threads, JsonOut& out,
                         const std::function<void(size_t piece, JsonOut& out)>& render) {
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(count, 1)));
  if (threads <= 1) {
    for (size_t piece = 0; piece < count; ++piece) render(piece, out);
    return;
  }
  Helpers helpers(count, threads, render);
  for (size_t piece = 0; piece < count; ++piece) {
    if (helpers.on_caller(piece))
      render(piece, out);
    else
      helpers.append(piece, out);
  }
}

}  // namespace tracecompact
