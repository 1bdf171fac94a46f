// Pass 2's parallel part: the calling thread tokenizes, copies events into
// batches with the plan's action for each, and appends the rendered batches to
// the output in event order; worker threads render the batches into their own
// buffers meanwhile. Merged flow ids are numbered in order of first appearance,
// so the workers leave a hole for each and the caller fills them in order.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/copied_events.h"
#include "util/ordered_batch_ring.h"
#include "writer/event_renderer.h"

namespace tracecompact {

struct RenderBatch {
  struct IdHole {
    size_t at;  // in `output`
    std::string canonical_id;
  };
  CopiedEvents events;
  std::vector<EventAction> actions;  // one per event
  std::vector<char> output;          // its first output_size bytes: '[' and the rendered events
  size_t output_size = 0;
  std::vector<IdHole> id_holes;  // in output order
  RankWriteStats stats;
  std::exception_ptr error;  // the batch's first failure, in event order

  void clear();
};

// A render thread's state: a renderer writing into the batch's buffer.
class RenderWorker {
 public:
  RenderWorker(const CompactionPlan& plan, const MergeEdit* merge);
  void process(RenderBatch& batch);

 private:
  class HoleWriter final : public FlowIdWriter {
   public:
    void put(const std::string& canonical_id, OutputStream& stream) override;
    RenderBatch* batch = nullptr;
    uint64_t batch_start = 0;  // bytes written before the batch
  };

  JsonOut out_;  // in memory, handed to each batch
  HoleWriter holes_;
  EventRenderer renderer_;
};

class RenderBatches : public OrderedBatchRing<RenderBatch, RenderWorker> {
 public:
  RenderBatches(unsigned workers, const CompactionPlan& plan, const MergeEdit* merge)
      : OrderedBatchRing(workers, kBatchesPerWorker,
                         [&plan, merge] { return std::make_unique<RenderWorker>(plan, merge); }) {}

 private:
  static constexpr size_t kBatchesPerWorker = 3;
};

// Appends a rendered batch's events to `out` (an open array), numbering its
// flow ids; then rethrows the batch's failure, if any. The batch's output
// buffer may be handed to the sink (and replaced).
void append_rendered(RenderBatch& batch, FlowIdRenumberer& flow_ids, JsonOut& out);

}  // namespace tracecompact
