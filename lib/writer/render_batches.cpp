#include "writer/render_batches.h"

#include <charconv>
#include <cstring>

#include "tracecompact/error.h"
#include "util/outsized_buffer.h"

namespace tracecompact {

void RenderBatch::clear() {
  segment.clear();
  drop_if_outsized(segment.bytes, TraceIndex::kSegmentBytes);
  read_from = nullptr;
  actions.clear();
  output_size = 0;
  id_holes.clear();
  stats = {};
  error = nullptr;
}

size_t flow_id_width(const CompactionPlan& plan, const MergeEdit* merge) {
  if (!merge) return 0;
  char digits[24];
  const uint64_t largest = merge->first_flow_id + plan.index().event_count;
  return static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, largest).ptr - digits);
}

RenderWorker::RenderWorker(const CompactionPlan& plan, const MergeEdit* merge)
    : renderer_(plan, merge, &holes_) {
  holes_.width = flow_id_width(plan, merge);
}

// The id itself is written when the batch is appended, in event order; ids
// narrower than the blank leave spaces after them (still the same JSON).
void RenderWorker::HoleWriter::put(const std::string& canonical_id, OutputStream& stream) {
  if (const auto integer = FlowIdRenumberer::integer_value(canonical_id))
    return put_integer(*integer, stream);
  batch->id_holes.push_back({stream.bytes_written() - batch_start, std::nullopt, canonical_id});
  leave_blank(stream);
}

void RenderWorker::HoleWriter::put_integer(int64_t id, OutputStream& stream) {
  batch->id_holes.push_back({stream.bytes_written() - batch_start, id, {}});
  leave_blank(stream);
}

void RenderWorker::HoleWriter::leave_blank(OutputStream& stream) const {
  static constexpr char kSpaces[24] = "                       ";
  stream.write(kSpaces, width);
}

void RenderWorker::process(RenderBatch& batch) {
  holes_.batch = &batch;
  holes_.batch_start = out_.stream().bytes_written();
  try {
    // A fresh array per batch: the writer separates the batch's own events.
    out_.reset();
    out_.start_array();
    if (batch.read_from) read_segment_at(*batch.read_from, batch.segment, renderer_.input_name());
    size_t i = 0;
    const TraceIndex& index = renderer_.index();
    const auto* lengths = index.event_lengths.empty() ? nullptr : &index.event_lengths;
    for_each_event(batch.segment, renderer_.input_name(), lengths,
                   [&](std::string_view text, uint64_t index, uint64_t offset) {
                     renderer_.render(text, {index, offset}, batch.actions[i++], out_, batch.stats);
                   });
  } catch (...) {
    batch.error = std::current_exception();  // the caller meets it in event order
  }
  out_.stream().take(batch.output, batch.output_size);
}

void append_rendered(RenderBatch& batch, FlowIdRenumberer& flow_ids, size_t id_width,
                     const std::string& input_name, JsonOut& out) {
  char* const output = batch.output.data();
  for (const RenderBatch::IdHole& hole : batch.id_holes) {
    char digits[24];
    const uint64_t id = hole.integer_id ? flow_ids.renumber_integer(*hole.integer_id)
                                        : flow_ids.renumber(hole.canonical_id);
    const size_t length =
        static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, id).ptr - digits);
    if (length > id_width)  // more ids than pass 1 saw events
      fail_io(input_name + " changed while it was being read");
    std::memcpy(output + hole.at, digits, length);
  }
  if (batch.output_size > 1) {  // past the batch's own '['
    out.begin_raw_value();
    out.stream().adopt(batch.output, 1, batch.output_size);
  }
  if (batch.error) std::rethrow_exception(batch.error);
}

}  // namespace tracecompact
