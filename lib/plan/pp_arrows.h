// Pipeline-parallel arrows (spec 10 and the send->recv part of 11): PP blocks
// are read from GPU annotations and paired into flow arrows.
//
// A large trace has hundreds of thousands of PP annotations, so they, their
// blocks and the arrows are small records naming a track and a name in shared
// tables (the memory goal is bytes per slice, and these sit on top of the index).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "index/trace_index.h"
#include "util/chunked_vector.h"

namespace tracecompact {

// Operations sort as their names do: B < F < RECV_B < RECV_F < SEND_B < SEND_F.
enum class PPOp : uint8_t { kB, kF, kRecvB, kRecvF, kSendB, kSendF, kUnshard };
std::string_view pp_op_name(PPOp op);

struct PPName {
  enum class Kind : uint8_t { kNone, kOperation, kUnshard } kind = Kind::kNone;
  PPOp op = PPOp::kF;
  uint64_t stage = 0;
  uint64_t microbatch = 0;
  // Operations have a microbatch; UNSHARD has none.
  std::optional<uint64_t> microbatch_if_any() const {
    return kind == Kind::kOperation ? std::optional<uint64_t>(microbatch) : std::nullopt;
  }
  std::string label() const;  // "<stage><op>[<microbatch>]"
};
// Parses "PP:<stage><op><microbatch>" or "PP:<stage>UNSHARD" (ASCII digits only).
PPName parse_pp_name(std::string_view name);

// Tracks and names the PP records refer to by index.
struct PPTables {
  std::vector<StreamKey> tracks;
  std::vector<PPName> names;
};

// A PP-named gpu_user_annotation "X" event of the final event list (or a kernel
// span), in list order.
struct PPAnnotation {
  double ts;
  double dur;
  uint32_t track;  // PPTables::tracks
  uint32_t name;   // PPTables::names
};

// The PP annotations of one trace, or of all ranks of a merge.
class PPAnnotationList {
 public:
  uint32_t add_track(StreamKey track);
  uint32_t add_name(const PPName& name);  // no deduplication: callers map their own ids
  void add(double ts, double dur, uint32_t track, uint32_t name) {
    items.push_back({ts, dur, track, name});
  }
  // Appends `other`'s annotations as if they had been added here after these:
  // its names follow these names, its tracks are interned here.
  void append(const PPAnnotationList& other);

  std::vector<PPAnnotation> items;
  PPTables tables;

 private:
  StreamKeyIds track_ids_;
};

struct PPBlock {
  double start;
  double end;
  uint32_t track;
  uint32_t name;
};

struct PPArrow {
  PPBlock source;
  PPBlock destination;
  double destination_ts;
  uint64_t id;
  const char* category;
};

struct PPArrowCounts {
  uint64_t send_recv_pairs = 0, send_recv_unmatched = 0;
  uint64_t compute_pairs = 0, compute_unmatched = 0;
  uint64_t unshard_pairs = 0, unshard_unmatched = 0;
};

struct PPLaneSets {
  std::set<StreamKey> main_compute;  // tracks named "Compute annotations"/"Compute 1 annotations"
  std::set<StreamKey> unshard;       // the first all-gather annotation tracks
};

struct PPArrowResult {
  ChunkedVector<PPArrow> arrows;  // grows without copies or doubled capacity
  PPArrowCounts counts;
  PPTables tables;  // what the arrows' blocks refer to

  const StreamKey& track(const PPBlock& block) const { return tables.tracks[block.track]; }
  const PPName& name(const PPBlock& block) const { return tables.names[block.name]; }
};

// The operation blocks (and unshard blocks) of the PP annotations: the first
// step of drawing, where its memory peaks (the annotations are freed once the
// blocks exist).
struct PPBlocks {
  PPTables tables;
  PPLaneSets lanes;
  std::vector<PPBlock> operations;
  std::vector<PPBlock> unshards;
};
PPBlocks build_pp_blocks(PPAnnotationList annotations, const PPLaneSets& lanes);

// Draws arrows between the blocks; with `cross_rank` the send->recv arrows come
// first (merge mode). Flow ids count up from `first_flow_id`.
PPArrowResult draw_pp_arrows(PPBlocks blocks, bool cross_rank, uint64_t first_flow_id);

// Both steps.
PPArrowResult draw_pp_arrows(PPAnnotationList annotations, const PPLaneSets& lanes, bool cross_rank,
                             uint64_t first_flow_id);

constexpr uint64_t kFirstPPFlowId = 1000000000000ull;

}  // namespace tracecompact
