#include "verify/verifier.h"

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <tuple>

#include "index/index_pass.h"
#include "json/event_parser.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"
#include "util/hash128.h"

namespace tracecompact {
namespace {

struct SliceView {
  std::string signature;
  int64_t pid = 0;
  double ts = 0;
  double dur = 0;
};

// The measured slices of the inputs, one after another, as pass 2 wrote them.
class InputSlices {
 public:
  explicit InputSlices(const std::vector<VerifyRank>& ranks) : ranks_(ranks) {}

  bool next(SliceView& slice, const VerifyRank*& rank) {
    for (;;) {
      if (!tokenizer_) {
        if (rank_index_ == ranks_.size()) return false;
        source_ = ranks_[rank_index_].input->open();
        tokenizer_ =
            std::make_unique<TraceTokenizer>(*source_, ranks_[rank_index_].input->chunk_size());
      }
      const auto item = tokenizer_->next();
      if (item.kind == TraceTokenizer::Kind::kEnd) {
        tokenizer_.reset();
        source_.reset();
        ++rank_index_;
        continue;
      }
      if (item.kind != TraceTokenizer::Kind::kEvent) continue;
      const EventFields& f = parser_.parse_in_place(item.text, {item.index, item.offset});
      if (!is_measured_slice(f)) continue;
      slice.pid = f.pid.int_value;
      slice.ts = f.ts.number;
      slice.dur = f.dur.number;
      slice.signature.assign(parser_.slice_signature());
      rank = &ranks_[rank_index_];
      return true;
    }
  }

 private:
  const std::vector<VerifyRank>& ranks_;
  size_t rank_index_ = 0;
  std::unique_ptr<ByteSource> source_;
  std::unique_ptr<TraceTokenizer> tokenizer_;
  EventParser parser_;
};

struct TrackInterval {
  int64_t pid, tid;
  double start, end;
};
struct IdenticalInterval {
  Hash128 identity;
  int64_t pid, tid;
  double start, end;
};
struct FlowEnd {
  int64_t pid, tid;
  double ts;
  uint64_t event_index;
};

class OutputChecker {
 public:
  void fail(const std::string& what) const { fail_input("verification failed: " + what); }

  // `start`/`end` are the input's: merge alignment shifts times after packing,
  // and rounding may make slices that touched overlap by an ulp.
  void add_slice(const EventFields& f, uint64_t index, double start, double end) {
    if (!f.tid.is_int() || !f.args_stream.is_int() || f.tid.int_value != f.args_stream.int_value)
      fail("output slice at event " + std::to_string(index) + " has tid != args.stream");
    slices_.push_back({f.pid.int_value, f.tid.int_value, start, end});
    starts_.push_back({f.pid.int_value, f.tid.int_value, f.ts.number, 0});
  }
  void add_annotation(const EventFields& f, EventParser& parser) {
    if (!f.ph.is("X") || !f.ts.is_number() || !f.dur.is_number() || !f.pid.is_int() ||
        !f.tid.is_int())
      return;
    // Spans built from kernel names carry empty args and are not coalesced, so
    // one may overlap an identical projected annotation: only the others are checked.
    if (f.args_empty) return;
    const Hash128 identity = hash128(parser.annotation_identity());  // as pass 1 compares them
    annotations_.push_back(
        {identity, f.pid.int_value, f.tid.int_value, f.ts.number, f.ts.number + f.dur.number});
  }
  void add_flow(const EventFields& f, uint64_t index) {
    if (f.pid.is_int() && f.tid.is_int() && f.ts.is_number())
      flows_.push_back({f.pid.int_value, f.tid.int_value, f.ts.number, index});
  }

