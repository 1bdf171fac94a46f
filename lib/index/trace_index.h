// What pass 1 keeps of a trace: compact records for the events the plan needs
// (measured slices, GPU annotations, special thread names) and the small
// top-level values. Nothing is kept for events that are merely passed through.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "index/groups.h"
#include "index/record_budget.h"
#include "json/splice_site.h"
#include "util/chunked_vector.h"
#include "util/string_table.h"

namespace tracecompact {

struct StreamKey {
  int64_t pid;
  int64_t tid;
  bool operator==(const StreamKey&) const = default;
  auto operator<=>(const StreamKey&) const = default;
};
struct StreamKeyHash {
  size_t operator()(const StreamKey& key) const {
    return std::hash<int64_t>()(key.pid * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(key.tid));
  }
};
using StreamKeyIds = std::unordered_map<StreamKey, uint32_t, StreamKeyHash>;

// The id of `key` in `keys` (its position), appending it the first time.
inline uint32_t intern_stream_key(StreamKeyIds& ids, std::vector<StreamKey>& keys, StreamKey key) {
  const auto [it, inserted] = ids.try_emplace(key, static_cast<uint32_t>(keys.size()));
  if (inserted) keys.push_back(key);
  return it->second;
}

// Where a value sits in its event's text, so that pass 2 can replace it
// without parsing the event again. Empty when the event is too large for 16 bits.
// Packed to 3 bytes: it sits in every slice record.
struct [[gnu::packed]] ValueSpan {
  uint16_t at = 0;
  uint8_t length = 0;
  bool valid() const { return length != 0; }
};

// A measured GPU slice (32 bytes: this is the per-slice cost of the index). Its
// event is marked in TraceIndex::slice_events; its args.name is kept apart, in
// TraceIndex::slice_regions, as the plan no longer needs it once spans are built.
struct SliceRecord {
  double ts;          // start
  double dur;         // end = ts + dur
  uint32_t stream;    // index into TraceIndex::streams (the old stream)
  uint32_t lane = 0;  // set by the plan: index into the lane table
  ValueSpan tid_span;
  ValueSpan stream_span;
  Group group;

  double start() const { return ts; }
  double end() const { return ts + dur; }
};
static_assert(sizeof(SliceRecord) == 32, "the per-slice cost of the index");

// One bit per event.
class EventBits {
 public:
  void mark(uint64_t event_index) {
    const uint64_t word = event_index >> 6;
    if (words_.size() <= word) words_.resize(word + 1 + word / 2, 0);
    words_[word] |= uint64_t{1} << (event_index & 63);
  }
  bool test(uint64_t event_index) const {
    const uint64_t word = event_index >> 6;
    return word < words_.size() && (words_[word] >> (event_index & 63)) & 1;
  }
  // The event of the `nth` mark (counting from 0) in event order; for error
  // messages, which is why a scan will do. UINT64_MAX when there is none.
  uint64_t nth_marked(uint64_t nth) const {
    for (size_t word = 0; word < words_.size(); ++word) {
      uint64_t bits = words_[word];
      const auto count = static_cast<uint64_t>(__builtin_popcountll(bits));
      if (nth >= count) {
        nth -= count;
        continue;
      }
      for (; nth > 0; --nth) bits &= bits - 1;
      return word * 64 + static_cast<uint64_t>(__builtin_ctzll(bits));
    }
    return UINT64_MAX;
  }

