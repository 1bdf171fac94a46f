#include "plan/pp_pairing.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <queue>
#include <tuple>

namespace tracecompact {

BlockPairs pair_nearest_midpoints_exhaustive(const std::vector<double>& sources,
                                             const std::vector<double>& destinations) {
  struct Candidate {
    double distance;
    size_t source;
    size_t destination;
  };
  std::vector<Candidate> candidates;
  candidates.reserve(sources.size() * destinations.size());
  for (size_t s = 0; s < sources.size(); ++s)
    for (size_t d = 0; d < destinations.size(); ++d)
      candidates.push_back({std::fabs(sources[s] - destinations[d]), s, d});
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.distance, a.source, a.destination) <
           std::tie(b.distance, b.source, b.destination);
  });
  std::vector<bool> used_source(sources.size()), used_destination(destinations.size());
  BlockPairs pairs;
  const size_t most = std::min(sources.size(), destinations.size());
  for (const auto& c : candidates) {
    if (pairs.size() == most) break;
    if (used_source[c.source] || used_destination[c.destination]) continue;
    used_source[c.source] = used_destination[c.destination] = true;
    pairs.emplace_back(c.source, c.destination);
  }
  return pairs;
}

namespace {

// Destinations sorted by (mid, index); equal mids form a group. A "next unused
// position" union-find lets every source skip taken destinations cheaply.
class DestinationTable {
 public:
  explicit DestinationTable(const std::vector<double>& mids) : mids_(mids) {
    order_.resize(mids.size());
    std::iota(order_.begin(), order_.end(), size_t{0});
    std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      return std::make_pair(mids[a], a) < std::make_pair(mids[b], b);
    });
    for (size_t p = 0; p < order_.size(); ++p)
      if (p == 0 || mids[order_[p]] != mids[order_[p - 1]]) group_begin_.push_back(p);
    group_begin_.push_back(order_.size());
    next_free_.resize(order_.size() + 1);
    std::iota(next_free_.begin(), next_free_.end(), size_t{0});
  }

  size_t groups() const { return group_begin_.size() - 1; }
  double group_mid(size_t g) const { return mids_[order_[group_begin_[g]]]; }
  // First group whose mid is >= x.
  size_t lower_group(double x) const {
    size_t lo = 0, hi = groups();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (group_mid(mid) < x)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }
  // Smallest unused destination index in group g, or npos.
  size_t first_unused(size_t g) {
    const size_t p = find(group_begin_[g]);
    return p < group_begin_[g + 1] ? order_[p] : npos;
  }
  void take(size_t destination_index) { position_taken(position_of(destination_index)); }

  static constexpr size_t npos = std::numeric_limits<size_t>::max();

 private:
  size_t find(size_t p) {
    while (next_free_[p] != p) {
      next_free_[p] = next_free_[next_free_[p]];
      p = next_free_[p];
    }
    return p;
  }
  size_t position_of(size_t destination_index) const {
    // Binary search in the (mid, index) order.
    const auto key = std::make_pair(mids_[destination_index], destination_index);
    return static_cast<size_t>(std::lower_bound(order_.begin(), order_.end(), key,
                                                [&](size_t a, const std::pair<double, size_t>& k) {
                                                  return std::make_pair(mids_[a], a) < k;
                                                }) -
                               order_.begin());
  }
  void position_taken(size_t p) { next_free_[p] = p + 1; }

  const std::vector<double>& mids_;
  std::vector<size_t> order_;
  std::vector<size_t> group_begin_;
  std::vector<size_t> next_free_;
};

// Walks outwards from a source's mid: groups in order of distance, all groups
// at the same distance (on both sides) merged by destination index.
struct SourceCursor {
  double mid = 0;
  int64_t left = -1;  // next group to the left (mid below)
  size_t right = 0;   // next group to the right (mid at or above)
};

struct Candidate {
  double distance;
  size_t source;
  size_t destination;
  bool operator>(const Candidate& other) const {
    return std::tie(distance, source, destination) >
           std::tie(other.distance, other.source, other.destination);
  }
};

// The source's smallest unused candidate, advancing past exhausted groups.
// Distances are rounded doubles, as the reference's are: far from the source's
// mid, several groups on one side can round to the same distance, and their
// destinations then tie, to be taken by index like those of the other side.
bool next_candidate(SourceCursor& cursor, DestinationTable& table, size_t source, Candidate& out) {
  auto distance_to = [&](size_t group) { return std::fabs(cursor.mid - table.group_mid(group)); };
  for (;;) {
    const bool has_left = cursor.left >= 0;
    const bool has_right = cursor.right < table.groups();
    if (!has_left && !has_right) return false;
    const double distance =
        std::min(has_left ? distance_to(static_cast<size_t>(cursor.left))
                          : std::numeric_limits<double>::infinity(),
                 has_right ? distance_to(cursor.right) : std::numeric_limits<double>::infinity());
    size_t best = DestinationTable::npos;
    int64_t left = cursor.left;
    for (; left >= 0 && distance_to(static_cast<size_t>(left)) == distance; --left)
      best = std::min(best, table.first_unused(static_cast<size_t>(left)));
    size_t right = cursor.right;
    for (; right < table.groups() && distance_to(right) == distance; ++right)
      best = std::min(best, table.first_unused(right));
    if (best != DestinationTable::npos) {
      out = {distance, source, best};
      return true;
    }
    cursor.left = left;
    cursor.right = right;
  }
}

}  // namespace

BlockPairs pair_nearest_midpoints_lazy(const std::vector<double>& sources,
                                       const std::vector<double>& destinations) {
  BlockPairs pairs;
  if (sources.empty() || destinations.empty()) return pairs;
  DestinationTable table(destinations);
  std::vector<SourceCursor> cursors(sources.size());
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  std::vector<bool> used_destination(destinations.size());
  for (size_t s = 0; s < sources.size(); ++s) {
    cursors[s].mid = sources[s];
    cursors[s].right = table.lower_group(sources[s]);
    cursors[s].left = static_cast<int64_t>(cursors[s].right) - 1;
    Candidate c;
    if (next_candidate(cursors[s], table, s, c)) heap.push(c);
  }
  // A popped entry whose destination is still free is the smallest unused
  // candidate overall: every other entry is a lower bound of its source's next.
  while (!heap.empty() && pairs.size() < std::min(sources.size(), destinations.size())) {
    const Candidate c = heap.top();
    heap.pop();
    if (used_destination[c.destination]) {
      Candidate next;
      if (next_candidate(cursors[c.source], table, c.source, next)) heap.push(next);
      continue;
    }
    used_destination[c.destination] = true;
    table.take(c.destination);
    pairs.emplace_back(c.source, c.destination);
  }
  return pairs;
}

BlockPairs pair_nearest_midpoints(const std::vector<double>& sources,
                                  const std::vector<double>& destinations) {
  // The lazy form wins as soon as the candidate list leaves the cache; sorting
  // 64 k candidates per key made merged arrows 25 % of a 100 MB merge.
  constexpr size_t kExhaustiveLimit = 64;
  if (sources.size() * destinations.size() <= kExhaustiveLimit)
    return pair_nearest_midpoints_exhaustive(sources, destinations);
  return pair_nearest_midpoints_lazy(sources, destinations);
}

}  // namespace tracecompact
