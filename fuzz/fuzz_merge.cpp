// libFuzzer target: a merge of two rank traces cut from the input at its first
// 0xFF byte (never part of UTF-8 JSON; without one, both ranks get the whole
// input). The merge runs on two threads, so the ranks are read side by side and
// written while read: a fault in either rank meets the merge's schedules at
// different moments. Any input must end in an output or a tracecompact::Error,
// never a crash, a sanitizer report or another exception type.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "tracecompact/tracecompact.h"

namespace {

// One folder for the whole fuzzing run, removed at exit. The name is held
// through a pointer never freed: a string's destructor would run before the
// exit handler registered while it was being made.
const std::string& work_dir() {
  static const std::string* const dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "fuzz_merge.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    const auto* made = new std::string(pattern);
    std::atexit([] { std::filesystem::remove_all(work_dir()); });
    return made;
  }();
  return *dir;
}

void write_bytes(const std::string& path, std::string_view bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t cut = input.find('\xff');
  const std::string& dir = work_dir();
  write_bytes(dir + "/rank0_trace.json", input.substr(0, cut));
  write_bytes(dir + "/rank1_trace.json",
              cut == std::string_view::npos ? input : input.substr(cut + 1));
  tracecompact::Options options;
  options.input = dir;
  options.merge_pp_ranks = true;
  options.output = dir + "/merged.json";
  options.overwrite = true;
  options.threads = 2;
  try {
    tracecompact::run(options);
  } catch (const tracecompact::Error&) {
  }
  return 0;
}
