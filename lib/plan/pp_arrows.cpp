#include "plan/pp_arrows.h"

#include "plan/pp_pairing.h"
#include "util/counting_sort.h"
#include "util/gallop_search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>
#include <type_traits>

namespace tracecompact {
namespace {

bool parse_digits(std::string_view text, size_t& at, uint64_t& value) {
  const size_t begin = at;
  unsigned __int128 wide = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
    wide = wide * 10 + static_cast<unsigned>(text[at] - '0');
    if (wide > std::numeric_limits<uint64_t>::max()) return false;
    ++at;
  }
  value = static_cast<uint64_t>(wide);
  return at > begin;
}

using BlockKey = std::tuple<uint64_t, PPOp, uint64_t>;          // (stage, op, microbatch)
using FullKey = std::tuple<int64_t, uint64_t, PPOp, uint64_t>;  // (pid, stage, op, microbatch)

bool is_compute(PPOp op) {
  return op == PPOp::kF || op == PPOp::kB;
}

enum TrackRole : uint8_t { kOnMainCompute = 1, kOnUnshard = 2 };

// What the rules read of records that refer to the shared tables.
class PPView {
 public:
  PPView(const PPTables& tables, const PPLaneSets& lanes) : tables_(tables) {
    roles_.reserve(tables.tracks.size());
    for (const StreamKey& track : tables.tracks)
      roles_.push_back(static_cast<uint8_t>((lanes.main_compute.count(track) ? kOnMainCompute : 0) |
                                            (lanes.unshard.count(track) ? kOnUnshard : 0)));
  }

  int64_t pid(uint32_t track) const { return tables_.tracks[track].pid; }
  int64_t tid(uint32_t track) const { return tables_.tracks[track].tid; }
  bool has_role(uint32_t track, TrackRole role) const { return roles_[track] & role; }
  const PPName& name(uint32_t name) const { return tables_.names[name]; }

  BlockKey key_of(const PPBlock& block) const {
    const PPName& n = name(block.name);
    return {n.stage, n.op, n.microbatch_if_any().value_or(0)};
  }
  FullKey full_key_of(const PPBlock& block) const {
    const PPName& n = name(block.name);
    return {pid(block.track), n.stage, n.op, n.microbatch_if_any().value_or(0)};
  }
  FullKey group_key_of(const PPAnnotation& a) const {
    const PPName& n = name(a.name);
    return {pid(a.track), n.stage, n.op, n.microbatch};
  }
  // Per track: the rank of its pid among the tracks' pids (equal pids, equal ranks).
  std::vector<uint32_t> track_pid_ranks() const {
    return ranks(tables_.tracks.size(), [&](uint32_t t) { return pid(t); });
  }
  // Per name: the rank of its (stage, op, microbatch) among all names'.
  std::vector<uint32_t> operation_name_ranks() const {
    return ranks(tables_.names.size(), [&](uint32_t n) {
      return std::make_tuple(name(n).stage, name(n).op, name(n).microbatch);
    });
  }

 private:
  template <typename KeyOf>
  static std::vector<uint32_t> ranks(size_t count, KeyOf key_of) {
    std::vector<uint32_t> order(count);
    for (uint32_t i = 0; i < count; ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return key_of(a) < key_of(b); });
    std::vector<uint32_t> rank(count);
    for (size_t k = 0; k < count; ++k)
      rank[order[k]] = k > 0 && key_of(order[k - 1]) == key_of(order[k]) ? rank[order[k - 1]]
                                                                         : static_cast<uint32_t>(k);
    return rank;
  }

  const PPTables& tables_;
  std::vector<uint8_t> roles_;
};

PPBlock block_from(const PPAnnotation& a) {
  return PPBlock{a.ts, a.ts + a.dur, a.track, a.name};
}

// One block from overlapping annotations: the representative has the smallest (ts, tid).
PPBlock merge_block(const std::vector<const PPAnnotation*>& members, const PPView& view) {
  const PPAnnotation* representative = members.front();
  double start = members.front()->ts, end = members.front()->ts + members.front()->dur;
  for (const PPAnnotation* m : members) {
    if (std::make_pair(m->ts, view.tid(m->track)) <
        std::make_pair(representative->ts, view.tid(representative->track)))
      representative = m;
    start = std::min(start, m->ts);
    end = std::max(end, m->ts + m->dur);
  }
  PPBlock block = block_from(*representative);
  block.start = start;
  block.end = end;
  return block;
}

