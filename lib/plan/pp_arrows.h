// Pipeline-parallel arrows (spec 10 and the send->recv part of 11): PP blocks
// are read from GPU annotations and paired into flow arrows.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "index/trace_index.h"

namespace tracecompact {

// Operations sort as their names do: B < F < RECV_B < RECV_F < SEND_B < SEND_F.
enum class PPOp : uint8_t { kB, kF, kRecvB, kRecvF, kSendB, kSendF, kUnshard };
std::string_view pp_op_name(PPOp op);

struct PPName {
  enum class Kind : uint8_t { kNone, kOperation, kUnshard } kind = Kind::kNone;
  uint64_t stage = 0;
  PPOp op = PPOp::kF;
  uint64_t microbatch = 0;
};
// Parses "PP:<stage><op><microbatch>" or "PP:<stage>UNSHARD" (ASCII digits only).
PPName parse_pp_name(std::string_view name);

// A gpu_user_annotation "X" event of the final event list, in list order.
struct PPAnnotation {
  int64_t pid;
  int64_t tid;
  double ts;
  double dur;
  PPName name;
};

struct PPBlock {
  uint64_t stage;
  PPOp op;
  std::optional<uint64_t> microbatch;
  int64_t pid;
  int64_t tid;
  double start;
  double end;
  std::string label() const;
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
  std::vector<PPArrow> arrows;
  PPArrowCounts counts;
};

// Draws arrows over `annotations`; with `cross_rank` the send->recv arrows come
// first (merge mode). Flow ids count up from `first_flow_id`.
PPArrowResult draw_pp_arrows(const std::vector<PPAnnotation>& annotations, const PPLaneSets& lanes,
                             bool cross_rank, uint64_t first_flow_id);

constexpr uint64_t kFirstPPFlowId = 1000000000000ull;

}  // namespace tracecompact
