// Orders items (indexes) by a small integer key in linear time, keeping the
// order of items with equal keys: what the plan uses wherever keys are dense ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tracecompact {

// Keys are below key_count. If `key_begin` is given, it receives where each
// key's items begin (key_count + 1 entries, the last one the end).
template <typename KeyOf>
void counting_sort(std::vector<uint32_t>& items, size_t key_count, KeyOf key_of,
                   std::vector<uint32_t>* key_begin = nullptr) {
  std::vector<uint32_t> begin(key_count + 1, 0);
  for (const uint32_t item : items) ++begin[key_of(item) + 1];
  for (size_t k = 1; k <= key_count; ++k) begin[k] += begin[k - 1];
  std::vector<uint32_t> sorted(items.size());
  {
    std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
    for (const uint32_t item : items) sorted[next[key_of(item)]++] = item;
  }
  items.swap(sorted);
  if (key_begin) key_begin->swap(begin);
}

}  // namespace tracecompact
