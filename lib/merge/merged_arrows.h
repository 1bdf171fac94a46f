// The merged PP arrows (spec 11), written after every rank's events. Their
// input is gathered rank by rank in PP order; once all ranks are in, they are
// drawn on a thread of their own while pass 2 writes the ranks (with threads to
// spare), else when pass 2 asks for them, as a single trace does.
#pragma once

#include <cstdint>
#include <future>
#include <optional>
#include <unordered_map>
#include <vector>

#include "merge/merge_rank.h"
#include "plan/pp_arrows.h"
#include "util/task_beside.h"

namespace tracecompact {

class MergedArrows {
 public:
  explicit MergedArrows(bool draw_beside) : draw_beside_(draw_beside) {}

  // The ranks come in PP order, with their pids numbered and their plans there.
  // Until expect() says how many annotations the other ranks bring, a rank's
  // are kept in a list of their own, so that its index can go once it is
  // written; after, they go straight into the list the arrows are drawn from.
  void add_rank(const Rank& rank);
  void expect(size_t annotations_to_come);
  // Every rank is in: the blocks are built (the annotations freed), and then
  // drawn beside the caller if wanted.
  void build_blocks();
  void start_drawing();
  // Every rank read, in the schedule that writes ranks while later ones are
  // read: `remaining` (pids numbered, not added yet) are added, the blocks built
  // and the arrows drawn, all beside the caller when it draws beside (else
  // now), so that the caller goes on writing meanwhile. Their plans' annotation
  // records must stay until gathered().
  void add_remaining_and_draw(std::vector<const Rank*> remaining);
  bool gathered() const;
  void wait_gathered() const;
  // Waits for the drawing (or draws now); rethrows what the drawing threw.
  const PPArrowResult& result();
  int64_t pp_rank_of(int64_t merged_pid) const { return pp_rank_of_pid_.at(merged_pid); }

 private:
  const bool draw_beside_;
  std::vector<PPAnnotationList> early_;  // of ranks added before expect()
  std::optional<PPAnnotationList> annotations_;
  PPLaneSets lanes_;
  std::unordered_map<int64_t, int64_t> pp_rank_of_pid_;
  std::optional<TaskBeside<PPArrowResult>> drawing_;
  std::promise<void> gathered_;  // add_remaining_and_draw has read its ranks
  std::shared_future<void> gathered_future_ = gathered_.get_future().share();
};

}  // namespace tracecompact
