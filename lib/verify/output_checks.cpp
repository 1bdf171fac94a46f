#include "verify/output_checks.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "index/index_pass.h"
#include "tracecompact/error.h"

namespace tracecompact {

void OutputChecks::fail(const std::string& what) {
  fail_input("verification failed: " + what);
}

uint32_t OutputChecks::track(int64_t pid, int64_t tid) {
  return intern_stream_key(track_ids_, tracks_, {pid, tid});
}

std::string OutputChecks::track_text(uint32_t track) const {
  return "(" + std::to_string(tracks_[track].pid) + ", " + std::to_string(tracks_[track].tid) + ")";
}

void OutputChecks::add_slice(const EventFields& f, uint64_t index, double start, double end) {
  if (!f.tid.is_int() || !f.args_stream.is_int() || f.tid.int_value != f.args_stream.int_value)
    fail("output slice at event " + std::to_string(index) + " has tid != args.stream");
  const uint32_t lane = track(f.pid.int_value, f.tid.int_value);
  slices_.push_back({lane, start, end});
  starts_.push_back({lane, f.ts.number});
}

void OutputChecks::add_annotation(const EventFields& f, EventParser& parser) {
  // Coalescing candidates only, as pass 1 picks them: others (a negative dur)
  // are left where they are, even inside an identical candidate.
  if (!is_coalescing_candidate(f) || !f.pid.is_int() || !f.tid.is_int()) return;
  // Spans built from kernel names carry empty args and are not coalesced, so
  // one may overlap an identical projected annotation: only the others are checked.
  if (f.args_empty) return;
  const Hash128 identity = parser.annotation_identity();  // as pass 1 compares them
  annotations_.push_back(
      {identity, track(f.pid.int_value, f.tid.int_value), f.ts.number, f.ts.number + f.dur.number});
}

void OutputChecks::add_flow(const EventFields& f, uint64_t index) {
  if (f.pid.is_int() && f.tid.is_int() && f.ts.is_number())
    flows_.push_back({track(f.pid.int_value, f.tid.int_value), f.ts.number, index});
}

void OutputChecks::finish() {
  // Tracks in (pid, tid) order, so that of several failures the same one is reported.
  std::vector<uint32_t> rank(tracks_.size());
  {
    std::vector<uint32_t> order(tracks_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return tracks_[a] < tracks_[b]; });
    for (uint32_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  }
  std::sort(slices_.begin(), slices_.end(), [&](const Interval& a, const Interval& b) {
    return std::tie(rank[a.track], a.start, a.end) < std::tie(rank[b.track], b.start, b.end);
  });
  for (size_t i = 1; i < slices_.size(); ++i) {
    const Interval& a = slices_[i - 1];
    const Interval& b = slices_[i];
    if (a.track == b.track && b.start < a.end)
      fail("compacted lane " + track_text(b.track) + " contains overlapping slices");
  }
  slices_ = {};
  std::sort(annotations_.begin(), annotations_.end(), [&](const Copy& a, const Copy& b) {
    return std::tie(a.identity, rank[a.track], a.start) <
           std::tie(b.identity, rank[b.track], b.start);
  });
  double reach = 0;
  for (size_t i = 0; i < annotations_.size(); ++i) {
    const Copy& b = annotations_[i];
    const bool same =
        i > 0 && annotations_[i - 1].identity == b.identity && annotations_[i - 1].track == b.track;
    if (same && b.start < reach)
      fail("annotation track " + track_text(b.track) +
           " holds overlapping copies of one annotation");
    reach = same ? std::max(reach, b.end) : b.end;
  }
  annotations_ = {};
  auto by_track_and_ts = [](const Start& a, const Start& b) {
    return std::tie(a.track, a.ts) < std::tie(b.track, b.ts);
  };
  std::sort(starts_.begin(), starts_.end(), by_track_and_ts);
  for (const FlowEnd& flow : flows_) {
    const auto lane = std::lower_bound(starts_.begin(), starts_.end(),
                                       Start{flow.track, -std::numeric_limits<double>::infinity()},
                                       by_track_and_ts);
    if (lane == starts_.end() || lane->track != flow.track) continue;  // not a lane
    const auto at =
        std::lower_bound(lane, starts_.end(), Start{flow.track, flow.ts}, by_track_and_ts);
    if (at == starts_.end() || at->track != flow.track || at->ts != flow.ts)
      fail("GPU flow at event " + std::to_string(flow.event_index) +
           " does not land on a slice start of its lane");
  }
}

}  // namespace tracecompact
