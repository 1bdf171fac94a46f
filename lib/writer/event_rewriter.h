// Writes one event, changing only the fields a plan says to change and copying
// every other key/value raw (spec 0: unchanged values keep their text).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "json/event_fields.h"
#include "json/event_parser.h"
#include "json/number_format.h"
#include "writer/json_writer.h"

namespace tracecompact {

// Edits from the compaction plan (spec 5, 6).
struct EventEdit {
  std::optional<int64_t> tid;     // new tid
  std::optional<int64_t> stream;  // new args.stream
  std::optional<double> ts;       // new ts/dur, written as floats
  std::optional<double> dur;
};

// Renumbers flow ids of one rank in order of first appearance (spec 11).
class FlowIdRenumberer {
 public:
  explicit FlowIdRenumberer(uint64_t first_id) : first_id_(first_id) {}
  uint64_t renumber(const std::string& canonical_id);
  // The same for an id that is a plain integer: `id` is what `integer_value`
  // read (so below 10^18 in magnitude; a 19-digit id is a text id).
  uint64_t renumber_integer(int64_t id);
  // How often the window was widened: a few times per doubling of the ids.
  uint64_t window_widenings() const { return widenings_; }
  // Whether an id token is a plain integer ("0", or an optional '-' and up to
  // 18 digits without leading zeros): then its text is its canonical text.
  static bool is_plain_integer(std::string_view text);
  // The integer a plain integer's text spells; nothing for any other text.
  static std::optional<int64_t> integer_value(std::string_view text);

 private:
  uint64_t take_next() { return first_id_ + count_++; }
  bool widen_window(int64_t id);

  uint64_t first_id_;
  uint64_t count_ = 0;  // ids numbered so far
  uint64_t widenings_ = 0;
  // Ids are integers in practice, and Kineto's are correlation ids: dense and
  // close together. A window of them around the first one seen is numbered
  // through a direct table (number - first_id + 1; 0: not seen), at most a few
  // slots per id; integers outside it go to a hash table, other ids by text.
  int64_t window_base_ = 0;
  std::vector<uint32_t> window_;
  std::unordered_map<int64_t, uint64_t> integer_ids_;
  std::unordered_map<std::string, uint64_t> other_ids_;
};

// Writes the merged id of a flow event, given its canonical id text.
class FlowIdWriter {
 public:
  virtual ~FlowIdWriter() = default;
  // The id as a bare number at the stream's position (inside a spliced event).
  virtual void put(const std::string& canonical_id, OutputStream& stream) = 0;
  // The same for a plain integer id (FlowIdRenumberer::integer_value), already read.
  virtual void put_integer(int64_t id, OutputStream& stream) = 0;
  // The id as the value of the key just written.
  void write(const std::string& canonical_id, JsonOut& out) {
    out.begin_raw_value();
    put(canonical_id, out.stream());
  }
};

// Numbers ids as they are written, for events written in order.
class NumberingFlowIdWriter final : public FlowIdWriter {
 public:
  explicit NumberingFlowIdWriter(FlowIdRenumberer& ids) : ids_(ids) {}
  void put(const std::string& canonical_id, OutputStream& stream) override;
  void put_integer(int64_t id, OutputStream& stream) override;

 private:
  FlowIdRenumberer& ids_;
};

// Edits every event of one rank gets in merge mode (spec 11).
struct MergeEdit {
  const std::unordered_map<int64_t, int64_t>* pid_map = nullptr;
  TimestampShift ts_shift;
  uint64_t first_flow_id = 0;  // the rank's flow ids are numbered from here
  std::string name_prefix;     // "PP rank <r> | "
};

class EventRewriter {
 public:
  // `flow_ids` writes the ids of flow events in merge mode.
  explicit EventRewriter(FlowIdWriter* flow_ids = nullptr) : flow_ids_(flow_ids) {}

  // Writes the event; returns false when merge mode drops it (process_sort_index).
  bool write(std::string_view text, const EventOrigin& origin, const EventEdit& edit,
             const MergeEdit* merge, JsonOut& out);

 private:
  struct Field {
    std::string_view key;  // unescaped
    std::string_view raw;  // the value's JSON text
    JsonScalar scalar;     // for scalars
    JsonKind kind;
  };
  void collect(std::string_view text, const EventOrigin& origin);
  void write_args(std::string_view raw, const EventOrigin& origin, const EventEdit& edit,
                  std::string_view name_prefix, JsonOut& out);
  std::string canonical_of(const Field& field);

  FlowIdWriter* flow_ids_;
  EventParser parser_;       // owns the padded copy of the event
  EventParser args_parser_;  // a second document for args that need editing
  EventParser id_parser_;
  std::vector<Field> fields_;
};

// Writes a computed double; fails if it is not finite (JSON has no Infinity).
void write_time(JsonOut& out, double value);

}  // namespace tracecompact
