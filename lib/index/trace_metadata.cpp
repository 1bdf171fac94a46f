#include "index/trace_metadata.h"

#include <simdjson.h>

#include "json/number_format.h"
#include "tracecompact/error.h"

namespace tracecompact {
namespace {

void read_pp_groups(simdjson::dom::element pg_config, TraceMetadata& out) {
  if (!pg_config.is_array()) {
    out.pg_config_invalid = true;
    return;
  }
  for (auto group : pg_config.get_array().value()) {
    if (!group.is_object()) {
      out.pg_config_invalid = true;
      return;
    }
    auto object = group.get_object().value();
    std::string_view name, desc;
    const bool named_pp = (object["pg_name"].get(name) == simdjson::SUCCESS && name == "torchtitan_real_pp") ||
                          (object["pg_desc"].get(desc) == simdjson::SUCCESS && desc == "mesh_pp");
    if (!named_pp) continue;
    simdjson::dom::array ranks;
    if (object["ranks"].get(ranks) != simdjson::SUCCESS) {
      out.pp_groups.emplace_back();  // a PP group without a rank list matches nothing
      continue;
    }
    std::vector<std::optional<double>> values;
    for (auto rank : ranks) {
      if (rank.is_number() && !rank.is_bool())
        values.emplace_back(rank.get_double().value());
      else
        values.emplace_back(std::nullopt);
    }
    out.pp_groups.push_back(std::move(values));
  }
}

}  // namespace

TraceMetadata read_trace_metadata(const TraceIndex& index) {
  TraceMetadata out;
  simdjson::dom::parser parser;
  if (const auto* base = index.find_top_level("baseTimeNanoseconds")) {
    auto element = parser.parse(base->text);
    if (!element.error() && is_integer_token(base->text) && element.value().is_int64())
      out.base_time_ns = element.value().get_int64().value();
  }
  const auto* info = index.find_top_level("distributedInfo");
  if (!info) return out;
  simdjson::dom::element root;
  if (parser.parse(info->text).get(root) != simdjson::SUCCESS || !root.is_object()) return out;
  out.has_distributed_info = true;
  auto object = root.get_object().value();
  // Keys the tool reads may not repeat (spec 12).
  for (std::string_view key : {"rank", "backend", "pg_config"}) {
    int seen = 0;
    for (auto field : object) seen += field.key == key;
    if (seen > 1)
      fail_input("the trace repeats the key \"" + std::string(key) + "\" in distributedInfo");
  }
  simdjson::dom::element rank;
  if (object["rank"].get(rank) == simdjson::SUCCESS) {
    const std::string raw = simdjson::minify(rank);
    if (rank.is_int64() && is_integer_token(raw)) out.rank = rank.get_int64().value();
  }
  simdjson::dom::element backend;
  if (object["backend"].get(backend) == simdjson::SUCCESS) out.backend_json = simdjson::minify(backend);
  simdjson::dom::element pg_config;
  if (object["pg_config"].get(pg_config) == simdjson::SUCCESS) read_pp_groups(pg_config, out);
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
    if (auto position = position_in_group(group, *metadata.rank)) return static_cast<int64_t>(*position);
  return 0;
}

}  // namespace tracecompact
