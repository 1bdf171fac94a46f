// The plan for one trace (spec 3-9): lanes and their tids, where every GPU
// annotation goes, which duplicates are coalesced, the kernel-annotation spans
// and the track names. Computed from the TraceIndex alone; pass 2 applies it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "index/trace_index.h"
#include "plan/pp_arrows.h"
#include "plan/slice_order.h"

namespace tracecompact {

struct Lane {
  int64_t pid;
  int64_t tid;
  Group group;
  uint32_t number;            // 0-based lane within its (pid, group)
  uint32_t group_lane_count;  // lanes of its (pid, group)
  int64_t annotation_tid;     // the annotation track drawn above it
};

struct Span {       // spec 7: a run of kernels carrying the same args.name (24 bytes)
  uint32_t region;  // TraceIndex::region_names
  uint32_t lane;    // drawn on the lane's annotation track
  double start;
  double end;
};

struct TrackName {  // spec 8: one thread_name + thread_sort_index pair
  int64_t pid;
  int64_t tid;
  std::string name;
  uint64_t sort_index;
};

// What becomes of a GPU annotation (8 bytes): all that pass 2 needs of it, so
// that the index's 32-byte records can go once the PP annotations are read.
struct AnnotationOutcome {
  enum Flags : uint8_t { kDropped = 1, kRetimed = 2, kMoved = 4 };
  uint32_t place;  // kMoved: its lane (drawn on the lane's annotation track); else its track
  ValueSpan tid_span;
  uint8_t flags;

  bool kept() const { return !(flags & kDropped); }
  bool moved() const { return flags & kMoved; }
  // Coalesced: written at the merged interval (CompactionPlan::retimed_interval), as floats.
  bool retimed() const { return flags & kRetimed; }
};
static_assert(sizeof(AnnotationOutcome) == 8);

struct RetimedAnnotation {
  uint32_t annotation;
  double ts;
  double dur;
};

struct CompactionCounts {
  uint64_t measured_slices = 0, original_streams = 0, compacted_lanes = 0;
  std::map<std::string, uint64_t> slice_groups, lanes_by_group;
  uint64_t gpu_annotations_mapped = 0, gpu_annotations_coalesced = 0;
  uint64_t kernel_annotations_converted = 0, kernel_annotation_blocks = 0;
  uint64_t gpu_annotations_retained = 0, cuda_graph_launches = 0;
};

// Where a renderer last found a flow's slice on each old stream: flows met in
// time order (each after its kernel) then find theirs in a step or two rather
// than a binary search over the stream's slices.
struct FlowSearchHints {
  std::vector<uint32_t> position;  // per stream; empty until the first flow
};

class CompactionPlan {
 public:
  // Sets each slice's lane in `index`, and the merged interval of coalesced
  // annotations. `parallel`: independent steps run on two threads.
  explicit CompactionPlan(TraceIndex& index, bool parallel = false);

  const TraceIndex& index() const { return index_; }
  const std::vector<Lane>& lanes() const { return lanes_; }
  const std::vector<AnnotationOutcome>& annotation_outcomes() const { return outcomes_; }
  // Annotation i's final pid and tid (a moved one's lane's annotation track).
  int64_t annotation_pid(size_t i) const {
    const AnnotationOutcome& o = outcomes_[i];
    return o.moved() ? lanes_[o.place].pid : index_.annotation_tracks[o.place].pid;
  }
  int64_t annotation_tid(size_t i) const {
    const AnnotationOutcome& o = outcomes_[i];
    return o.moved() ? lanes_[o.place].annotation_tid : index_.annotation_tracks[o.place].tid;
  }
  // The merged interval of a retimed annotation.
  const RetimedAnnotation& retimed_interval(size_t i) const;
  // Frees the index's annotation records, which pass 2 does not read: call it
  // once the PP annotations are appended (they are read from the records).
  void release_annotation_records();
  const ChunkedVector<Span>& spans() const { return spans_; }
  const std::vector<TrackName>& track_names() const { return track_names_; }
  const CompactionCounts& counts() const { return counts_; }

  int64_t lane_tid_of_slice(size_t slice) const { return lanes_[index_.slices[slice].lane].tid; }
  int64_t span_pid(const Span& span) const { return lanes_[span.lane].pid; }
  int64_t span_tid(const Span& span) const { return lanes_[span.lane].annotation_tid; }
  bool is_old_stream(StreamKey key) const { return index_.stream_ids.count(key) > 0; }
  // spec 5: the lane of the slice on `stream` that starts exactly at `ts` (the
  // last such slice in event order), if any.
  std::optional<int64_t> flow_lane_tid(StreamKey stream, double ts, FlowSearchHints& hints) const;

  // The PP-named gpu_user_annotation "X" events of the final list (kernel spans
  // last), in list order, and the PP lane roles: what the PP arrow rules read.
  // Appends to `out`, shifted by `ts_offset`, pids mapped through `pid_map` if given.
  // Callers reserve pp_annotation_count() first (all ranks' at once in a merge),
  // so that the list never regrows.
  void append_pp_annotations(PPAnnotationList& out, double ts_offset = 0,
                             const std::unordered_map<int64_t, int64_t>* pid_map = nullptr) const;
  size_t pp_annotation_count() const;
  PPLaneSets pp_lane_sets() const;

 private:
  void assign_lanes();
  void group_by_lane(const SliceOrder& order);
  void index_streams();
  void find_annotation_slices();
  void map_annotations();
  void coalesce_annotations();
  void build_spans();
  void name_tracks();
  void count();
  size_t nearest_slice(uint32_t stream, double ts, uint32_t& hint) const;
  size_t first_start_after(size_t begin, size_t end, double ts, size_t hint) const;
  // Where a PP annotation is drawn, as one number for lanes' annotation tracks
  // (the lane) and old tracks (after the lanes): its track is slot_track(slot).
  uint32_t track_slot(size_t annotation) const;
  StreamKey slot_track(uint32_t slot) const;
  static constexpr uint32_t kNoTrack = UINT32_MAX;
  // Calls visit(slot, ts, dur, name id) for each PP annotation in list order.
  template <typename Visit>
  void visit_pp_annotations(const std::vector<uint32_t>& annotation_name_ids,
                            const std::vector<uint32_t>& region_name_ids, Visit&& visit) const;

  TraceIndex& index_;
  std::vector<Lane> lanes_;
  SliceOrder by_lane_;                  // slice indices by lane, until the spans are built
  SliceOrder by_stream_;                // slice indices sorted by (stream, start, event order)
  std::vector<uint32_t> stream_begin_;  // range of each stream in by_stream_
  // Per annotation, from find_annotation_slices() to map_annotations(): its
  // nearest slice, or one of these.
  static constexpr uint32_t kNotOnOldStream = UINT32_MAX, kOldStreamMetadata = UINT32_MAX - 1;
  std::vector<uint32_t> annotation_slices_;
  std::vector<AnnotationOutcome> outcomes_;
  std::vector<RetimedAnnotation> retimed_;  // by annotation
  bool records_released_ = false;
  ChunkedVector<Span> spans_;
  std::vector<TrackName> track_names_;
  CompactionCounts counts_;
};

}  // namespace tracecompact
