// Merge mode's fast path for one event: pid renumbered, ts shifted and a
// flow's plain integer id renumbered in place of the original tokens (plus the
// plan's tid/stream), without a parse.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "index/trace_index.h"
#include "writer/event_rewriter.h"
#include "writer/json_writer.h"
#include "writer/top_level_fields.h"

namespace tracecompact {

// write() returns false when the event needs the full rewriter: metadata,
// other flow ids, retimed annotations, unusual spellings, parts that overlap
// (the input changed since pass 1).
class MergeSplicer {
 public:
  // The tokens kept and the texts written in their place are read 32 bytes at
  // a time: each sits at the start of an array of this size.
  static constexpr size_t kReplacementBytes = 32;

  // `located`: the event's top-level fields when the caller has them (found
  // with need_tid), else null.
  bool write(std::string_view text, const EventEdit& edit, ValueSpan stream_span,
             const MergeEdit& merge, FlowIdWriter& flow_ids, JsonOut& out,
             const TopLevelFields* located = nullptr);
  // A slice's tid and args.stream tokens, which both become its lane's tid.
  // The caller has checked that both lie inside the text and hold integer text
  // (they are copied over unchecked).
  struct LaneSplice {
    ValueSpan tid;
    ValueSpan stream;
    int64_t lane_tid;
  };
  // The lean path for an event pass 1 found pid and ts in (neither metadata
  // nor a flow: a splice site or plain keys) and the plan leaves as it is, but
  // for a slice's lane (`lane`, else null): pid and ts change, at `pid` and
  // `ts`. False: take write() or the full rewriter. `text` must be followed by
  // 64 readable bytes.
  bool write_at(std::string_view text, const FieldSpan& pid, const FieldSpan& ts,
                const LaneSplice* lane, const MergeEdit& merge, JsonOut& out);

 private:
  struct Part {
    size_t at;
    size_t length;
    std::string_view text;  // the replacement, unless it is the flow id
    bool flow_id;
  };
  std::string_view integer_text(int64_t value);
  void add(size_t at, size_t length, std::string_view text, bool flow_id = false) {
    parts_[count_++] = {at, length, text, flow_id};
  }

  void start();
  bool add_pid(std::string_view text, const FieldSpan& pid, const MergeEdit& merge);
  bool add_ts(std::string_view text, const FieldSpan& ts, const MergeEdit& merge);
  bool shift_ts(std::string_view ts, const MergeEdit& merge);
  std::string_view lane_text(int64_t lane_tid);
  bool sort_parts();
  bool write_parts(std::string_view text, JsonOut& out);
  void write_parts_in_order(std::string_view text, JsonOut& out);
  bool emit(std::string_view text, FlowIdWriter& flow_ids, JsonOut& out);
  bool map_pid(std::string_view token, const MergeEdit& merge);

  // Pid tokens mapped and their merged pids' texts: most events repeat one of
  // the last two (a trace's events go back and forth between a GPU pid and a
  // CPU one). A splicer serves one MergeEdit (one rank).
  struct PidText {
    char token[kReplacementBytes]{};  // read whole (masked) by the compare
    size_t token_size = 0;
    char text[kReplacementBytes];
    size_t text_size = 0;
  };
  PidText pids_[2];
  size_t pid_to_replace_ = 0;  // the entry used less recently
  // The last lane tid written and its text: a lane's slices come in runs.
  int64_t last_lane_tid_ = 0;
  char last_lane_text_[kReplacementBytes];
  size_t last_lane_text_size_ = 0;
  // The same for ts: a flow's start or end repeats the time of the event
  // before it (its runtime call or kernel).
  char last_ts_token_[kReplacementBytes]{};
  size_t last_ts_token_size_ = 0;
  char last_ts_text_[kReplacementBytes];
  size_t last_ts_text_size_ = 0;
  Part parts_[5];
  bool has_flow_id_ = false;  // a part is the flow id, which the FlowIdWriter writes
  size_t count_ = 0;
  char digits_[128];
  size_t used_ = 0;
  int64_t flow_id_ = 0;  // a plain integer: other ids take the full rewriter
};

}  // namespace tracecompact
