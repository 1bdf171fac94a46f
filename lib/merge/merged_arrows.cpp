#include "merge/merged_arrows.h"

#include <utility>

namespace tracecompact {

void MergedArrows::add_rank(const Rank& rank) {
  for (const auto& [old_pid, new_pid] : rank.pid_map) pp_rank_of_pid_[new_pid] = rank.pp_rank;
  PPAnnotationList* into = annotations_ ? &*annotations_ : &early_.emplace_back();
  if (!annotations_) into->items.reserve(rank.plan->pp_annotation_count());
  rank.plan->append_pp_annotations(*into, rank.shift.offset_us, &rank.pid_map);
  const PPLaneSets rank_lanes = rank.plan->pp_lane_sets();
  for (const auto& key : rank_lanes.main_compute)
    lanes_.main_compute.insert({rank.pid_map.at(key.pid), key.tid});
  for (const auto& key : rank_lanes.unshard)
    lanes_.unshard.insert({rank.pid_map.at(key.pid), key.tid});
}

void MergedArrows::expect(size_t annotations_to_come) {
  size_t total = annotations_to_come;
  for (const auto& list : early_) total += list.items.size();
  annotations_.emplace();
  annotations_->items.reserve(total);  // the list never regrows
  for (auto& list : early_) {
    annotations_->append(list);
    list = PPAnnotationList();
  }
  early_.clear();
}

void MergedArrows::build_blocks() {
  if (drawing_) return;
  if (!annotations_) expect(0);
  drawing_.emplace([blocks = build_pp_blocks(std::move(*annotations_), lanes_)]() mutable {
    return draw_pp_arrows(std::move(blocks), true, kFirstPPFlowId);
  });
  annotations_.reset();
}

void MergedArrows::add_remaining_and_draw(std::vector<const Rank*> remaining) {
  size_t to_come = 0;
  for (const Rank* rank : remaining) to_come += rank->plan->pp_annotation_count();
  auto gather = [this, remaining = std::move(remaining), to_come] {
    try {
      expect(to_come);
      for (const Rank* rank : remaining) add_rank(*rank);
    } catch (...) {
      gathered_.set_value();  // the failure comes with the result
      throw;
    }
    gathered_.set_value();
  };
  if (!draw_beside_) {
    gather();
    build_blocks();
    return;
  }
  // The lists merged and the blocks built beside too: on the caller's thread
  // they held up the writing of the ranks (about 0.1 s at 1 GB).
  drawing_.emplace([this, gather = std::move(gather)]() mutable {
    gather();
    PPBlocks blocks = build_pp_blocks(std::move(*annotations_), lanes_);
    annotations_.reset();
    return draw_pp_arrows(std::move(blocks), true, kFirstPPFlowId);
  });
  drawing_->start();
}

bool MergedArrows::gathered() const {
  return gathered_future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

void MergedArrows::wait_gathered() const {
  gathered_future_.wait();
}

void MergedArrows::start_drawing() {
  build_blocks();
  if (draw_beside_) drawing_->start();
}

const PPArrowResult& MergedArrows::result() {
  build_blocks();
  return drawing_->result();
}

}  // namespace tracecompact
