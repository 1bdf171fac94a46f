#include "index/groups.h"

#include <algorithm>

namespace tracecompact {
namespace {

struct GroupInfo {
  std::string_view key;
  std::string_view label;
};
constexpr GroupInfo kGroups[kGroupCount] = {
    {"compute", "Compute"},
    {"symmetric_memory_barrier", "Symmetric-memory barrier"},
    {"nccl_all_gather", "NCCL all-gather"},
    {"nccl_reduce_scatter", "NCCL reduce-scatter"},
    {"nccl_all_reduce", "NCCL all-reduce"},
    {"nccl_other", "NCCL other"},
    {"memcpy", "GPU memcpy"},
    {"memset", "GPU memset"},
    {"cuda_sync", "CUDA sync"},
};

bool contains_lowercase(std::string_view lowered, std::string_view needle) {
  return lowered.find(needle) != std::string_view::npos;
}

}  // namespace

std::string_view group_key(Group group) {
  return kGroups[static_cast<int>(group)].key;
}
std::string_view group_label(Group group) {
  return kGroups[static_cast<int>(group)].label;
}

Group classify_slice(std::string_view category, std::string_view name) {
  if (category == "gpu_memcpy") return Group::kMemcpy;
  if (category == "gpu_memset") return Group::kMemset;
  if (category == "cuda_sync") return Group::kCudaSync;
  thread_local std::string lowered;
  lowered.assign(name);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
  if (contains_lowercase(lowered, "nccl")) {
    if (contains_lowercase(lowered, "allgather")) return Group::kNcclAllGather;
    if (contains_lowercase(lowered, "reducescatter")) return Group::kNcclReduceScatter;
    if (contains_lowercase(lowered, "allreduce")) return Group::kNcclAllReduce;
    return Group::kNcclOther;
  }
  if (contains_lowercase(lowered, "symmetric_memory") && contains_lowercase(lowered, "barrier"))
    return Group::kSymmetricMemoryBarrier;
  return Group::kCompute;
}

}  // namespace tracecompact
