#include "index/trace_metadata.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>

#include "json/event_parser.h"
#include "json/number_format.h"
#include "tracecompact/error.h"

namespace tracecompact {
namespace {

namespace od = simdjson::ondemand;

// Reads a value with on-demand; the caller has validated the text in pass 1.
class ValueReader {
 public:
  explicit ValueReader(std::string_view what) : what_(what) {}
  void check(simdjson::error_code error) const {
    if (error)
      fail_input("cannot read " + std::string(what_) + ": " + simdjson::error_message(error));
  }

 private:
  std::string_view what_;
};

// A key of distributedInfo the tool reads may appear once per object (spec 12).
void read_once(bool& seen, std::string_view key, std::string_view object) {
  if (seen)
    fail_input("the trace repeats the key \"" + std::string(key) + "\" in " + std::string(object));
  seen = true;
}

GroupRank group_rank(const JsonScalar& scalar) {
  if (scalar.is_int()) return GroupRank::integer(scalar.int_value);
  if (scalar.is_number()) return GroupRank::number(scalar.number);
  if (scalar.kind == JsonKind::kBool) return GroupRank::integer(scalar.boolean ? 1 : 0);
  return GroupRank::other();
}

// One pg_config group: its `ranks` when the group is named as a PP group.
bool read_group(od::value group_value, PPGroup& ranks, const ValueReader& reader) {
  od::object group;
  if (group_value.get_object().get(group)) return false;
  bool named_pp = false, has_ranks = false;
  bool seen_name = false, seen_desc = false, seen_ranks = false;
  // The group's fields are distributedInfo's too.
  auto once = [](bool& seen, std::string_view key) {
    read_once(seen, key, "a group of distributedInfo.pg_config");
  };
  for (auto field_result : group) {
    od::field field;
    reader.check(std::move(field_result).get(field));
    std::string_view key;
    reader.check(field.unescaped_key().get(key));
    od::value value = field.value();
    if (key == "pg_name") once(seen_name, key);
    if (key == "pg_desc") once(seen_desc, key);
    if (key == "ranks") once(seen_ranks, key);
    if (key == "pg_name" || key == "pg_desc") {
      JsonScalar scalar;
      reader.check(json::read_value(value, scalar, 2));
      named_pp |= key == "pg_name" ? scalar.is("torchtitan_real_pp") : scalar.is("mesh_pp");
    } else if (key == "ranks") {
      od::json_type type{};
      reader.check(value.type().get(type));
      if (type != od::json_type::array) {
        reader.check(json::validate(value, 2));
        continue;
      }
      has_ranks = true;
      ranks.clear();
      od::array array;
      reader.check(value.get_array().get(array));
      for (auto element_result : array) {
        od::value element;
        reader.check(std::move(element_result).get(element));
        // An integer of 2^64 or more is a Python int equal to no 64-bit rank.
        if (oversized_integer(json::trim_token(element.raw_json_token()))) {
          ranks.push_back(GroupRank::other());
          continue;
        }
        JsonScalar scalar;
        reader.check(json::read_value(element, scalar, 3));
        ranks.push_back(group_rank(scalar));
      }
    } else {
      reader.check(json::validate(value, 2));
    }
  }
  if (!has_ranks) ranks.clear();  // a PP group without a rank list matches nothing
  return named_pp;
}

// An empty string or object: Python's `for group in pg_config` walks it as
// an empty list.
bool walks_as_empty(od::value value, od::json_type type, const ValueReader& reader) {
  if (type == od::json_type::string) {
    std::string_view text;
    reader.check(value.get_string().get(text));
    return text.empty();
  }
  if (type == od::json_type::object) {
    od::object object;
    reader.check(value.get_object().get(object));
    size_t fields = 0;
    reader.check(object.count_fields().get(fields));
    return fields == 0;
  }
  return false;
}

void read_pg_config(od::value value, TraceMetadata& out, const ValueReader& reader) {
  od::json_type type{};
  reader.check(value.type().get(type));
  if (type != od::json_type::array) {
    if (!walks_as_empty(value, type, reader)) out.pg_config_invalid_after = 0;
    return;
  }
  od::array groups;
  reader.check(value.get_array().get(groups));
  for (auto group_result : groups) {
    od::value group;
    reader.check(std::move(group_result).get(group));
    reader.check(group.type().get(type));
    if (type != od::json_type::object) {
      out.pg_config_invalid_after = out.pp_groups.size();
      return;
    }
    PPGroup ranks;
    if (read_group(group, ranks, reader)) out.pp_groups.push_back(std::move(ranks));
  }
}

void read_distributed_info(std::string_view text, TraceMetadata& out) {
  const ValueReader reader("distributedInfo");
  EventParser parser;
  od::document document;
  reader.check(parser.raw_parser().iterate(parser.load(text)).get(document));
  od::json_type type{};
  reader.check(document.type().get(type));
  if (type != od::json_type::object) return;
  out.has_distributed_info = true;
  od::object object;
  reader.check(document.get_object().get(object));
  bool seen_rank = false, seen_backend = false, seen_pg_config = false;
  auto once = [](bool& seen, std::string_view key) { read_once(seen, key, "distributedInfo"); };
  for (auto field_result : object) {
    od::field field;
    reader.check(std::move(field_result).get(field));
    std::string_view key;
    reader.check(field.unescaped_key().get(key));
    od::value value = field.value();
    if (key == "rank") {
      once(seen_rank, key);
      JsonScalar scalar;
      reader.check(json::read_value(value, scalar, 1));
      if (scalar.is_int()) out.rank = scalar.int_value;
    } else if (key == "backend") {
      once(seen_backend, key);
      std::string canonical;
      reader.check(json::append_canonical(value, canonical, 1));
      out.backend_json = canonical;
    } else if (key == "pg_config") {
      once(seen_pg_config, key);
      read_pg_config(value, out, reader);
    } else {
      reader.check(json::validate(value, 1));
    }
  }
}

}  // namespace

TraceMetadata read_trace_metadata(const TraceIndex& index) {
  TraceMetadata out;
  out.source = index.display_name;
  if (const auto* base = index.find_top_level("baseTimeNanoseconds")) {
    int64_t value = 0;
    const std::string_view text = json::trim_token(base->text);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && ptr == text.data() + text.size())
      out.base_time_ns = value;
    else if (ec == std::errc::result_out_of_range && is_integer_token(text))
      out.base_time_beyond_int64 = std::string(text);
  }
  if (const auto* info = index.find_top_level("distributedInfo"))
    read_distributed_info(info->text, out);
  return out;
}