// F/B annotations of one key: overlapping ones form one block, seen on the main compute track.
void add_compute_blocks(std::vector<const PPAnnotation*>& members, const PPView& view,
                        std::vector<PPBlock>& blocks) {
  std::stable_sort(members.begin(), members.end(),
                   [](const PPAnnotation* a, const PPAnnotation* b) {
                     return std::make_pair(a->ts, a->dur) < std::make_pair(b->ts, b->dur);
                   });
  std::vector<const PPAnnotation*> on_main;
  auto close_cluster = [&] {
    if (!on_main.empty()) blocks.push_back(merge_block(on_main, view));
    on_main.clear();
  };
  double cluster_end = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < members.size(); ++i) {
    const PPAnnotation* m = members[i];
    if (i > 0 && !(m->ts <= cluster_end)) close_cluster();
    cluster_end =
        i == 0 || !(m->ts <= cluster_end) ? m->ts + m->dur : std::max(cluster_end, m->ts + m->dur);
    if (view.has_role(m->track, kOnMainCompute)) on_main.push_back(m);
  }
  close_cluster();
}

// Blocks grouped by (pid, stage, op, microbatch), keys ascending.
std::vector<PPBlock> operation_blocks(const std::vector<PPAnnotation>& annotations,
                                      const PPView& view) {
  // Ordered by (pid, stage, op, microbatch), event order breaking ties: two
  // stable counting passes over the ranks of names and of pids, linear in the
  // annotations (a sort by looked-up tuples was the arrows' largest cost).
  std::vector<uint32_t> ops;  // indices: half the size of pointers
  for (uint32_t i = 0; i < annotations.size(); ++i)
    if (view.name(annotations[i].name).kind == PPName::Kind::kOperation) ops.push_back(i);
  const std::vector<uint32_t> name_rank = view.operation_name_ranks();
  const std::vector<uint32_t> pid_rank = view.track_pid_ranks();
  counting_sort(ops, name_rank.size(), [&](uint32_t i) { return name_rank[annotations[i].name]; });
  counting_sort(ops, pid_rank.size(), [&](uint32_t i) { return pid_rank[annotations[i].track]; });
  std::vector<PPBlock> blocks;
  blocks.reserve(ops.size());  // at most one block per annotation: no regrowth
  std::vector<const PPAnnotation*> members;
  for (size_t begin = 0; begin < ops.size();) {
    const FullKey key = view.group_key_of(annotations[ops[begin]]);
    size_t end = begin;
    while (end < ops.size() && view.group_key_of(annotations[ops[end]]) == key) ++end;
    if (is_compute(std::get<2>(key))) {
      members.clear();
      for (size_t i = begin; i < end; ++i) members.push_back(&annotations[ops[i]]);
      add_compute_blocks(members, view, blocks);
    } else {
      for (size_t i = begin; i < end; ++i) blocks.push_back(block_from(annotations[ops[i]]));
    }
    begin = end;
  }
  return blocks;
}

std::vector<PPBlock> unshard_blocks(const std::vector<PPAnnotation>& annotations,
                                    const PPView& view) {
  std::vector<PPBlock> blocks;
  for (const auto& a : annotations)
    if (view.name(a.name).kind == PPName::Kind::kUnshard && view.has_role(a.track, kOnUnshard))
      blocks.push_back(block_from(a));
  auto order_key = [&](const PPBlock& b) {
    return std::make_tuple(view.pid(b.track), b.start, view.name(b.name).stage);
  };
  std::stable_sort(blocks.begin(), blocks.end(),
                   [&](const PPBlock& a, const PPBlock& b) { return order_key(a) < order_key(b); });
  return blocks;
}

// Greedy nearest-midpoint pairing (see pp_pairing.h).
std::vector<std::pair<size_t, size_t>> pair_nearest(
    const std::vector<const PPBlock*>& sources, const std::vector<const PPBlock*>& destinations) {
  std::vector<double> source_mids, destination_mids;
  for (const PPBlock* b : sources) source_mids.push_back(b->start + b->end);
  for (const PPBlock* b : destinations) destination_mids.push_back(b->start + b->end);
  return pair_nearest_midpoints(source_mids, destination_mids);
}

class ArrowDrawer {
 public:
  explicit ArrowDrawer(uint64_t first_id) : next_id_(first_id) {}

