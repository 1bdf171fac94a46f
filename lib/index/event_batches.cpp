#include "index/event_batches.h"

#include "tracecompact/error.h"

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
  const EventFields& fields = parser_.parse_in_place(text, {index, offset});
  const size_t arena_size = arena.size();
  try {
    EventDigest digest = digest_event(fields, parser_, index, arena, setup_.checks);
    if (setup_.wants_splice_site()) digest.splice_site = parser_.splice_site();
    // For every event, site or not: whether a site is kept is only known when
    // the index builder takes the event, after this (~60 instructions).
    if (setup_.records == PerEventRecords::kForMerge)
      digest.plain_pid_ts = parser_.has_plain_pid_ts();
    return digest;
  } catch (const Error&) {
    if (!parser_.read_quickly()) throw;
    // Judged again on demand, so that the message quotes the tokens as written.
    arena.resize(arena_size);
    return digest_event(parser_.read_again_on_demand(), parser_, index, arena, setup_.checks);
  }
}

}  // namespace tracecompact
