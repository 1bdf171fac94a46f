#include "merge/rank_files.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "tracecompact/error.h"

namespace tracecompact {
namespace fs = std::filesystem;
namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// rank<digits>_trace.json[.gz] -> digits; nullopt when the middle is not a plain number.
std::optional<uint64_t> rank_number(std::string_view name) {
  std::string_view middle = name.substr(4);
  middle = middle.substr(0, middle.size() - (ends_with(name, ".gz") ? 14 : 11));
  if (middle.empty()) return std::nullopt;
  uint64_t number = 0;
  for (char c : middle) {
    if (c < '0' || c > '9') return std::nullopt;
    // Zero padding of any length is fine; a number beyond 64 bits is not.
    if (__builtin_mul_overflow(number, 10, &number) ||
        __builtin_add_overflow(number, static_cast<uint64_t>(c - '0'), &number))
      return std::nullopt;
  }
  return number;
}

std::string display_directory(const std::string& directory) {
  std::string text = directory;
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

}  // namespace

std::string merge_directory(const std::string& input) {
  std::error_code error;
  if (fs::is_directory(input, error)) return input;
  const fs::path parent = fs::path(input).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::vector<RankFile> find_rank_files(const std::string& directory,
                                      const std::optional<std::set<uint64_t>>& selection) {
  std::vector<RankFile> files;
  std::error_code error;
  fs::directory_iterator it(directory, error);
  // A folder that is not there holds no rank traces (as a glob finds none).
  if (error == std::errc::no_such_file_or_directory || error == std::errc::not_a_directory)
    fail_input("found fewer than two rank traces in " + display_directory(directory));
  if (error) fail_io("cannot list " + directory + ": " + error.message());
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    const bool candidate = name.rfind("rank", 0) == 0 && name.size() >= 4 + 11 &&
                           (ends_with(name, "_trace.json") || ends_with(name, "_trace.json.gz"));
    if (!candidate) continue;
    const auto number = rank_number(name);
    if (!number) fail_input("invalid PP trace filename: " + name);
    if (entry.is_directory(error))
      fail_io("cannot read " + entry.path().string() + ": is a folder");
    if (selection && !selection->count(*number)) continue;
    files.push_back({entry.path().string(), name, *number});
  }
  std::sort(files.begin(), files.end(), [](const RankFile& a, const RankFile& b) {
    return std::tie(a.number, a.name) < std::tie(b.number, b.name);
  });
  for (size_t i = 1; i < files.size(); ++i)
    if (files[i].number == files[i - 1].number)
      fail_input("two traces for rank " + std::to_string(files[i].number) + ": " +
                 files[i - 1].name + " and " + files[i].name);
  if (files.size() < 2)
    fail_input("found fewer than two rank traces in " + display_directory(directory));
  return files;
}

std::set<uint64_t> parse_rank_selection(const std::string& text) {
  std::set<uint64_t> selection;
  auto parse = [&](std::string_view part) {
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
      fail_usage("--ranks takes numbers and ranges such as 0,4 or 0-8; got \"" + text + "\"");
    return value;
  };
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    const std::string_view part(text.data() + begin, end - begin);
    const size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      selection.insert(parse(part));
    } else {
      const uint64_t first = parse(part.substr(0, dash));
      const uint64_t last = parse(part.substr(dash + 1));
      if (last < first || last - first > 1000000)
        fail_usage("--ranks has a bad range: " + std::string(part));
      for (uint64_t r = first;; ++r) {  // not `r <= last`: last may be UINT64_MAX
        selection.insert(r);
        if (r == last) break;
      }
    }
    begin = end + 1;
  }
  return selection;
}

}  // namespace tracecompact
