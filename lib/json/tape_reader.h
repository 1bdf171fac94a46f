// The quick way to read an event. simdjson's DOM parser validates the whole
// event in one tight pass (about twice as fast here as visiting every value
// on demand), and the fields the spec reads are taken off its tape. Anything
// out of the ordinary is left to the on-demand reader (EventParser), which
// reads it as before and reports faults with their position: an event the DOM
// parser refuses (a fault, an integer beyond 64 bits, deep nesting, a large
// event), a key the spec reads given twice, or a token pass 2 splices that
// follows an object or array value and is not plainly found in the text. Both
// readers give the same fields and canonical digests
// (tests/unit/tape_reader_test.cpp compares them).
#pragma once

#include <simdjson.h>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "json/canonical_digest.h"
#include "json/event_fields.h"
#include "json/splice_site.h"

namespace tracecompact {

class TapeReader {
 public:
  TapeReader();

  // Reads `text` (followed by simdjson::SIMDJSON_PADDING readable bytes) into
  // `fields` (cleared); false: the on-demand reader must read it. The raw
  // tokens of tid and args.stream point into `text` where pass 2 needs them
  // (GPU slices and annotations); other numbers have no raw token.
  bool read(std::string_view text, EventFields& fields);

  // The digest (json/canonical_digest.h) of the last event's canonical text
  // without the members `skips` names: an annotation's identity or a slice's
  // signature, as EventParser documents them.
  Hash128 event_digest(const json::EventDigestSkips& skips);

  // Where a merge splices the last event read (`text` and `fields` as given
  // to and read by read()), from the parse's structural indexes.
  SpliceSite splice_site(std::string_view text, const EventFields& fields) const;
  // Whether pass 2 may find the last event's pid and ts by their keys' text
  // (writer/top_level_fields.h, find_plain_pid_ts): both keys spelled
  // plainly, pid before ts, both before any object or array value, in an
  // event that is neither metadata nor a flow. The first "pid" key in the
  // text is then the top-level one, and the first "ts" after it.
  bool has_plain_pid_ts(std::string_view text, const EventFields& fields) const;

 private:
  // Where members sit among the last event's members (0, 1, ...): stage 1's
  // structural indexes put member m's value at 4m + 3 while no object or array
  // value comes before it (see splice_site()), which spares pass 1 a search of
  // the text for the tokens pass 2 splices. kNone: absent.
  struct MemberOrdinals {
    static constexpr uint32_t kNone = UINT32_MAX;
    uint32_t pid = kNone, tid = kNone, ts = kNone, args = kNone;
    uint32_t first_nested = kNone;    // the first member whose value is an object or array
    uint32_t stream_in_args = kNone;  // args.stream among args' members
    uint32_t first_nested_in_args = kNone;
  };
  void note_ordinal(const EventFields& f, const JsonScalar* slot, uint32_t member);
  bool tokens_from_ordinals(std::string_view text, EventFields& f) const;
  static constexpr size_t kNoNumber = SIZE_MAX;
  size_t number_offset(std::string_view text, size_t index) const;
  bool number_token(std::string_view text, size_t index, std::string_view& raw) const;
  template <size_t N>
  bool is_key_at(std::string_view text, size_t index, const char (&quoted_key)[N]) const;
  Hash128 digest(size_t at, size_t depth);
  Hash128 digest_object(size_t at, size_t depth, json::SkipKeys skip, json::SkipKeys args_skip);

  simdjson::dom::parser parser_;
  bool usable_ = false;  // the parser's buffers were allocated
  MemberOrdinals ordinals_;
  // Per nesting depth, the members of the object being digested (a deque:
  // growing keeps the outer levels in place).
  std::deque<json::ObjectDigest> objects_;
};

}  // namespace tracecompact
