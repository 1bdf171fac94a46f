// Parses one event (a JSON object delimited by the tokenizer), fully validated
// (strict RFC 8259: no NaN/Infinity, valid UTF-8, numbers in double range),
// keeping only the fields the spec reads: off simdjson's DOM tape where it can
// (json/tape_reader.h), else with simdjson on-demand, visiting every value,
// which also reports a fault with its position.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json/canonical_digest.h"
#include "json/event_fields.h"
#include "json/splice_site.h"
#include "json/tape_reader.h"

namespace tracecompact {

// Where an event came from, for error messages.
struct EventOrigin {
  uint64_t index = 0;        // event index in traceEvents
  uint64_t byte_offset = 0;  // offset of its '{' in the (decompressed) input
};

class EventParser {
 public:
  // kOnDemand: every event read on demand (tests compare the two readers).
  enum class Reader { kQuick, kOnDemand };
  explicit EventParser(Reader reader = Reader::kQuick);

  // Parses and validates `text`; the result stays valid until the next call.
  const EventFields& parse(std::string_view text, const EventOrigin& origin);
  // Same, in place: `text` must be followed by simdjson::SIMDJSON_PADDING
  // readable bytes (views from TraceTokenizer are).
  const EventFields& parse_in_place(std::string_view text, const EventOrigin& origin);

  // Digest (json/canonical_digest.h) of the canonical text (spec 0) of the last
  // parsed event without the keys ts, dur and tid: the identity of an
  // annotation up to its track and interval.
  Hash128 annotation_identity();

  // Digest of the canonical text of the last parsed slice without pid, tid, ts
  // and args.stream: what compaction (and merge alignment) must leave unchanged.
  Hash128 slice_signature();

  // Validates a standalone JSON value (a top-level value of the trace).
  void validate_value(std::string_view text, std::string_view what);

  // Where a merge splices the last event (kNoSpliceSite unless read off the tape).
  SpliceSite splice_site() const {
    return from_tape_ ? tape_.splice_site(document_text_, fields_) : kNoSpliceSite;
  }

  // Whether pass 2 may find the last event's pid and ts by their keys' text
  // (TapeReader::has_plain_pid_ts; false unless read off the tape).
  bool has_plain_pid_ts() const {
    return from_tape_ && tape_.has_plain_pid_ts(document_text_, fields_);
  }

  // The last event was read off the DOM tape (not on demand).
  bool read_quickly() const { return from_tape_; }
  // The last event read again, on demand: numbers then have their raw tokens,
  // which fault messages quote (the tape keeps only tid's and args.stream's).
  const EventFields& read_again_on_demand();

  simdjson::ondemand::parser& raw_parser() { return parser_; }
  // Offset of a view into the last parsed event's text (e.g. JsonScalar::raw).
  size_t offset_of(std::string_view view) const {
    return static_cast<size_t>(view.data() - document_text_.data());
  }
  simdjson::padded_string_view load(std::string_view text);

 private:
  // `quick`: off the tape where the tape reader can.
  const EventFields& parse_document(simdjson::padded_string_view text, const EventOrigin& origin,
                                    bool quick);
  void read_fields(simdjson::ondemand::object object);
  void read_args(simdjson::ondemand::value value);
  void refuse_oversized_integers() const;
  Hash128 canonical_digest(const json::EventDigestSkips& skips);
  [[noreturn]] void fail(simdjson::error_code error) const;

  simdjson::ondemand::parser parser_;
  std::vector<char> buffer_;  // padded copy of the event, reused
  simdjson::ondemand::document document_;
  bool document_ready_ = false;     // iterate() succeeded: positions can be asked
  std::string_view document_text_;  // the text being parsed (copy or in place)
  EventFields fields_;
  EventOrigin origin_;
  const bool quick_;  // Reader::kQuick
  TapeReader tape_;
  bool from_tape_ = false;  // the last event was read off the tape
};

// Helpers shared with the rewriter and the verifier.
namespace json {

// Reads any scalar into `out`; objects/arrays are validated and only their kind kept.
simdjson::error_code read_value(simdjson::ondemand::value value, JsonScalar& out, int depth);
// A field's key, in place unless it has escapes (then unescaped, which checks them).
simdjson::error_code read_key(simdjson::ondemand::field& field, std::string_view& key);
// Visits every part of a value so that on-demand validates all of it.
simdjson::error_code validate(simdjson::ondemand::value value, int depth);
// Appends the canonical text of a value (keys sorted, last duplicate wins).
simdjson::error_code append_canonical(simdjson::ondemand::value value, std::string& out, int depth);
// The digest (json/canonical_digest.h) of an event's canonical text without
// the members `skips` names, without writing the text.
simdjson::error_code digest_canonical_event(simdjson::ondemand::object object,
                                            const EventDigestSkips& skips, Hash128& out);
std::string_view trim_token(std::string_view token);

constexpr int kMaxDepth = 512;

}  // namespace json
}  // namespace tracecompact
