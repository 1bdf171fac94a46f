// What pass 1 keeps of one event, read where the event was parsed (possibly on
// a parser thread): self-contained, with the strings it needs copied to the
// caller's arena, and checked (spec 1). The index is then built from digests in
// event order on one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "index/event_checks.h"
#include "index/trace_index.h"
#include "json/event_fields.h"
#include "json/event_parser.h"
#include "json/splice_site.h"
#include "util/hash128.h"

namespace tracecompact {

struct EventDigest {
  enum Kind : uint8_t { kOther, kSlice, kAnnotation, kAttention };
  Kind kind = kOther;
  bool has_int_pid = false;
  bool has_int_tid = false;
  uint64_t pid_beyond_int64 = 0;  // an integer pid or tid from 2^63 (JsonScalar::beyond_int64)
  uint64_t tid_beyond_int64 = 0;
  bool named_launch = false;  // named cudaGraphLaunch
  bool has_text = false;      // region (slice) or name (annotation) in the arena
  bool has_identity = false;  // a coalescing candidate (annotation)
  uint8_t lane_role = 0;      // thread_name metadata naming a PP lane role
  int64_t pid = 0;
  int64_t tid = 0;
  uint32_t text_at = 0;
  uint32_t text_length = 0;
  SpliceSite splice_site = kNoSpliceSite;  // when pass 1 keeps the sites (merge)
  bool plain_pid_ts = false;               // merge: EventParser::has_plain_pid_ts()
  Hash128 identity{};
  SliceRecord slice{};            // kSlice; the stream is interned by the builder
  AnnotationRecord annotation{};  // kAnnotation; name and identity ids set by the builder
};

// Digests the event `parser` just parsed; throws InputError when a check fails.
EventDigest digest_event(const EventFields& fields, EventParser& parser, uint64_t event_index,
                         std::string& arena, EventChecks checks);

// Whether pass 1 still keeps a merge's splice sites. The index builder closes it
// at the first site the rank's record budget refuses (none is kept after that);
// digesters on worker threads read it to spare the events after it the work.
// Relaxed ordering is enough: the flag guards no other data, and a site worked
// out just after the close is merely not kept.
class SpliceSiteGate {
 public:
  bool open() const { return open_.load(std::memory_order_relaxed); }
  void close() { open_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> open_{true};
};

// How pass 1's digesters treat each event: its checks, and what they work out
// for a merge's per-event records.
struct DigestSetup {
  EventChecks checks = EventChecks::kSingleTrace;
  PerEventRecords records = PerEventRecords::kNone;
  const SpliceSiteGate* sites = nullptr;  // none: always open

  bool wants_splice_site() const {
    return records == PerEventRecords::kForMerge && (sites == nullptr || sites->open());
  }
};

}  // namespace tracecompact