bool GroupRank::equals(int64_t rank) const {
  switch (kind_) {
    case Kind::kInteger:
      return integer_ == rank;
    case Kind::kNumber:
      // Exact, as Python compares an int with a float: only a whole number in
      // int64's range can equal it (2^63 itself is just outside).
      return std::trunc(number_) == number_ && number_ >= -0x1p63 && number_ < 0x1p63 &&
             static_cast<int64_t>(number_) == rank;
    case Kind::kOther:
      break;
  }
  return false;
}

std::optional<size_t> position_in_group(const PPGroup& group, int64_t rank) {
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i].equals(rank)) return i;
  return std::nullopt;
}

std::optional<size_t> find_pp_group(const TraceMetadata& metadata,
                                    const std::function<bool(const PPGroup&)>& wanted) {
  for (size_t i = 0;; ++i) {
    if (metadata.pg_config_invalid_after == i)
      fail_input("distributedInfo.pg_config must be a list of objects");
    if (i == metadata.pp_groups.size()) return std::nullopt;
    if (wanted(metadata.pp_groups[i])) return i;
  }
}

int64_t single_trace_pp_rank(const TraceMetadata& metadata) {
  if (!metadata.has_distributed_info || !metadata.rank) return 0;
  const int64_t rank = *metadata.rank;
  const auto group = find_pp_group(
      metadata, [&](const PPGroup& ranks) { return position_in_group(ranks, rank).has_value(); });
  return group ? static_cast<int64_t>(*position_in_group(metadata.pp_groups[*group], rank)) : 0;
}

}  // namespace tracecompact