  // Returns true when an arrow was drawn; a flow id is used either way.
  bool draw(const PPBlock& source, const PPBlock& destination, const char* category,
            bool strictly_forward) {
    const uint64_t id = next_id_++;
    double destination_ts = std::max(source.start, destination.start);
    if (strictly_forward && destination_ts == source.start)
      destination_ts = std::nextafter(source.start, std::numeric_limits<double>::infinity());
    if (destination_ts > destination.end) return false;
    arrows.push_back({source, destination, destination_ts, id, category});
    return true;
  }

  // Pairs two block lists and draws every pair; returns (pairs drawn, unmatched).
  std::pair<uint64_t, uint64_t> pair_and_draw(const std::vector<const PPBlock*>& sources,
                                              const std::vector<const PPBlock*>& destinations,
                                              const char* category, bool strictly_forward) {
    const auto pairs = pair_nearest(sources, destinations);
    uint64_t drawn = 0;
    uint64_t unmatched = sources.size() + destinations.size() - 2 * pairs.size();
    for (const auto& [s, d] : pairs) {
      if (draw(*sources[s], *destinations[d], category, strictly_forward))
        ++drawn;
      else
        unmatched += 2;
    }
    return {drawn, unmatched};
  }

  ChunkedVector<PPArrow> arrows;

 private:
  uint64_t next_id_;
};

void draw_send_recv(const std::vector<PPBlock>& blocks, const PPView& view, ArrowDrawer& drawer,
                    PPArrowCounts& counts) {
  // Cross-rank groups by (stage, op, microbatch), each in block order: a stable
  // counting pass over the ranks of the names (a sort by looked-up tuples was
  // the merged drawing's largest cost).
  std::vector<uint32_t> by_key(blocks.size());
  for (uint32_t i = 0; i < by_key.size(); ++i) by_key[i] = i;
  const std::vector<uint32_t> name_rank = view.operation_name_ranks();
  counting_sort(by_key, name_rank.size(), [&](uint32_t i) { return name_rank[blocks[i].name]; });
  auto group_range = [&](const BlockKey& key) {
    return std::equal_range(by_key.begin(), by_key.end(), key, [&](const auto& x, const auto& y) {
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, uint32_t>)
        return view.key_of(blocks[x]) < y;
      else
        return x < view.key_of(blocks[y]);
    });
  };
  auto members = [&](auto range) {
    std::vector<const PPBlock*> out;
    for (auto it = range.first; it != range.second; ++it) out.push_back(&blocks[*it]);
    return out;
  };
  std::set<BlockKey> looked_for;
  for (size_t begin = 0; begin < by_key.size();) {
    const BlockKey key = view.key_of(blocks[by_key[begin]]);
    const auto range = group_range(key);
    begin = static_cast<size_t>(range.second - by_key.begin());
    const auto [stage, op, microbatch] = key;
    if (op != PPOp::kSendF && op != PPOp::kSendB) continue;
    const auto sends = members(range);
    // Stage 0 sending backwards looks for stage -1, which cannot exist; the
    // last stage that fits 64 bits sending forwards, for one that is not read.
    if ((op == PPOp::kSendB && stage == 0) ||
        (op == PPOp::kSendF && stage == std::numeric_limits<uint64_t>::max())) {
      counts.send_recv_unmatched += sends.size();
      continue;
    }
    const BlockKey recv_key{op == PPOp::kSendF ? stage + 1 : stage - 1,
                            op == PPOp::kSendF ? PPOp::kRecvF : PPOp::kRecvB, microbatch};
    looked_for.insert(recv_key);
    const auto [drawn, unmatched] =
        drawer.pair_and_draw(sends, members(group_range(recv_key)), "pp_send_recv", true);
    counts.send_recv_pairs += drawn;
    counts.send_recv_unmatched += unmatched;
  }
  for (const auto& block : blocks) {
    const PPOp op = view.name(block.name).op;
    if ((op == PPOp::kRecvF || op == PPOp::kRecvB) && !looked_for.count(view.key_of(block)))
      ++counts.send_recv_unmatched;
  }
}

// The blocks of one full key: a range of the blocks, which operation_blocks
// sorts by full key.
struct KeyGroup {
  size_t begin, end;
};

