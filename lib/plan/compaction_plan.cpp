#include "plan/compaction_plan.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "index/index_pass.h"
#include "plan/lane_packing.h"
#include "plan/slice_order.h"
#include "tracecompact/error.h"
#include "util/counting_sort.h"
#include "util/gallop_search.h"
#include "util/side_by_side.h"

namespace tracecompact {

CompactionPlan::CompactionPlan(TraceIndex& index, bool parallel) : index_(index) {
  // Steps that touch disjoint state run side by side. Lane packing is the
  // longest step and its sort one of the plan's high points of memory, so
  // beside it run only the stream order (its 4-byte indexes sorted in place)
  // and the annotations' nearest slices (4 bytes each); their lanes' tids come
  // after.
  run_side_by_side(
      parallel,
      [&] {
        index_streams();
        find_annotation_slices();
      },
      [&] { assign_lanes(); });
  run_side_by_side(
      parallel, [&] { build_spans(); },
      [&] {
        map_annotations();
        coalesce_annotations();
      });
  name_tracks();
  count();
}

// spec 3 and 4: pack each (pid, group) and hand out tids pid by pid, group by group.
void CompactionPlan::assign_lanes() {
  auto& slices = index_.slices;
  const auto& streams = index_.streams;
  // Buckets: (pid ascending, group in display order).
  std::vector<bool> present(streams.size() * kGroupCount);
  for (const auto& slice : slices)
    present[slice.stream * kGroupCount + static_cast<int>(slice.group)] = true;
  std::vector<std::pair<int64_t, Group>> pid_groups;
  for (uint32_t stream = 0; stream < streams.size(); ++stream)
    for (int g = 0; g < kGroupCount; ++g)
      if (present[stream * kGroupCount + g])
        pid_groups.emplace_back(streams[stream].pid, static_cast<Group>(g));
  std::sort(pid_groups.begin(), pid_groups.end());
  pid_groups.erase(std::unique(pid_groups.begin(), pid_groups.end()), pid_groups.end());
  std::vector<uint32_t> stream_bucket(streams.size() * kGroupCount);
  for (uint32_t stream = 0; stream < streams.size(); ++stream)
    for (int g = 0; g < kGroupCount; ++g) {
      const auto it = std::lower_bound(pid_groups.begin(), pid_groups.end(),
                                       std::make_pair(streams[stream].pid, static_cast<Group>(g)));
      stream_bucket[stream * kGroupCount + g] = static_cast<uint32_t>(it - pid_groups.begin());
    }
  std::vector<uint32_t> bucket_begin;
  const SliceOrder order = bucketed_slices(
      slices, pid_groups.size(),
      [&](const SliceRecord& s) {
        return stream_bucket[s.stream * kGroupCount + static_cast<int>(s.group)];
      },
      [](const SliceRecord& s) { return s.end(); }, BucketSort::kRadix, bucket_begin);
  pid_groups = {};
  // Lane tids go above every integer tid (spec 4); 64 bits must hold them all.
  auto above = [](int64_t tid, uint64_t by) {
    int64_t sum = 0;
    if (by > uint64_t{INT64_MAX} || __builtin_add_overflow(tid, static_cast<int64_t>(by), &sum))
      fail_input("thread ids too large: lane tids above tid " + std::to_string(tid) +
                 " do not fit in 64 bits");
    return sum;
  };
  if (index_.max_tid_beyond_int64)
    fail_input("thread ids too large: lane tids above tid " +
               std::to_string(index_.max_tid_beyond_int64) + " do not fit in 64 bits");
  int64_t next_tid = above(index_.max_int_tid.value_or(0), 1000);
  for (size_t begin = 0; begin < order.size();) {
    const int64_t pid = streams[slices[order[begin]].stream].pid;
    const Group group = slices[order[begin]].group;
    // Lanes are numbered within the (pid, group) first; tids follow once the count is known.
    const auto first_lane = static_cast<uint32_t>(lanes_.size());
    LanePacker packer;
    size_t end = begin;
    for (; end < order.size() && streams[slices[order[end]].stream].pid == pid &&
           slices[order[end]].group == group;
         ++end) {
      SliceRecord& slice = slices[order[end]];
      slice.lane = first_lane + packer.place(slice.start(), slice.end());
    }
    const uint32_t lane_count = packer.lane_count();
    above(next_tid, lane_count);  // the last lane's tid fits
    for (uint32_t lane = 0; lane < lane_count; ++lane)
      lanes_.push_back({pid, next_tid + lane, group, lane, lane_count, 0});
    next_tid += lane_count;
    begin = end;
  }
  group_by_lane(order);
  // Annotation tracks: above every tid in use; lanes are already in (pid, tid) order.
  int64_t max_tid = lanes_.back().tid;
  if (index_.max_int_tid) max_tid = std::max(max_tid, *index_.max_int_tid);
  const int64_t annotation_base = above(max_tid, 1000);
  above(annotation_base, lanes_.size());  // the last annotation tid fits
  for (size_t i = 0; i < lanes_.size(); ++i)
    lanes_[i].annotation_tid = annotation_base + static_cast<int64_t>(i);
}

// Each lane's slices in packing order, which is (start, end, event order):
// what build_spans walks, without a second sort of all slices.
void CompactionPlan::group_by_lane(const SliceOrder& order) {
  by_lane_ = SliceOrder(order.size());
  place_by_key(
      lanes_.size(),
      [&](auto visit) {
        for (const uint32_t slice : order) visit(slice);
      },
      [&](uint32_t slice) { return index_.slices[slice].lane; },
      [&](uint32_t position, uint32_t slice) { by_lane_[position] = slice; });
}

// Slices by (stream, start, event order).
void CompactionPlan::index_streams() {
  by_stream_ = bucketed_slices(
      index_.slices, index_.streams.size(), [](const SliceRecord& s) { return s.stream; },
      [](const SliceRecord&) { return 0.0; }, BucketSort::kComparison, stream_begin_);
}

std::optional<int64_t> CompactionPlan::flow_lane_tid(StreamKey stream, double ts,
                                                     FlowSearchHints& hints) const {
  const auto found = index_.stream_ids.find(stream);
  if (found == index_.stream_ids.end()) return std::nullopt;
  const uint32_t id = found->second;
  if (hints.position.empty())  // each stream searched from its start at first
    hints.position.assign(stream_begin_.begin(), stream_begin_.end() - 1);
  const size_t begin = stream_begin_[id];
  const size_t end = stream_begin_[id + 1];
  // The last slice starting at ts: equal starts are in event order.
  const size_t after = first_start_after(begin, end, ts, hints.position[id]);
  hints.position[id] = static_cast<uint32_t>(after);
  if (after == begin || index_.slices[by_stream_[after - 1]].start() != ts) return std::nullopt;
  return lane_tid_of_slice(by_stream_[after - 1]);
}

// The first position in the stream's range [begin, end) of by_stream_ whose
// slice starts after ts (or end), searched outward from `hint`.
size_t CompactionPlan::first_start_after(size_t begin, size_t end, double ts, size_t hint) const {
  return gallop_partition_point(begin, end, hint, [&](size_t position) {
    return ts < index_.slices[by_stream_[position]].start();
  });
}

// spec 5: the slice nearest to ts among the neighbours of its insertion point,
// searched from `hint` (the last insertion point on the stream), which it updates.
size_t CompactionPlan::nearest_slice(uint32_t stream, double ts, uint32_t& hint) const {
  const size_t begin = stream_begin_[stream];
  const size_t end = stream_begin_[stream + 1];
  const auto& slices = index_.slices;
  const size_t p = gallop_partition_point(begin, end, hint, [&](size_t position) {
    return !(slices[by_stream_[position]].start() < ts);
  });
  hint = static_cast<uint32_t>(p);
  size_t best = 0;
  double best_distance = 0;
  bool have_best = false;
  for (size_t position = p == begin ? p : p - 1; position < std::min(end, p + 2); ++position) {
    const SliceRecord& s = slices[by_stream_[position]];
    const double distance = (s.start() <= ts && ts <= s.end())
                                ? 0.0
                                : std::min(std::fabs(ts - s.start()), std::fabs(ts - s.end()));
    if (!have_best || distance < best_distance) {
      best = by_stream_[position];
      best_distance = distance;
      have_best = true;
    }
  }
  return best;
}

// spec 5: each annotation on an old stream finds its nearest slice there. This
// runs beside lane packing, whose sort is one of the plan's high points of
// memory: 4 bytes per annotation here, the 8-byte outcomes only once the sort
// is done.
void CompactionPlan::find_annotation_slices() {
  annotation_slices_.resize(index_.annotations.size());
  // Annotations mostly follow their stream's time: each search starts where
  // the stream's last one ended.
  std::vector<uint32_t> hints(stream_begin_.begin(), stream_begin_.end() - 1);
  // The old stream of each annotation track, looked up once per track.
  std::vector<uint32_t> track_streams(index_.annotation_tracks.size(), kNotOnOldStream);
  for (size_t t = 0; t < track_streams.size(); ++t) {
    const auto stream = index_.stream_ids.find(index_.annotation_tracks[t]);
    if (stream != index_.stream_ids.end()) track_streams[t] = stream->second;
  }
  for (size_t i = 0; i < index_.annotations.size(); ++i) {
    const AnnotationRecord& a = index_.annotations[i];
    uint32_t& slice = annotation_slices_[i];
    slice = kNotOnOldStream;
    const uint32_t stream = track_streams[a.track];
    if (stream == kNotOnOldStream) continue;
    if (a.flags & kMetadataShape) {
      slice = kOldStreamMetadata;
      continue;
    }
    if ((a.flags & kTsPresent) && !(a.flags & kTsNumeric))
      fail_input("GPU annotation " + std::to_string(index_.annotation_events.nth_marked(i)) +
                 " has a non-numeric ts");
    slice = static_cast<uint32_t>(nearest_slice(stream, a.ts, hints[stream]));
  }
}

// ... and moves to the annotation track of that slice's lane; old stream
// metadata is dropped (spec 5).
void CompactionPlan::map_annotations() {
  uint64_t mapped = 0;
  outcomes_.resize(index_.annotations.size());
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    const uint32_t slice = annotation_slices_[i];
    const AnnotationRecord& record = index_.annotations[i];
    AnnotationOutcome& out = outcomes_[i];
    out = {record.track, record.tid_span, 0};
    if (slice == kOldStreamMetadata) {
      out.flags |= AnnotationOutcome::kDropped;
    } else if (slice != kNotOnOldStream) {
      // Lane tids lie above every integer tid (spec 4), so a moved annotation's tid changes.
      out.place = index_.slices[slice].lane;
      out.flags |= AnnotationOutcome::kMoved;
      ++mapped;
    }
  }
  annotation_slices_ = {};
  counts_.gpu_annotations_mapped = mapped;  // stored once (see build_spans)
}

