#include "writer/render_batches.h"

#include <charconv>

namespace tracecompact {

void RenderBatch::clear() {
  events.clear();
  actions.clear();
  output_size = 0;
  id_holes.clear();
  stats = {};
  error = nullptr;
}

RenderWorker::RenderWorker(const CompactionPlan& plan, const MergeEdit* merge)
    : renderer_(plan, merge, &holes_) {}

// The id itself is written when the batch is appended, in event order.
void RenderWorker::HoleWriter::put(const std::string& canonical_id, OutputStream& stream) {
  batch->id_holes.push_back({stream.bytes_written() - batch_start, canonical_id});
}

void RenderWorker::process(RenderBatch& batch) {
  holes_.batch = &batch;
  holes_.batch_start = out_.stream().bytes_written();
  // A fresh array per batch: the writer separates the batch's own events.
  out_.reset();
  out_.start_array();
  try {
    for (size_t i = 0; i < batch.events.size(); ++i) {
      const CopiedEvents::Event& event = batch.events[i];
      renderer_.render(batch.events.text_of(event), {event.index, event.offset}, batch.actions[i],
                       out_, batch.stats);
    }
  } catch (...) {
    batch.error = std::current_exception();  // the caller meets it in event order
  }
  out_.stream().take(batch.output, batch.output_size);
}

void append_rendered(RenderBatch& batch, FlowIdRenumberer& flow_ids, JsonOut& out) {
  const std::string_view text(batch.output.data(), batch.output_size);
  if (text.size() > 1 && batch.id_holes.empty()) {  // past the batch's own '['
    out.begin_raw_value();
    out.stream().adopt(batch.output, 1, batch.output_size);  // no copy
  } else if (text.size() > 1) {
    out.begin_raw_value();
    size_t copied = 1;
    char digits[24];
    for (const RenderBatch::IdHole& hole : batch.id_holes) {
      out.stream().write(text.data() + copied, hole.at - copied);
      const uint64_t id = flow_ids.renumber(hole.canonical_id);
      char* end = std::to_chars(digits, digits + sizeof digits, id).ptr;
      out.stream().write(digits, static_cast<size_t>(end - digits));
      copied = hole.at;
    }
    out.stream().write(text.data() + copied, text.size() - copied);
  }
  if (batch.error) std::rethrow_exception(batch.error);
}

}  // namespace tracecompact