std::vector<KeyGroup> key_groups(const std::vector<PPBlock>& blocks, const PPView& view) {
  std::vector<KeyGroup> groups;
  for (size_t begin = 0; begin < blocks.size();) {
    const FullKey key = view.full_key_of(blocks[begin]);
    size_t end = begin + 1;
    while (end < blocks.size() && view.full_key_of(blocks[end]) == key) ++end;
    groups.push_back({begin, end});
    begin = end;
  }
  return groups;
}

void draw_compute_dependencies(const std::vector<PPBlock>& blocks, const PPView& view,
                               ArrowDrawer& drawer, PPArrowCounts& counts) {
  const std::vector<KeyGroup> groups = key_groups(blocks, view);
  auto group_key = [&](size_t g) { return view.full_key_of(blocks[groups[g].begin]); };
  // The blocks of `key` (none if no group has it), in block order. Groups are
  // visited in key order, so the receives (and the sends) they look for come
  // in key order too: each search starts where the last one of its kind ended.
  auto blocks_with_key = [&](const FullKey& key, size_t& hint) {
    hint = gallop_partition_point(0, groups.size(), hint,
                                  [&](size_t g) { return !(group_key(g) < key); });
    std::vector<const PPBlock*> out;
    if (hint < groups.size() && group_key(hint) == key)
      for (size_t i = groups[hint].begin; i < groups[hint].end; ++i) out.push_back(&blocks[i]);
    return out;
  };
  size_t receive_hint = 0, send_hint = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto [pid, stage, op, microbatch] = group_key(g);
    if (!is_compute(op)) continue;
    std::vector<const PPBlock*> computes;
    for (size_t i = groups[g].begin; i < groups[g].end; ++i) computes.push_back(&blocks[i]);
    const PPOp recv_op = op == PPOp::kF ? PPOp::kRecvF : PPOp::kRecvB;
    const PPOp send_op = op == PPOp::kF ? PPOp::kSendF : PPOp::kSendB;
    auto pair_up = [&](const std::vector<const PPBlock*>& sources,
                       const std::vector<const PPBlock*>& destinations) {
      if (sources.empty() || destinations.empty()) return;
      const auto [drawn, unmatched] =
          drawer.pair_and_draw(sources, destinations, "pp_compute_dependency", false);
      counts.compute_pairs += drawn;
      counts.compute_unmatched += unmatched;
    };
    pair_up(blocks_with_key({pid, stage, recv_op, microbatch}, receive_hint), computes);
    pair_up(computes, blocks_with_key({pid, stage, send_op, microbatch}, send_hint));
  }
}

void draw_unshard_dependencies(const std::vector<PPBlock>& unshards,
                               const std::vector<PPBlock>& blocks, const PPView& view,
                               ArrowDrawer& drawer, PPArrowCounts& counts) {
  // F/B blocks by (pid, stage), then (start, end), ties in block order.
  std::vector<uint32_t> computes;
  for (uint32_t i = 0; i < blocks.size(); ++i)
    if (is_compute(view.name(blocks[i].name).op)) computes.push_back(i);
  auto order_key = [&](uint32_t i) {
    return std::make_tuple(view.pid(blocks[i].track), view.name(blocks[i].name).stage,
                           blocks[i].start, blocks[i].end);
  };
  std::stable_sort(computes.begin(), computes.end(),
                   [&](uint32_t a, uint32_t b) { return order_key(a) < order_key(b); });
  for (const auto& unshard : unshards) {
    // The first block of the unshard's (pid, stage) starting at or after it.
    const int64_t pid = view.pid(unshard.track);
    const uint64_t stage = view.name(unshard.name).stage;
    const auto target = std::make_tuple(pid, stage, unshard.start);
    const auto it =
        std::lower_bound(computes.begin(), computes.end(), target, [&](uint32_t i, const auto& t) {
          return std::make_tuple(view.pid(blocks[i].track), view.name(blocks[i].name).stage,
                                 blocks[i].start) < t;
        });
    const PPBlock* destination = nullptr;
    if (it != computes.end() && view.pid(blocks[*it].track) == pid &&
        view.name(blocks[*it].name).stage == stage)
      destination = &blocks[*it];
    if (!destination) {
      ++counts.unshard_unmatched;
      continue;
    }
    if (drawer.draw(unshard, *destination, "pp_unshard_dependency", false))
      ++counts.unshard_pairs;
    else
      ++counts.unshard_unmatched;
  }
}

}  // namespace