// spec 6: identical annotations (up to ts/dur) that overlap become one.
void CompactionPlan::coalesce_annotations() {
  const auto& records = index_.annotations;
  // Candidates by (identity, tid, start, end, index): counted into their
  // identity (dense ids), then each identity's few sorted by the rest.
  auto candidate = [&](uint32_t i) {
    return outcomes_[i].kept() && records[i].identity != StringTable::kNone;
  };
  size_t candidate_count = 0;
  uint32_t identity_count = 0;
  for (uint32_t i = 0; i < records.size(); ++i) {
    if (!candidate(i)) continue;
    ++candidate_count;
    identity_count = std::max(identity_count, records[i].identity + 1);
  }
  // Placed by identity straight from the records: a list sorted afterwards
  // would hold two copies at once, beside the spans being built.
  std::vector<uint32_t> candidates(candidate_count);
  std::vector<uint32_t> identity_begin = place_by_key(
      identity_count,
      [&](auto visit) {
        for (uint32_t i = 0; i < records.size(); ++i)
          if (candidate(i)) visit(i);
      },
      [&](uint32_t i) { return records[i].identity; },
      [&](uint32_t position, uint32_t i) { candidates[position] = i; });
  // (tid, start, end, index), each looked up only when the ones before tie:
  // an identity may hold a million annotations (the same region on every
  // step), and profilers write most in order, which is_sorted confirms first.
  auto before = [&](uint32_t a, uint32_t b) {
    const int64_t tid_a = annotation_tid(a), tid_b = annotation_tid(b);
    if (tid_a != tid_b) return tid_a < tid_b;
    const AnnotationRecord& ra = records[a];
    const AnnotationRecord& rb = records[b];
    if (ra.ts != rb.ts) return ra.ts < rb.ts;
    const double end_a = ra.ts + ra.dur, end_b = rb.ts + rb.dur;
    if (end_a != end_b) return end_a < end_b;
    return a < b;
  };
  for (size_t k = 0; k + 1 < identity_begin.size(); ++k) {
    const auto first = candidates.begin() + identity_begin[k];
    const auto last = candidates.begin() + identity_begin[k + 1];
    if (last - first > 1 && !std::is_sorted(first, last, before)) std::sort(first, last, before);
  }
  identity_begin = {};
  // A cluster holds two candidates or more. Reserved (pages never written cost
  // nothing) rather than grown: a regrowth holds the old and the new copy.
  retimed_.reserve(candidates.size() / 2);
  auto same_identity = [&](uint32_t a, uint32_t b) {
    return records[a].identity == records[b].identity && annotation_tid(a) == annotation_tid(b);
  };
  auto merge_cluster = [&](size_t begin, size_t end) {
    if (end - begin < 2) return;
    uint32_t keeper = candidates[begin];
    double start = records[keeper].ts;
    double finish = records[keeper].ts + records[keeper].dur;
    for (size_t k = begin; k < end; ++k) {
      const uint32_t c = candidates[k];
      keeper = std::min(keeper, c);
      start = std::min(start, records[c].ts);
      finish = std::max(finish, records[c].ts + records[c].dur);
    }
    for (size_t k = begin; k < end; ++k)
      if (candidates[k] != keeper) outcomes_[candidates[k]].flags |= AnnotationOutcome::kDropped;
    // The keeper's cluster is closed: nothing reads its input interval again.
    // The record gets the merged interval for the PP annotations, the list for pass 2.
    index_.annotations[keeper].ts = start;
    index_.annotations[keeper].dur = finish - start;
    outcomes_[keeper].flags |= AnnotationOutcome::kRetimed;
    retimed_.push_back({keeper, start, finish - start});
    counts_.gpu_annotations_coalesced += end - begin - 1;
  };
  size_t cluster_begin = 0;
  double cluster_end = 0;
  for (size_t k = 0; k < candidates.size(); ++k) {
    const AnnotationRecord& a = records[candidates[k]];
    const bool joins =
        k > 0 && same_identity(candidates[k - 1], candidates[k]) && a.ts <= cluster_end;
    if (joins) {
      cluster_end = std::max(cluster_end, a.ts + a.dur);
      continue;
    }
    if (k > 0) merge_cluster(cluster_begin, k);
    cluster_begin = k;
    cluster_end = a.ts + a.dur;
  }
  if (!candidates.empty()) merge_cluster(cluster_begin, candidates.size());
  std::sort(retimed_.begin(), retimed_.end(),
            [](const RetimedAnnotation& a, const RetimedAnnotation& b) {
              return a.annotation < b.annotation;
            });
}

