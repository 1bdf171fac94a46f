#include "verify/verifier.h"

#include "index/index_pass.h"
#include "json/event_parser.h"
#include "tokenizer/trace_tokenizer.h"
#include "tracecompact/error.h"
#include "util/hash128.h"
#include "verify/expected_slices.h"
#include "verify/output_checks.h"

namespace tracecompact {

// Reads the output on this thread while the inputs' slices are read beside it.
void verify_output(const std::vector<VerifyRank>& ranks, const std::string& output_path) {
  const TraceInput output = TraceInput::open_path(output_path);
  auto source = output.open();
  TraceTokenizer tokenizer(*source, output.chunk_size());
  EventParser parser;
  ExpectedSlices expected(ranks);
  OutputChecks checks;
  ExpectedSlice want;
  uint64_t slice_number = 0;
  for (;;) {
    const auto item = tokenizer.next();
    if (item.kind == TraceTokenizer::Kind::kEnd) break;
    if (item.kind != TraceTokenizer::Kind::kEvent) continue;
    const EventFields& f = parser.parse_in_place(item.text, {item.index, item.offset});
    if (f.cat.is("gpu_user_annotation")) checks.add_annotation(f, parser);
    if (f.cat.is("ac2g")) checks.add_flow(f, item.index);
    if (!is_measured_slice(f)) continue;
    if (!expected.next(want))
      OutputChecks::fail("the output has more measured slices than the input");
    checks.add_slice(f, item.index, want.ts, want.ts + want.dur);
    const VerifyRank& rank = *want.rank;
    const int64_t want_pid = rank.pid_map ? rank.pid_map->at(want.pid) : want.pid;
    if (parser.slice_signature() != want.signature || f.pid.int_value != want_pid ||
        f.ts.number != want.ts + rank.ts_offset)
      OutputChecks::fail("measured GPU slice " + std::to_string(slice_number) + " changed");
    ++slice_number;
  }
  if (expected.next(want)) OutputChecks::fail("the output lacks measured slices of the input");
  checks.finish();
}

}  // namespace tracecompact