std::string_view pp_op_name(PPOp op) {
  switch (op) {
    case PPOp::kB:
      return "B";
    case PPOp::kF:
      return "F";
    case PPOp::kRecvB:
      return "RECV_B";
    case PPOp::kRecvF:
      return "RECV_F";
    case PPOp::kSendB:
      return "SEND_B";
    case PPOp::kSendF:
      return "SEND_F";
    case PPOp::kUnshard:
      return "UNSHARD";
  }
  return "";
}

PPName parse_pp_name(std::string_view name) {
  PPName result;
  if (name.substr(0, 3) != "PP:") return result;
  size_t at = 3;
  uint64_t stage = 0;
  if (!parse_digits(name, at, stage)) return result;
  const std::string_view rest = name.substr(at);
  if (rest == "UNSHARD") {
    result.kind = PPName::Kind::kUnshard;
    result.stage = stage;
    result.op = PPOp::kUnshard;
    return result;
  }
  static constexpr std::pair<std::string_view, PPOp> kOps[] = {
      {"SEND_F", PPOp::kSendF}, {"RECV_F", PPOp::kRecvF}, {"SEND_B", PPOp::kSendB},
      {"RECV_B", PPOp::kRecvB}, {"F", PPOp::kF},          {"B", PPOp::kB}};
  for (const auto& [text, op] : kOps) {
    if (rest.substr(0, text.size()) != text) continue;
    size_t mb_at = at + text.size();
    uint64_t microbatch = 0;
    if (!parse_digits(name, mb_at, microbatch) || mb_at != name.size()) return result;
    result.kind = PPName::Kind::kOperation;
    result.stage = stage;
    result.op = op;
    result.microbatch = microbatch;
    return result;
  }
  return result;
}

std::string PPName::label() const {
  std::string text = std::to_string(stage);
  text += pp_op_name(op);
  if (const auto mb = microbatch_if_any()) text += std::to_string(*mb);
  return text;
}

uint32_t PPAnnotationList::add_track(StreamKey track) {
  return intern_stream_key(track_ids_, tables.tracks, track);
}

uint32_t PPAnnotationList::add_name(const PPName& name) {
  tables.names.push_back(name);
  return static_cast<uint32_t>(tables.names.size() - 1);
}

void PPAnnotationList::append(const PPAnnotationList& other) {
  std::vector<uint32_t> track_ids;
  track_ids.reserve(other.tables.tracks.size());
  for (const StreamKey& track : other.tables.tracks) track_ids.push_back(add_track(track));
  const auto first_name = static_cast<uint32_t>(tables.names.size());
  tables.names.insert(tables.names.end(), other.tables.names.begin(), other.tables.names.end());
  for (const PPAnnotation& item : other.items)
    add(item.ts, item.dur, track_ids[item.track], first_name + item.name);
}

PPBlocks build_pp_blocks(PPAnnotationList annotations, const PPLaneSets& lanes) {
  PPBlocks blocks;
  blocks.tables = std::move(annotations.tables);
  blocks.lanes = lanes;
  const PPView view(blocks.tables, blocks.lanes);
  blocks.operations = operation_blocks(annotations.items, view);
  blocks.unshards = unshard_blocks(annotations.items, view);
  // Freed now: a by-value argument lives on to the end of the caller's whole
  // expression, which may be the drawing itself.
  std::vector<PPAnnotation>().swap(annotations.items);
  return blocks;
}

PPArrowResult draw_pp_arrows(PPBlocks blocks, bool cross_rank, uint64_t first_flow_id) {
  PPArrowResult result;
  result.tables = std::move(blocks.tables);
  const PPView view(result.tables, blocks.lanes);
  ArrowDrawer drawer(first_flow_id);
  if (cross_rank) draw_send_recv(blocks.operations, view, drawer, result.counts);
  draw_compute_dependencies(blocks.operations, view, drawer, result.counts);
  draw_unshard_dependencies(blocks.unshards, blocks.operations, view, drawer, result.counts);
  result.arrows = std::move(drawer.arrows);
  return result;
}

PPArrowResult draw_pp_arrows(PPAnnotationList annotations, const PPLaneSets& lanes, bool cross_rank,
                             uint64_t first_flow_id) {
  return draw_pp_arrows(build_pp_blocks(std::move(annotations), lanes), cross_rank, first_flow_id);
}

}  // namespace tracecompact