const RetimedAnnotation& CompactionPlan::retimed_interval(size_t i) const {
  const auto found = std::lower_bound(
      retimed_.begin(), retimed_.end(), i,
      [](const RetimedAnnotation& r, size_t annotation) { return r.annotation < annotation; });
  if (found == retimed_.end() || found->annotation != i)
    throw std::logic_error("annotation " + std::to_string(i) + " was not retimed");
  return *found;
}

void CompactionPlan::release_annotation_records() {
  index_.annotations = {};
  records_released_ = true;
}

// spec 7: runs of kernels with the same args.name become lane-local spans, in
// (lane, start, dur, event order). by_lane_ is in (lane, start, end, event
// order); the two differ only where equal starts have equal ends but different
// durations (rounding), so runs of equal starts are re-sorted by (dur, index).
void CompactionPlan::build_spans() {
  const auto& slices = index_.slices;
  const auto& regions = index_.slice_regions;
  SliceOrder& order = by_lane_;
  for (size_t begin = 0; begin < order.size();) {
    size_t end = begin + 1;
    while (end < order.size() && slices[order[end]].lane == slices[order[begin]].lane &&
           slices[order[end]].ts == slices[order[begin]].ts)
      ++end;
    if (end - begin > 1)
      std::sort(order.begin() + begin, order.begin() + end, [&](uint32_t a, uint32_t b) {
        return std::make_pair(slices[a].dur, a) < std::make_pair(slices[b].dur, b);
      });
    begin = end;
  }
  // Counted here and stored once: the counters beside it are written by the
  // other plan thread, and would share its cache line.
  uint64_t converted = 0;
  for (size_t begin = 0; begin < order.size();) {
    const uint32_t lane = slices[order[begin]].lane;
    size_t end = begin;
    while (end < order.size() && slices[order[end]].lane == lane) ++end;
    uint32_t current = StringTable::kNone;
    double run_start = 0, run_end = 0;
    auto close_run = [&] {
      if (current != StringTable::kNone) spans_.push_back({current, lane, run_start, run_end});
    };
    for (size_t k = begin; k < end; ++k) {
      const SliceRecord& s = slices[order[k]];
      const uint32_t region = regions[order[k]];
      if (region != current) {
        close_run();
        current = region;
        run_start = s.start();
      }
      if (region != StringTable::kNone) {
        ++converted;
        run_end = s.end();
      }
    }
    close_run();
    begin = end;
  }
  counts_.kernel_annotations_converted = converted;
  counts_.kernel_annotation_blocks = spans_.size();
  by_lane_ = {};
  index_.slice_regions = {};  // nothing reads args.name of a slice after this
}

