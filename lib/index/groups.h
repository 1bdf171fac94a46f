// Semantic lane groups of measured slices (spec 2, and cuda_sync of spec 12).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tracecompact {

// Declared in display order: the order in which a pid's groups get lanes.
enum class Group : uint8_t {
  kCompute,
  kSymmetricMemoryBarrier,
  kNcclAllGather,
  kNcclReduceScatter,
  kNcclAllReduce,
  kNcclOther,
  kMemcpy,
  kMemset,
  kCudaSync,
};
constexpr int kGroupCount = 9;

std::string_view group_key(Group group);    // "nccl_all_gather"
std::string_view group_label(Group group);  // "NCCL all-gather"

// Group of a measured slice from its category and name (first rule that matches).
Group classify_slice(std::string_view category, std::string_view name);

// The name rules alone (the category neither memcpy, memset nor cuda_sync),
// without the per-thread table of recent names that classify_slice keeps.
Group classify_kernel_name(std::string_view name);

}  // namespace tracecompact
