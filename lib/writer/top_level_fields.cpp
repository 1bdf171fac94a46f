#include "writer/top_level_fields.h"

#include <cstring>

#include "tokenizer/structure_scanner.h"

namespace tracecompact {
namespace {

inline bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

size_t skip_space(std::string_view text, size_t i) {
  while (i < text.size() && is_space(text[i])) ++i;
  return i;
}

// Index just past the closing quote of the string starting at `i` (a quote):
// memchr to each quote, which ends the string unless an odd run of backslashes
// precedes it (names and categories are long; this runs for every merged event).
size_t string_end(std::string_view text, size_t i) {
  const size_t begin = i + 1;
  for (size_t from = begin; from < text.size();) {
    const void* found = std::memchr(text.data() + from, '"', text.size() - from);
    if (!found) break;
    const size_t quote = static_cast<size_t>(static_cast<const char*>(found) - text.data());
    size_t backslashes = 0;
    while (quote - backslashes > begin && text[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote + 1;
    from = quote + 1;
  }
  return text.size();
}

size_t value_end(std::string_view text, size_t i) {
  const char c = text[i];
  if (c == '"') return string_end(text, i);
  if (c == '{' || c == '[') {
    ScanState state;
    return scan_to_value_end(text.data(), i, text.size(), state);
  }
  while (i < text.size() && text[i] != ',' && text[i] != '}' && !is_space(text[i])) ++i;
  return i;
}

bool has_all(const TopLevelFields& fields, std::string_view text, bool need_tid) {
  if (!fields.pid.found || !fields.ts.found || !fields.ph.found) return false;
  if (need_tid && !fields.tid.found) return false;
  return fields.id.found || !is_flow_phase_token(fields.ph.in(text));
}

}  // namespace

bool is_flow_phase_token(std::string_view ph) {
  return ph == "\"s\"" || ph == "\"t\"" || ph == "\"f\"";
}

bool locate_top_level_fields(std::string_view text, TopLevelFields& fields, bool need_tid) {
  fields = {};
  size_t i = skip_space(text, 1);  // past '{'
  while (i < text.size() && text[i] == '"') {
    const size_t key_end = string_end(text, i);
    const std::string_view key = text.substr(i + 1, key_end - i - 2);
    if (key.find('\\') != std::string_view::npos) return false;  // spelled with escapes
    i = skip_space(text, key_end);
    if (i >= text.size() || text[i] != ':') return false;
    i = skip_space(text, i + 1);
    const size_t end = value_end(text, i);
    FieldSpan* slot = nullptr;
    if (key == "pid")
      slot = &fields.pid;
    else if (key == "tid")
      slot = &fields.tid;
    else if (key == "ts")
      slot = &fields.ts;
    else if (key == "ph")
      slot = &fields.ph;
    else if (key == "id")
      slot = &fields.id;
    if (slot) {
      if (slot->found) return false;
      *slot = {i, end - i, true};
      if (has_all(fields, text, need_tid)) return true;
    }
    i = skip_space(text, end);
    if (i < text.size() && text[i] == ',') i = skip_space(text, i + 1);
  }
  return true;
}

}  // namespace tracecompact
