// Locates a few top-level fields of an already validated event by scanning its
// text, without a parse: enough for merge mode to splice pid and ts in place.
#pragma once

#include <cstddef>
#include <string_view>

#include "json/splice_site.h"

namespace tracecompact {

struct FieldSpan {
  size_t at = 0;
  size_t length = 0;
  bool found = false;
  std::string_view in(std::string_view text) const { return text.substr(at, length); }
};

struct TopLevelFields {
  FieldSpan pid, tid, ts, ph, id;
};

// Whether a ph token names a flow phase ("s", "t", "f"), whose id matters.
bool is_flow_phase_token(std::string_view ph);

// Finds pid, ts, ph, tid (when `need_tid`) and, for a flow phase, id. The scan
// stops once it has them: pass 1 has rejected events that repeat these keys
// (spec 12), so nothing later can override them; the bytes skipped are mostly
// args. False when the event needs a real parse (a key spelled with escapes
// before the scan stops). `text` must be followed by 64 readable bytes.
// Scans 64 bytes at a time where the event has no backslash before the scan
// stops, else byte by byte; both find the same spans.
bool locate_top_level_fields(std::string_view text, TopLevelFields& fields, bool need_tid);

// pid's and ts's number tokens where pass 1 found them (`site`, not
// kNoSpliceSite), into spans that start not found (an absent ts stays so).
// False when the text there is no number (the input changed since pass 1): the
// caller scans instead. `text` as for the scan.
bool splice_site_spans(std::string_view text, SpliceSite site, FieldSpan& pid, FieldSpan& ts);

// pid's and ts's number tokens found by their keys' text: the first "pid" key,
// then the first "ts" key after it. Only for events pass 1 found to allow it
// (TapeReader::has_plain_pid_ts); false when no number is found there (the
// input changed since pass 1): the caller scans instead. `text` as above.
bool find_plain_pid_ts(std::string_view text, FieldSpan& pid, FieldSpan& ts);

// The byte-by-byte scan alone, which tests compare the block scan with.
bool locate_top_level_fields_by_bytes(std::string_view text, TopLevelFields& fields, bool need_tid);

}  // namespace tracecompact
