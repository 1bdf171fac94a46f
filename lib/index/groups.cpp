#include "index/groups.h"

#include <algorithm>
#include <array>
#include <cstring>

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

// Kernel names repeat: a trace has tens to hundreds of distinct ones over
// hundreds of thousands of slices, many of them long C++ signatures whose
// lowering and searching cost ~600 instructions a slice. Each thread keeps the
// group of recent names in a small direct-mapped table (a slot from the length
// and the first and last bytes, a hit confirmed by comparing the whole name):
// at most kSlots names of at most kLongestKept bytes, so a bounded size.
class RecentNames {
 public:
  const Group* find(std::string_view name) const {
    const Entry& entry = entries_[slot_of(name)];
    return entry.used && entry.name == name ? &entry.group : nullptr;
  }
  void keep(std::string_view name, Group group) {
    if (name.size() > kLongestKept) return;
    Entry& entry = entries_[slot_of(name)];
    entry.name.assign(name);
    entry.group = group;
    entry.used = true;
  }

 private:
  static constexpr size_t kSlots = 64;
  static constexpr size_t kLongestKept = 1024;
  struct Entry {
    std::string name;
    Group group = Group::kCompute;
    bool used = false;
  };
  static size_t slot_of(std::string_view name) {
    static_assert(kSlots == 64, "the slot is the mix's top 6 bits");
    if (name.empty()) return 0;
    uint64_t head = 0, tail = 0;
    const size_t n = std::min<size_t>(name.size(), sizeof head);
    std::memcpy(&head, name.data(), n);
    std::memcpy(&tail, name.data() + name.size() - n, n);
    const uint64_t mixed =
        (head ^ (tail * 0x9E3779B97F4A7C15ull) ^ name.size()) * 0xBF58476D1CE4E5B9ull;
    return static_cast<size_t>(mixed >> 58);
  }
  std::array<Entry, kSlots> entries_{};
};

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
  thread_local RecentNames recent;
  if (const Group* known = recent.find(name)) return *known;
  const Group group = classify_kernel_name(name);
  recent.keep(name, group);
  return group;
}

Group classify_kernel_name(std::string_view name) {
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
