// The quick way to read an event. simdjson's DOM parser validates the whole
// event in one tight pass (about twice as fast here as visiting every value
// on demand), and the fields the spec reads are taken off its tape. Anything
// out of the ordinary is left to the on-demand reader (EventParser), which
// reads it as before and reports faults with their position: an event the DOM
// parser refuses (a fault, an integer beyond 64 bits, deep nesting, a large
// event), a key the spec reads given twice, or an escaped key on the way to a
// token that pass 2 splices. Both readers give the same fields and canonical
// texts (tests/unit/tape_reader_test.cpp compares them).
#pragma once

#include <simdjson.h>

#include <deque>
#include <string>
#include <string_view>
#include <vector>

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

  // The canonical texts of the last event read, as json::append_canonical_event
  // and append_canonical_slice write them.
  void append_annotation_identity(std::string& out);
  void append_slice_signature(std::string& out);

  // Where a merge splices the last event read (`text` and `fields` as given
  // to and read by read()), from the parse's structural indexes.
  SpliceSite splice_site(std::string_view text, const EventFields& fields) const;

 private:
  struct Member {
    std::string_view key;
    size_t value_at;  // its canonical value in values_[depth]
    size_t value_length;
  };
  static constexpr uint32_t kNeedsTape = 0x10000;  // beyond any SpliceSite
  uint32_t splice_site_by_text(std::string_view text, bool has_ts) const;
  SpliceSite splice_site_by_tape(std::string_view text, const EventFields& fields) const;
  void append_canonical(size_t at, std::string& out, size_t depth);
  void append_canonical_object(size_t at, std::string& out, size_t depth,
                               const std::string_view* skip, size_t skip_count,
                               const std::string_view* args_skip, size_t args_skip_count);

  simdjson::dom::parser parser_;
  bool usable_ = false;  // the parser's buffers were allocated
  // Canonical texts: per nesting depth, the members of the object being written
  // and their canonical values (deques: growing keeps the outer levels in place).
  std::deque<std::vector<Member>> members_;
  std::deque<std::string> values_;
};

}  // namespace tracecompact