  void finish() {
    auto by_track = [](const TrackInterval& a, const TrackInterval& b) {
      return std::tie(a.pid, a.tid, a.start, a.end) < std::tie(b.pid, b.tid, b.start, b.end);
    };
    std::sort(slices_.begin(), slices_.end(), by_track);
    std::sort(starts_.begin(), starts_.end(), by_track);
    for (size_t i = 1; i < slices_.size(); ++i) {
      const auto& a = slices_[i - 1];
      const auto& b = slices_[i];
      if (a.pid == b.pid && a.tid == b.tid && b.start < a.end)
        fail("compacted lane (" + std::to_string(b.pid) + ", " + std::to_string(b.tid) +
             ") contains overlapping slices");
    }
    std::sort(annotations_.begin(), annotations_.end(), [](const auto& a, const auto& b) {
      return std::tie(a.identity, a.pid, a.tid, a.start) <
             std::tie(b.identity, b.pid, b.tid, b.start);
    });
    double reach = 0;
    for (size_t i = 0; i < annotations_.size(); ++i) {
      const auto& b = annotations_[i];
      const bool same = i > 0 && annotations_[i - 1].identity == b.identity &&
                        annotations_[i - 1].pid == b.pid && annotations_[i - 1].tid == b.tid;
      if (same && b.start < reach)
        fail("annotation track (" + std::to_string(b.pid) + ", " + std::to_string(b.tid) +
             ") holds overlapping copies of one annotation");
      reach = same ? std::max(reach, b.end) : b.end;
    }
    for (const auto& flow : flows_) {
      auto lane = std::lower_bound(starts_.begin(), starts_.end(),
                                   TrackInterval{flow.pid, flow.tid, -1e308, 0}, by_track);
      if (lane == starts_.end() || lane->pid != flow.pid || lane->tid != flow.tid)
        continue;  // not a lane
      auto at = std::lower_bound(starts_.begin(), starts_.end(),
                                 TrackInterval{flow.pid, flow.tid, flow.ts, -1e308}, by_track);
      if (at == starts_.end() || at->pid != flow.pid || at->tid != flow.tid || at->start != flow.ts)
        fail("GPU flow at event " + std::to_string(flow.event_index) +
             " does not land on a slice start of its lane");
    }
  }

 private:
  std::vector<TrackInterval> slices_;  // input times, for overlaps
  std::vector<TrackInterval> starts_;  // output starts, where flows must land
  std::vector<IdenticalInterval> annotations_;
  std::vector<FlowEnd> flows_;
};

void check_output(const std::vector<VerifyRank>& ranks, const std::string& output_path) {
  const TraceInput output = TraceInput::open_path(output_path);
  auto source = output.open();
  TraceTokenizer tokenizer(*source, output.chunk_size());
  EventParser parser;
  InputSlices expected(ranks);
  OutputChecker checker;
  SliceView want;
  uint64_t slice_number = 0;
  for (;;) {
    const auto item = tokenizer.next();
    if (item.kind == TraceTokenizer::Kind::kEnd) break;
    if (item.kind != TraceTokenizer::Kind::kEvent) continue;
    const EventFields& f = parser.parse_in_place(item.text, {item.index, item.offset});
    if (f.cat.is("gpu_user_annotation")) checker.add_annotation(f, parser);
    if (f.cat.is("ac2g")) checker.add_flow(f, item.index);
    if (!is_measured_slice(f)) continue;
    const VerifyRank* rank = nullptr;
    if (!expected.next(want, rank))
      checker.fail("the output has more measured slices than the input");
    checker.add_slice(f, item.index, want.ts, want.ts + want.dur);
    const int64_t want_pid = rank->pid_map ? rank->pid_map->at(want.pid) : want.pid;
    if (parser.slice_signature() != want.signature || f.pid.int_value != want_pid ||
        f.ts.number != want.ts + rank->ts_offset)
      checker.fail("measured GPU slice " + std::to_string(slice_number) + " changed");
    ++slice_number;
  }
  const VerifyRank* rank = nullptr;
  if (expected.next(want, rank)) checker.fail("the output lacks measured slices of the input");
  checker.finish();
}

}  // namespace

void verify_output(const std::vector<VerifyRank>& ranks, const std::string& output_path) {
  try {
    check_output(ranks, output_path);
  } catch (const Error&) {
    ::unlink(output_path.c_str());  // a wrong output is not left behind
    throw;
  }
}

}  // namespace tracecompact
