#include "writer/event_rewriter.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "json/number_format.h"
#include "tracecompact/error.h"

namespace tracecompact {

namespace od = simdjson::ondemand;

// The integer a canonical id text spells, if it is a plain one, so that text
// and number name each other one to one.
std::optional<int64_t> FlowIdRenumberer::integer_value(std::string_view text) {
  if (!is_plain_integer(text)) return std::nullopt;
  const size_t digits_at = text[0] == '-' ? 1 : 0;
  int64_t value = 0;
  for (size_t i = digits_at; i < text.size(); ++i) value = value * 10 + (text[i] - '0');
  return digits_at ? -value : value;
}

bool FlowIdRenumberer::is_plain_integer(std::string_view text) {
  const size_t digits_at = !text.empty() && text[0] == '-' ? 1 : 0;
  const size_t digits = text.size() - digits_at;
  if (digits == 0 || digits > 18) return false;
  if (text[digits_at] == '0' && (digits > 1 || digits_at == 1)) return false;
  return is_integer_text(text);
}

uint64_t FlowIdRenumberer::renumber(const std::string& canonical_id) {
  if (const auto number = integer_value(canonical_id)) return renumber_integer(*number);
  const auto [entry, added] = other_ids_.try_emplace(canonical_id, 0);
  if (added) entry->second = take_next();
  return entry->second;
}

uint64_t FlowIdRenumberer::renumber_integer(int64_t id) {
  if (window_.empty()) window_base_ = id;
  // Below the base the difference wraps to a large offset: outside the window.
  uint64_t offset = static_cast<uint64_t>(id) - static_cast<uint64_t>(window_base_);
  if (offset < window_.size() || widen_window(id)) {
    offset = static_cast<uint64_t>(id) - static_cast<uint64_t>(window_base_);
    uint32_t& slot = window_[offset];
    if (slot != 0) return first_id_ + slot - 1;
    if (count_ < UINT32_MAX - 2) {
      slot = static_cast<uint32_t>(take_next() - first_id_ + 1);
      return first_id_ + slot - 1;
    }
  }
  const auto [entry, added] = integer_ids_.try_emplace(id, 0);
  if (added) entry->second = take_next();
  return entry->second;
}

// Widens the window, up or down, to hold `id` when it then stays within a few
// slots per id numbered (at most 32 bytes per id, 64 while the old window is
// copied), and moves the ids that the hash table held for the slots it gains.
// It grows by half at least: each widening copies the window and scans the
// hash table, so sparse ids wait in the table for a widening worth its cost.
bool FlowIdRenumberer::widen_window(int64_t id) {
  constexpr uint64_t kSlotsPerId = 8, kAlwaysAllowed = 1 << 16;
  if (count_ >= UINT32_MAX - 2) return false;  // slots hold the number + 1 in 32 bits
  const uint64_t allowed = kAlwaysAllowed + kSlotsPerId * count_;
  const uint64_t old_size = window_.size();
  const uint64_t base = static_cast<uint64_t>(window_base_), at = static_cast<uint64_t>(id);
  const bool below = id < window_base_;
  const uint64_t distance = below ? base - at : at - base;
  if (distance >= allowed) return false;
  const uint64_t needed = below ? distance + old_size : distance + 1;
  if (needed > allowed) return false;
  // Room to spare beyond `id`, as far as int64 reaches.
  const uint64_t room =
      below ? at - static_cast<uint64_t>(INT64_MIN) : static_cast<uint64_t>(INT64_MAX) - at;
  const uint64_t wanted = std::min(std::max<uint64_t>({2 * old_size, 4096, needed}), allowed);
  const uint64_t size = needed + std::min(wanted - needed, room);
  if (old_size != 0 && size < old_size + old_size / 2) return false;
  ++widenings_;
  const uint64_t new_base = below ? base + old_size - size : base;
  std::vector<uint32_t> widened(size);
  std::copy(window_.begin(), window_.end(), widened.begin() + (base - new_base));
  for (auto entry = integer_ids_.begin(); entry != integer_ids_.end();) {
    const uint64_t slot = static_cast<uint64_t>(entry->first) - new_base;
    if (slot < size) {
      widened[slot] = static_cast<uint32_t>(entry->second - first_id_ + 1);
      entry = integer_ids_.erase(entry);
    } else {
      ++entry;
    }
  }
  window_.swap(widened);
  window_base_ = static_cast<int64_t>(new_base);
  return true;
}

namespace {

void write_id(uint64_t id, OutputStream& stream) {
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof digits, id).ptr;
  stream.write(digits, static_cast<size_t>(end - digits));
}

}  // namespace

void NumberingFlowIdWriter::put(const std::string& canonical_id, OutputStream& stream) {
  write_id(ids_.renumber(canonical_id), stream);
}

void NumberingFlowIdWriter::put_integer(int64_t id, OutputStream& stream) {
  write_id(ids_.renumber_integer(id), stream);
}

void write_time(JsonOut& out, double value) {
  if (!std::isfinite(value)) fail_input("a computed time is not a finite number");
  out.number(value);
}

