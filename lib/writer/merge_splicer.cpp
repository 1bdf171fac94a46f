#include "writer/merge_splicer.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "json/number_format.h"
#include "writer/top_level_fields.h"

namespace tracecompact {
namespace {

bool is_integer_text(std::string_view text) {
  if (!text.empty() && text[0] == '-') text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

bool is_number_text(std::string_view text) {
  return !text.empty() && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9'));
}

}  // namespace

bool MergeSplicer::write(std::string_view text, const EventEdit& edit, ValueSpan stream_span,
                         const MergeEdit& merge, FlowIdWriter& flow_ids, JsonOut& out) {
  if (edit.ts || edit.dur) return false;
  TopLevelFields fields;
  if (!locate_top_level_fields(text, fields, edit.tid.has_value())) return false;
  const std::string_view ph = fields.ph.found ? fields.ph.in(text) : std::string_view();
  if (ph.find('\\') != std::string_view::npos || ph == "\"M\"") return false;
  count_ = 0;
  used_ = 0;
  if (fields.id.found && is_flow_phase_token(ph)) {
    const std::string_view id = fields.id.in(text);
    if (!FlowIdRenumberer::is_plain_integer(id)) return false;
    flow_id_.assign(id);
    add(fields.id.at, fields.id.length, {}, true);
  }
  if (fields.pid.found && is_integer_text(fields.pid.in(text))) {
    int64_t pid = 0;
    const std::string_view token = fields.pid.in(text);
    const auto parsed = std::from_chars(token.data(), token.data() + token.size(), pid);
    if (parsed.ec != std::errc() || parsed.ptr != token.data() + token.size())
      return false;  // beyond int64: the full rewriter keeps such a pid as it is
    if (!last_pid_ || last_pid_->first != pid) {  // most events repeat the previous pid
      const auto mapped = merge.pid_map->find(pid);
      if (mapped == merge.pid_map->end()) return false;
      last_pid_ = *mapped;
    }
    add(fields.pid.at, fields.pid.length, integer_text(last_pid_->second));
  }
  if (fields.ts.found && is_number_text(fields.ts.in(text))) {
    const double shifted = read_number_token(fields.ts.in(text)) + merge.ts_offset;
    if (!std::isfinite(shifted)) return false;
    char* begin = digits_ + used_;
    char* end = write_round_trip(shifted, begin, digits_ + sizeof digits_);
    used_ = static_cast<size_t>(end - digits_);
    add(fields.ts.at, fields.ts.length, std::string_view(begin, static_cast<size_t>(end - begin)));
  }
  if (edit.tid) {
    if (!fields.tid.found) return false;
    add(fields.tid.at, fields.tid.length, integer_text(*edit.tid));
  }
  if (edit.stream) {
    if (!stream_span.valid()) return false;
    add(stream_span.at, stream_span.length, integer_text(*edit.stream));
  }
  std::sort(parts_, parts_ + count_, [](const Part& a, const Part& b) { return a.at < b.at; });
  out.raw_spliced(text, parts_, count_, [&](size_t i) {
    if (parts_[i].flow_id)
      flow_ids.put(flow_id_, out.stream());
    else
      out.stream().write(parts_[i].text.data(), parts_[i].text.size());
  });
  return true;
}

std::string_view MergeSplicer::integer_text(int64_t value) {
  char* begin = digits_ + used_;
  char* end = std::to_chars(begin, digits_ + sizeof digits_, value).ptr;
  used_ = static_cast<size_t>(end - digits_);
  return std::string_view(begin, static_cast<size_t>(end - begin));
}

}  // namespace tracecompact
