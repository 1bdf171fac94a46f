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
      const auto& fields =
          parser_.parse_in_place(batch.events.text_of(event), {event.index, event.offset});
      batch.digests.push_back(digest_event(fields, parser_, event.index, batch.arena));
    }
  } catch (...) {
    batch.error = std::current_exception();  // the caller meets it in event order
  }
}

}  // namespace tracecompact