// spec 8: names and sort order for every lane and its used annotation track.
void CompactionPlan::name_tracks() {
  // Annotation track tids are consecutive from the first lane's: a track is
  // used when a kept annotation or a span of the lane's pid sits on it.
  std::vector<bool> used(lanes_.size());
  const int64_t first_track = lanes_.front().annotation_tid;
  auto mark = [&](int64_t pid, int64_t tid) {
    if (tid < first_track || tid >= first_track + static_cast<int64_t>(lanes_.size())) return;
    const auto lane = static_cast<size_t>(tid - first_track);
    if (lanes_[lane].pid == pid) used[lane] = true;
  };
  for (size_t i = 0; i < outcomes_.size(); ++i)
    if (outcomes_[i].kept()) mark(annotation_pid(i), annotation_tid(i));
  for (const auto& span : spans_) mark(span_pid(span), span_tid(span));
  uint64_t sort_index = 0;
  for (const Lane& lane : lanes_) {
    std::string label(group_label(lane.group));
    if (lane.group_lane_count > 1) label += " " + std::to_string(lane.number + 1);
    if (used[static_cast<size_t>(&lane - lanes_.data())])
      track_names_.push_back({lane.pid, lane.annotation_tid, label + " annotations", sort_index++});
    track_names_.push_back({lane.pid, lane.tid, label, sort_index++});
  }
}