 private:
  std::vector<uint64_t> words_;
};

enum AnnotationFlags : uint8_t {
  kTsNumeric = 1,
  kTsPresent = 2,
  kDurNumeric = 4,
  kPhaseX = 8,
  kMetadataShape = 16,  // ph "M" named thread_name/thread_sort_index: dropped on old streams
  kNamedGraphLaunch = 32,
};

// A gpu_user_annotation event (pid and tid are integers: checked in pass 1);
// 32 bytes, the per-annotation cost of the index until the plan has read it
// (pass 2 needs only the plan's 8-byte outcome). Its event is marked in
// TraceIndex::annotation_events; its (pid, tid) is one of
// TraceIndex::annotation_tracks, which are few.
struct AnnotationRecord {
  double ts;  // 0 when absent
  double dur;
  uint32_t
      identity;   // id of its canonical text without ts/dur/tid (kNone: not a coalescing candidate)
  uint32_t name;  // annotation_names id, or kNone when the name is not a string
  uint32_t track;  // index into TraceIndex::annotation_tracks
  ValueSpan tid_span;
  uint8_t flags;
};
static_assert(sizeof(AnnotationRecord) == 32, "the per-annotation cost of the index");

// thread_name metadata whose name (after the last " | ") is one the PP rules look for.
struct LaneNameRecord {
  int64_t pid;
  int64_t tid;
  uint8_t role;  // LaneRole
};
enum LaneRole : uint8_t { kMainComputeLane = 1, kUnshardLane = 2 };

// Where an event starts in the (decompressed) input. Pass 1 notes one about
// every kSegmentBytes, so that pass 2 can hand whole stretches of events to its
// workers, which find the boundaries inside them, instead of finding every
// boundary on the reading thread.
struct EventStart {
  uint64_t offset;
  uint64_t index;
};

// What pass 1 keeps of every event, beyond the plan's needs.
enum class PerEventRecords : uint8_t {
  kNone,
  kLengths,   // TraceIndex::event_lengths (2 bytes per event): pass 2 on workers
  kForMerge,  // TraceIndex::splice_sites and event_lengths (4 bytes per event)
};

struct TopLevelValue {
  std::string key;
  std::string text;  // raw JSON
};

struct TraceIndex {
  std::string display_name;
  std::vector<TopLevelValue> top_level;  // in order, without traceEvents
  size_t events_key_position = 0;        // where traceEvents stands among them
  bool has_events = false;
  uint64_t event_count = 0;
  uint64_t input_bytes = 0;
  // 8 KiB short of 512 KiB: a segment (this, the rest of an event and padding)
  // then mostly fits in 512 KiB, four to a huge page of the pool.
  static constexpr uint64_t kSegmentBytes = uint64_t{504} << 10;
  std::vector<EventStart> segment_starts;  // the first event, then one per kSegmentBytes
  uint64_t events_end = 0;                 // just past the last event

  ChunkedVector<SliceRecord> slices;  // event order
  EventBits slice_events;             // the events of `slices`
  // Per slice: args.name (non-empty string) in region_names, or kNone. Released
  // by the plan once the kernel-annotation spans are built.
  ChunkedVector<uint32_t> slice_regions;
  std::vector<StreamKey> streams;
  StreamKeyIds stream_ids;
  StringTable region_names;

  ChunkedVector<AnnotationRecord> annotations;  // event order
  EventBits annotation_events;                  // the events of `annotations`
  std::vector<StreamKey> annotation_tracks;     // the (pid, tid) of annotations, interned
  StringTable annotation_names;

  const StreamKey& track_of(const AnnotationRecord& record) const {
    return annotation_tracks[record.track];
  }

  std::vector<LaneNameRecord> lane_names;
  // Events pass 2 must look at although they are neither slices nor annotations:
  // ac2g flows and thread metadata with integer pid/tid (one bit per event).
  EventBits attention;

  std::optional<int64_t> max_int_tid;
  // Integer tids and pids from 2^63 to 2^64 - 1 (0: none). The reference counts
  // them as integers: lane tids would go above such a tid, and a merge would
  // renumber such a pid, neither of which 64-bit ids can do (both refused).
  uint64_t max_tid_beyond_int64 = 0;
  struct PidBeyondInt64 {
    uint64_t event = 0;
    uint64_t value = 0;
  } first_pid_beyond_int64;
  std::vector<int64_t> int_pids;  // sorted, distinct

  // Per event, where pass 1 keeps them (PerEventRecords): where a merge's pass 2
  // splices its pid and ts, and its length (kLongEvent: 64 KiB or longer), so
  // that pass 2 finds neither by scanning. Each holds the records of the first
  // events only (as many as record_grant allowed, a block at a time); the
  // events after them are scanned. Two bytes each: the budget is per slice,
  // and the smaller the records the more events have them.
  ChunkedVector<SpliceSite> splice_sites;
  // A merge's events whose pid and ts pass 2 may find by their keys' text, for
  // those without a splice site (TapeReader::has_plain_pid_ts): a bit each,
  // kept for every event like the bits above, so that no event of a large
  // merge is left to the field scan (~760 instructions against ~280).
  EventBits plain_pid_ts;
  ChunkedVector<uint16_t> event_lengths;
  static constexpr uint16_t kLongEvent = 0;
  static constexpr uint64_t kRecordBlock = 16384;  // events per take from the budget
  RecordGrant record_grant;
  uint64_t graph_launches = 0;  // events named cudaGraphLaunch

  // Event indexes are stored in 32 bits (4 billion events: a trace of ~1 TB).
  static constexpr uint64_t kMaxEvents = 0xFFFFFFFFull;

  bool needs_attention(uint64_t event_index) const { return attention.test(event_index); }
  const TopLevelValue* find_top_level(std::string_view key) const {
    for (const auto& value : top_level)
      if (value.key == key) return &value;
    return nullptr;
  }
};

}  // namespace tracecompact
