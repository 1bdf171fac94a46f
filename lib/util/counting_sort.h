// Orders items (indexes) by a small integer key in linear time, keeping the
// order of items with equal keys: what the plan uses wherever keys are dense ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tracecompact {

// The core, for items that are not in a vector of their own (every slice index,
// say): `visit_items(f)` calls f(item) on each item in order, and is called
// twice; `key_of(item)` is below key_count; `place(position, item)` stores the
// item at its sorted position. Returns where each key's items begin (key_count + 1
// entries, the last one the end).
template <typename VisitItems, typename KeyOf, typename Place>
std::vector<uint32_t> place_by_key(size_t key_count, VisitItems visit_items, KeyOf key_of,
                                   Place place) {
  std::vector<uint32_t> begin(key_count + 1, 0);
  visit_items([&](uint32_t item) { ++begin[key_of(item) + 1]; });
  for (size_t k = 1; k <= key_count; ++k) begin[k] += begin[k - 1];
  std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
  visit_items([&](uint32_t item) { place(next[key_of(item)]++, item); });
  return begin;
}

// `items` reordered by key. If `key_begin` is given, it receives where each key's
// items begin (as place_by_key returns it).
template <typename KeyOf>
void counting_sort(std::vector<uint32_t>& items, size_t key_count, KeyOf key_of,
                   std::vector<uint32_t>* key_begin = nullptr) {
  std::vector<uint32_t> sorted(items.size());
  std::vector<uint32_t> begin = place_by_key(
      key_count,
      [&](auto visit) {
        for (const uint32_t item : items) visit(item);
      },
      key_of, [&](uint32_t position, uint32_t item) { sorted[position] = item; });
  items.swap(sorted);
  if (key_begin) key_begin->swap(begin);
}

}  // namespace tracecompact
