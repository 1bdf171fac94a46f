#include "index/trace_metadata.h"

#include <simdjson.h>

#include <charconv>

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

// One pg_config group: its `ranks` when the group is named as a PP group.
bool read_group(od::value group_value, std::vector<std::optional<double>>& ranks,
                const ValueReader& reader) {
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
        JsonScalar scalar;
        reader.check(json::read_value(element, scalar, 3));
        ranks.push_back(scalar.is_number() ? std::optional<double>(scalar.number) : std::nullopt);
      }
    } else {
      reader.check(json::validate(value, 2));
    }
  }
  if (!has_ranks) ranks.clear();  // a PP group without a rank list matches nothing
  return named_pp;
}

void read_pg_config(od::value value, TraceMetadata& out, const ValueReader& reader) {
  od::array groups;
  if (value.get_array().get(groups)) {
    out.pg_config_invalid = true;
    return;
  }
  for (auto group_result : groups) {
    od::value group;
    reader.check(std::move(group_result).get(group));
    od::json_type type{};
    reader.check(group.type().get(type));
    if (type != od::json_type::object) {
      out.pg_config_invalid = true;
      return;
    }
    std::vector<std::optional<double>> ranks;
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
  if (const auto* base = index.find_top_level("baseTimeNanoseconds")) {
    int64_t value = 0;
    const std::string_view text = json::trim_token(base->text);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && ptr == text.data() + text.size()) out.base_time_ns = value;
  }
  if (const auto* info = index.find_top_level("distributedInfo"))
    read_distributed_info(info->text, out);
  return out;
}

std::optional<size_t> position_in_group(const std::vector<std::optional<double>>& group,
                                        int64_t rank) {
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i] && *group[i] == static_cast<double>(rank)) return i;
  return std::nullopt;
}

void check_pg_config(const TraceMetadata& metadata) {
  if (metadata.pg_config_invalid) fail_input("distributedInfo.pg_config must be a list of objects");
}

int64_t single_trace_pp_rank(const TraceMetadata& metadata) {
  if (!metadata.has_distributed_info || !metadata.rank) return 0;
  check_pg_config(metadata);
  for (const auto& group : metadata.pp_groups)
    if (auto position = position_in_group(group, *metadata.rank))
      return static_cast<int64_t>(*position);
  return 0;
}

}  // namespace tracecompact
