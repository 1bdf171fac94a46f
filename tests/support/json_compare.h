// Semantic JSON comparison for tests: numbers as correctly rounded doubles, a
// repeated key's last value, object key order free, array order significant
// (the contract of shared/tools/trace_diff.py, which reads with Python's json).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace testsupport {

// The first difference, or nullopt when equal. `ignore` lists dotted paths of
// object keys to skip (e.g. "cuda_graph_stream_compaction.source").
std::optional<std::string> first_difference(const std::string& expected_json,
                                            const std::string& actual_json,
                                            const std::vector<std::string>& ignore = {});

std::string read_file(const std::string& path);  // gzip-aware
void write_file(const std::string& path, const std::string& bytes);

}  // namespace testsupport
