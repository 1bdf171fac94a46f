// Locates a few top-level fields of an already validated event by scanning its
// text, without a parse: enough for merge mode to splice pid and ts in place.
#pragma once

#include <cstddef>
#include <string_view>

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

// False when the event needs a real parse: an escaped key, or a repeated key of
// interest. `text` must be followed by the tokenizer's slack (64 readable bytes).
bool locate_top_level_fields(std::string_view text, TopLevelFields& fields);

}  // namespace tracecompact
