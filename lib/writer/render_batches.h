// Pass 2's parallel part: the calling thread hands out the events array segment
// by segment (tokenizer/event_segments.h), one per batch, with the plan's action
// for each event, and appends the rendered batches to the output in event order
// (handing their buffers to the sink); worker threads read a plain input's
// segment themselves, find the events in the batches and render them meanwhile.
// Merged flow ids are numbered in order of first appearance, so a worker leaves a
// blank for each, as wide as the rank's largest possible id, and the caller
// writes the ids into the blanks in order.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/event_segments.h"
#include "util/io_bytes.h"
#include "util/ordered_batch_ring.h"
#include "writer/event_renderer.h"

namespace tracecompact {

struct RenderBatch {
  struct IdHole {
    size_t at;  // in `output`: a blank of flow_id_width() spaces
    // Read by the worker when the id is a plain integer (nearly always), so
    // that the ordered append only looks it up; else its canonical text.
    std::optional<int64_t> integer_id;
    std::string canonical_id;
  };
  EventSegment segment;
  // Where the worker reads the segment's bytes from, when the caller only
  // located it (plain inputs); null when the caller read them.
  const RandomAccessInput* read_from = nullptr;
  std::vector<EventAction> actions;  // one per event
  IoBytes output;                    // its first output_size bytes: '[' and the rendered events
  size_t output_size = 0;
  std::vector<IdHole> id_holes;  // in output order
  RankWriteStats stats;
  std::exception_ptr error;  // the batch's first failure, in event order

  bool empty() const { return segment.empty(); }
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
    void put_integer(int64_t id, OutputStream& stream) override;
    RenderBatch* batch = nullptr;
    uint64_t batch_start = 0;  // bytes written before the batch
    size_t width = 0;          // of the blank left for an id

   private:
    void leave_blank(OutputStream& stream) const;
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

// The width of the blank a worker leaves for a merged flow id: the digits of the
// largest id the rank can have (each flow event adds at most one id).
size_t flow_id_width(const CompactionPlan& plan, const MergeEdit* merge);

// Appends a rendered batch's events to `out` (an open array), writing its flow
// ids into their blanks (`id_width` wide); then rethrows the batch's failure, if any. The batch's
// output buffer is handed to the sink (and replaced).
void append_rendered(RenderBatch& batch, FlowIdRenumberer& flow_ids, size_t id_width,
                     const std::string& input_name, JsonOut& out);

}  // namespace tracecompact
