// The merged document (spec 11), written front to back: the first PP rank's
// top-level values before traceEvents, each rank's events in PP order as the
// ranks come, then the arrows, the remaining top-level values and the summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index/trace_index.h"
#include "merge/merge_rank.h"
#include "merge/merged_arrows.h"
#include "sink/byte_sink.h"
#include "writer/json_writer.h"

namespace tracecompact {

class MergedDocument {
 public:
  // `pp_order`: every rank, placed; `base_ns`: the smallest base.
  MergedDocument(ByteSink& sink, const std::vector<Rank*>& pp_order, int64_t base_ns,
                 unsigned threads);

  // The first PP rank, indexed: its top-level values up to traceEvents.
  void begin();
  // A rank's events, spans, lane and process metadata (pids numbered). The
  // caller frees its index after (Rank::release_index). Errors name the rank's file.
  void write_rank(Rank& rank);
  // The arrows, the rest of the first rank's top-level values and the summary.
  void finish(const std::vector<Rank>& ranks, MergedArrows& arrows);

 private:
  void write_rank_events_of(Rank& rank);
  void write_top_level(size_t from, size_t to);
  void write_distributed_info();

  JsonOut out_;
  const std::vector<Rank*>& pp_order_;
  const int64_t base_ns_;
  const unsigned threads_;
  size_t first_rank_chunk_size_ = 0;
  // A copy: the first rank's index goes once its events are written.
  std::vector<TopLevelValue> top_level_;
  size_t events_key_position_ = 0;
  bool wrote_compaction_ = false;
  bool wrote_name_ = false;
};

}  // namespace tracecompact