void CompactionPlan::count() {
  counts_.measured_slices = index_.slices.size();
  counts_.original_streams = index_.streams.size();
  counts_.compacted_lanes = lanes_.size();
  uint64_t slices_of_group[kGroupCount] = {};
  for (const auto& slice : index_.slices) ++slices_of_group[static_cast<int>(slice.group)];
  for (int g = 0; g < kGroupCount; ++g)
    if (slices_of_group[g])
      counts_.slice_groups[std::string(group_key(static_cast<Group>(g)))] = slices_of_group[g];
  for (const auto& lane : lanes_) ++counts_.lanes_by_group[std::string(group_key(lane.group))];
  uint64_t retained = 0, launches = index_.graph_launches;
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    if (outcomes_[i].kept())
      ++retained;
    else if (index_.annotations[i].flags & kNamedGraphLaunch)
      --launches;
  }
  const uint32_t launch_region = index_.region_names.find("cudaGraphLaunch");
  for (const auto& span : spans_)
    if (span.region == launch_region) ++launches;
  counts_.gpu_annotations_retained = retained + spans_.size();
  counts_.cuda_graph_launches = launches;
}

namespace {

// Parses each name once; the ids of the PP ones in `out`, kNone for the others.
std::vector<uint32_t> pp_name_ids(const StringTable& names, PPAnnotationList* out) {
  std::vector<uint32_t> ids(names.size(), StringTable::kNone);
  for (size_t n = 0; n < names.size(); ++n) {
    const PPName name = parse_pp_name(names[static_cast<uint32_t>(n)]);
    if (name.kind != PPName::Kind::kNone) ids[n] = out ? out->add_name(name) : 0;
  }
  return ids;
}

}  // namespace

