// Finding the per-rank traces of a PP run (spec 11): rank<N>_trace.json[.gz].
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tracecompact {

struct RankFile {
  std::string path;
  std::string name;
  uint64_t number;  // N of rank<N>_trace.json
};

// The folder a merge reads: `input` itself, or the folder of a file inside it.
std::string merge_directory(const std::string& input);

// Rank files of the folder ordered by N; `selection` keeps only some N. Fails
// on a malformed name, a repeated N, or fewer than two files.
std::vector<RankFile> find_rank_files(const std::string& directory,
                                      const std::optional<std::set<uint64_t>>& selection);

// Parses a --ranks list: "0,4", "0-8", "0,2-3".
std::set<uint64_t> parse_rank_selection(const std::string& text);

}  // namespace tracecompact