namespace {

[[noreturn]] void fail_json(simdjson::error_code error, const EventOrigin& origin) {
  fail_input("invalid JSON in event " + std::to_string(origin.index) + " (byte offset " +
             std::to_string(origin.byte_offset) + "): " + simdjson::error_message(error));
}

// Raw text and kind of a field's value; scalars are also read.
simdjson::error_code read_raw(od::value value, std::string_view& raw, JsonKind& kind,
                              JsonScalar& scalar) {
  od::json_type type;
  if (auto e = value.type().get(type)) return e;
  if (type == od::json_type::object) {
    kind = JsonKind::kObject;
    od::object object;
    if (auto e = value.get_object().get(object)) return e;
    return object.raw_json().get(raw);
  }
  if (type == od::json_type::array) {
    kind = JsonKind::kArray;
    od::array array;
    if (auto e = value.get_array().get(array)) return e;
    return array.raw_json().get(raw);
  }
  raw = json::trim_token(value.raw_json_token());
  if (auto e = json::read_value(value, scalar, 1)) return e;
  kind = scalar.kind;
  return simdjson::SUCCESS;
}

}  // namespace

void EventRewriter::collect(std::string_view text, const EventOrigin& origin) {
  fields_.clear();
  auto& parser = parser_.raw_parser();
  od::document document;
  if (auto e = parser.iterate(parser_.load(text)).get(document)) fail_json(e, origin);
  od::object object;
  if (auto e = document.get_object().get(object)) fail_json(e, origin);
  for (auto field_result : object) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) fail_json(e, origin);
    Field entry{};
    if (auto e = field.unescaped_key().get(entry.key)) fail_json(e, origin);
    if (auto e = read_raw(field.value(), entry.raw, entry.kind, entry.scalar)) fail_json(e, origin);
    fields_.push_back(entry);
  }
}

std::string EventRewriter::canonical_of(const Field& field) {
  std::string text;
  const std::string wrapped = "[" + std::string(field.raw) + "]";
  auto& parser = id_parser_.raw_parser();
  od::document document;
  od::array array;
  if (parser.iterate(id_parser_.load(wrapped)).get(document) || document.get_array().get(array))
    fail_input("invalid flow id");
  for (auto element : array) {
    od::value value;
    if (std::move(element).get(value) || json::append_canonical(value, text, 1))
      fail_input("invalid flow id");
  }
  return text;
}

void EventRewriter::write_args(std::string_view raw, const EventOrigin& origin,
                               const EventEdit& edit, std::string_view name_prefix, JsonOut& out) {
  auto& parser = args_parser_.raw_parser();
  od::document document;
  if (auto e = parser.iterate(args_parser_.load(raw)).get(document)) fail_json(e, origin);
  od::object object;
  if (auto e = document.get_object().get(object)) fail_json(e, origin);
  out.start_object();
  for (auto field_result : object) {
    od::field field;
    std::string_view key, value_raw;
    JsonKind kind;
    JsonScalar scalar;
    if (auto e = std::move(field_result).get(field)) fail_json(e, origin);
    if (auto e = field.unescaped_key().get(key)) fail_json(e, origin);
    if (auto e = read_raw(field.value(), value_raw, kind, scalar)) fail_json(e, origin);
    out.key(key);
    if (key == "stream" && edit.stream) {
      out.integer(*edit.stream);
    } else if (key == "name" && !name_prefix.empty() && scalar.is_string()) {
      std::string prefixed(name_prefix);
      prefixed += scalar.text;
      out.string(prefixed);
    } else {
      out.raw(value_raw);
    }
  }
  out.end_object();
}

bool EventRewriter::write(std::string_view text, const EventOrigin& origin, const EventEdit& edit,
                          const MergeEdit* merge, JsonOut& out) {
  collect(text, origin);
  const Field* ph = nullptr;
  const Field* name = nullptr;
  bool has_id = false;
  for (const auto& f : fields_) {
    if (f.key == "ph") ph = &f;
    if (f.key == "name") name = &f;
    if (f.key == "id") has_id = true;
  }
  const bool metadata = ph && ph->scalar.is("M");
  std::string_view name_prefix;
  if (merge) {
    if (metadata && name && name->scalar.is("process_sort_index")) return false;
    if (metadata && name && (name->scalar.is("process_name") || name->scalar.is("thread_name")))
      name_prefix = merge->name_prefix;
  }
  const bool renumber_id = merge && has_id && ph && is_flow_phase(ph->scalar);

  out.start_object();
  for (const auto& f : fields_) {
    out.key(f.key);
    if (f.key == "tid" && edit.tid) {
      out.integer(*edit.tid);
    } else if (f.key == "ts" && (edit.ts || (merge && f.scalar.is_number()))) {
      const double base = edit.ts ? *edit.ts : f.scalar.number;
      write_time(out, merge ? base + merge->ts_shift.offset_us : base);
    } else if (f.key == "dur" && edit.dur) {
      write_time(out, *edit.dur);
    } else if (f.key == "pid" && merge && f.scalar.is_int()) {
      out.integer(merge->pid_map->at(f.scalar.int_value));
    } else if (f.key == "id" && renumber_id) {
      if (!flow_ids_) throw std::logic_error("merge mode without a flow id writer");
      flow_ids_->write(canonical_of(f), out);
    } else if (f.key == "args" && f.kind == JsonKind::kObject &&
               (edit.stream || !name_prefix.empty())) {
      write_args(f.raw, origin, edit, name_prefix, out);
    } else {
      out.raw(f.raw);
    }
  }
  out.end_object();
  return true;
}

}  // namespace tracecompact