template <typename Visit>
void CompactionPlan::visit_pp_annotations(const std::vector<uint32_t>& annotation_name_ids,
                                          const std::vector<uint32_t>& region_name_ids,
                                          Visit&& visit) const {
  if (records_released_)
    throw std::logic_error("the PP annotations are read from released records");
  for (size_t i = 0; i < outcomes_.size(); ++i) {
    const AnnotationRecord& a = index_.annotations[i];
    const bool numeric = (a.flags & kTsNumeric) && (a.flags & kDurNumeric);
    if (!outcomes_[i].kept() || !(a.flags & kPhaseX) || !numeric || a.name == StringTable::kNone ||
        annotation_name_ids[a.name] == StringTable::kNone)
      continue;
    visit(track_slot(i), a.ts, a.dur, annotation_name_ids[a.name]);
  }
  for (const auto& span : spans_) {
    if (region_name_ids[span.region] == StringTable::kNone) continue;
    visit(span.lane, span.start, span.end - span.start, region_name_ids[span.region]);
  }
}

uint32_t CompactionPlan::track_slot(size_t annotation) const {
  const AnnotationOutcome& o = outcomes_[annotation];
  return o.moved() ? o.place : static_cast<uint32_t>(lanes_.size()) + o.place;
}

StreamKey CompactionPlan::slot_track(uint32_t slot) const {
  if (slot < lanes_.size()) return {lanes_[slot].pid, lanes_[slot].annotation_tid};
  return index_.annotation_tracks[slot - lanes_.size()];
}

size_t CompactionPlan::pp_annotation_count() const {
  size_t count = 0;
  visit_pp_annotations(pp_name_ids(index_.annotation_names, nullptr),
                       pp_name_ids(index_.region_names, nullptr),
                       [&](uint32_t, double, double, uint32_t) { ++count; });
  return count;
}

void CompactionPlan::append_pp_annotations(
    PPAnnotationList& out, double ts_offset,
    const std::unordered_map<int64_t, int64_t>* pid_map) const {
  // The list's id of each track, looked up (and its pid mapped) once per
  // track rather than once per annotation.
  std::vector<uint32_t> slot_ids(lanes_.size() + index_.annotation_tracks.size(), kNoTrack);
  visit_pp_annotations(pp_name_ids(index_.annotation_names, &out),
                       pp_name_ids(index_.region_names, &out),
                       [&](uint32_t slot, double ts, double dur, uint32_t name) {
                         uint32_t& id = slot_ids[slot];
                         if (id == kNoTrack) {
                           StreamKey track = slot_track(slot);
                           if (pid_map) track.pid = pid_map->at(track.pid);
                           id = out.add_track(track);
                         }
                         out.add(ts + ts_offset, dur, id, name);
                       });
}

PPLaneSets CompactionPlan::pp_lane_sets() const {
  PPLaneSets sets;
  for (const auto& named : index_.lane_names) {
    if (is_old_stream({named.pid, named.tid})) continue;  // dropped with its old stream
    auto& target = named.role == kMainComputeLane ? sets.main_compute : sets.unshard;
    target.insert({named.pid, named.tid});
  }
  for (const auto& track : track_names_) {
    const uint8_t role = lane_role(track.name);
    if (role == kMainComputeLane) sets.main_compute.insert({track.pid, track.tid});
    if (role == kUnshardLane) sets.unshard.insert({track.pid, track.tid});
  }
  return sets;
}

}  // namespace tracecompact
