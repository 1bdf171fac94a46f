#include "index/event_batches.h"

namespace tracecompact {

void EventBatch::clear() {
  events.clear();
  digests.clear();
  arena.clear();
  error = nullptr;
}

void EventDigester::process(EventBatch& batch) {
  try {
    for (size_t i = 0; i < batch.events.size(); ++i) {
      const CopiedEvents::Event& event = batch.events[i];
      batch.digests.push_back(
          digest(batch.events.text_of(event), event.index, event.offset, batch.arena));
    }
  } catch (...) {
    batch.error = std::current_exception();  // the caller meets it in event order
  }
}

EventDigest EventDigester::digest(std::string_view text, uint64_t index, uint64_t offset,
                                  std::string& arena) {
  return digest_event(parser_.parse_in_place(text, {index, offset}), parser_, index, arena);
}

}  // namespace tracecompact
