#include "writer/top_level_fields.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "json/whitespace.h"
#include "tokenizer/structure_scanner.h"

#ifdef __AVX2__
#include <immintrin.h>
#endif

namespace tracecompact {
namespace {

size_t skip_space(std::string_view text, size_t i) {
  while (i < text.size() && is_json_whitespace(text[i])) ++i;
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
  while (i < text.size() && text[i] != ',' && text[i] != '}' && !is_json_whitespace(text[i])) ++i;
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

namespace {

#ifdef __AVX2__

enum class BlockScan { kFound, kByBytes, kFailed };

// Colons of a 64-byte block (the structure scanner's masks have the rest).
inline uint64_t colon_bits(const char* p) {
  const __m256i colon = _mm256_set1_epi8(':');
  auto bits = [&](const char* half) {
    const __m256i block = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(half));
    return static_cast<uint64_t>(
        static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(block, colon))));
  };
  return bits(p) | bits(p + 32) << 32;
}

// The slot of the key whose closing quote precedes the ':' at `colon`, or null.
// Without backslashes the key is the text back to the quote before it.
FieldSpan* key_slot(const char* p, size_t colon, TopLevelFields& fields) {
  size_t q = colon - 1;  // the key's closing quote, after optional whitespace
  while (q > 0 && is_json_whitespace(p[q])) --q;
  if (q < 4 || p[q] != '"') return nullptr;
  if (p[q - 3] == '"') {  // two letters
    const char a = p[q - 2], b = p[q - 1];
    if (a == 't' && b == 's') return &fields.ts;
    if (a == 'p' && b == 'h') return &fields.ph;
    if (a == 'i' && b == 'd') return &fields.id;
    return nullptr;
  }
  if (p[q - 4] == '"' && p[q - 2] == 'i' && p[q - 1] == 'd') {  // three letters
    if (p[q - 3] == 'p') return &fields.pid;
    if (p[q - 3] == 't') return &fields.tid;
  }
  return nullptr;
}

// Bits of the 32 bytes at `p` that can continue a JSON number (digits and
// . - + e E): in a validated event a number ends at the first byte without.
inline uint32_t number_char_bits(const char* p) {
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  __m256i number = _mm256_and_si256(_mm256_cmpgt_epi8(bytes, _mm256_set1_epi8('0' - 1)),
                                    _mm256_cmpgt_epi8(_mm256_set1_epi8('9' + 1), bytes));
  for (const char c : {'.', '-', '+', 'e', 'E'})
    number = _mm256_or_si256(number, _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(c)));
  return static_cast<uint32_t>(_mm256_movemask_epi8(number));
}

// The end of the string or scalar value at `at`; 0 when the byte scan should
// judge it (an object or array, or a backslash in the string).
size_t scalar_value_end(const char* p, size_t at, size_t n) {
  if (p[at] == '{' || p[at] == '[') return 0;
  if (p[at] == '-' || (p[at] >= '0' && p[at] <= '9')) {
    // pids, tids, timestamps and ids: one compare instead of a loop per byte
    // (a third of the scan's instructions); the text is followed by 64
    // readable bytes.
    const uint32_t ends = ~number_char_bits(p + at);
    if (ends != 0) return std::min(at + static_cast<size_t>(__builtin_ctz(ends)), n);
  }
  if (p[at] == '"') {
    for (size_t i = at + 1; i < n; ++i) {
      if (p[i] == '"') return i + 1;
      if (p[i] == '\\') return 0;
    }
    return 0;
  }
  size_t i = at;
  while (i < n && !ends_json_scalar(p[i])) ++i;
  return i;
}

// Walks the colons outside strings, 64 bytes at a time, keeping the depth from
// the brackets before each: a colon at depth 1 follows a top-level key. Any
// backslash before the scan stops hands the event to the byte scan.
BlockScan locate_by_blocks(std::string_view text, TopLevelFields& fields, bool need_tid) {
  fields = {};
  const char* p = text.data();
  const size_t n = text.size();
  bool in_string = false;
  int64_t depth = 0;
  for (size_t block = 0; block < n; block += 64) {
    const scan_detail::BlockMasks m = scan_detail::block_masks(p + block);
    const uint64_t colon = colon_bits(p + block);
    const uint64_t valid = n - block >= 64 ? ~uint64_t{0} : (uint64_t{1} << (n - block)) - 1;
    if (m.backslash & valid) return BlockScan::kByBytes;
    const uint64_t inside =
        scan_detail::prefix_xor(m.quote & valid) ^ (in_string ? ~uint64_t{0} : 0);
    in_string = (inside >> 63) != 0;
    const uint64_t outside = ~inside & valid;
    uint64_t brackets = (m.open | m.close) & outside;
    // Applies the brackets below `limit` (a single bit, or 0 for all of them);
    // false when the event's own closing brace is among them.
    auto apply_brackets = [&](uint64_t limit) {
      uint64_t before = limit ? brackets & (limit - 1) : brackets;
      brackets &= ~before;
      for (; before; before &= before - 1) {
        const int bit = __builtin_ctzll(before);
        if ((m.open >> bit) & 1) {
          ++depth;
        } else if (--depth == 0) {
          return false;
        }
      }
      return true;
    };
    for (uint64_t colons = colon & outside; colons; colons &= colons - 1) {
      const uint64_t colon_bit = colons & (~colons + 1);
      if (!apply_brackets(colon_bit)) return BlockScan::kFound;  // the event ended
      if (depth != 1) continue;
      const size_t at = block + static_cast<size_t>(__builtin_ctzll(colons));
      FieldSpan* slot = key_slot(p, at, fields);
      if (!slot) continue;
      if (slot->found) return BlockScan::kFailed;  // repeated: for a real parse
      size_t value = at + 1;
      while (value < n && is_json_whitespace(p[value])) ++value;
      if (value >= n) return BlockScan::kByBytes;
      const size_t end = scalar_value_end(p, value, n);
      if (end == 0) return BlockScan::kByBytes;
      *slot = {value, end - value, true};
      if (has_all(fields, text, need_tid)) return BlockScan::kFound;
    }
    if (!apply_brackets(0)) return BlockScan::kFound;
  }
  return BlockScan::kByBytes;  // no closing brace: let the byte scan judge
}

#endif

}  // namespace

// Any spelling, escapes included.
bool locate_top_level_fields_by_bytes(std::string_view text, TopLevelFields& fields,
                                      bool need_tid) {
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

namespace {

bool is_number_byte(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
}

// The number token starting at `at`; false if none starts there.
bool number_span_from(std::string_view text, size_t at, FieldSpan& span) {
  if (at >= text.size() || !(text[at] == '-' || (text[at] >= '0' && text[at] <= '9'))) return false;
  size_t end = at + 1;
#ifdef __AVX2__
  if (const uint32_t ends = ~number_char_bits(text.data() + at); ends != 0)
    end = std::min(at + static_cast<size_t>(__builtin_ctz(ends)), text.size());
  else
#endif
    while (end < text.size() && is_number_byte(text[end])) ++end;
  span = {at, end - at, true};
  return true;
}

// The same at a splice site's offset (kAbsentField: none to find).
bool number_span_at(std::string_view text, uint16_t at, FieldSpan& span) {
  return at == kAbsentField || number_span_from(text, at, span);
}

// The value after the first key spelled `quoted_key` (quotes included) at or
// after `i` that a colon follows, not counting one whose opening quote a
// backslash precedes (the end of a string with an escaped quote in it); n if
// none. In valid JSON a quote that opens a key never follows a backslash, and a
// string's own quotes are escaped, so the match is a key. 32 bytes at a time
// where AVX2 is there: the key sits after a long name.
template <size_t N>
size_t value_after_key(std::string_view text, size_t i, const char (&quoted_key)[N]) {
  constexpr size_t kLength = N - 1;  // without the literal's terminating zero
  const char* p = text.data();
  const size_t n = text.size();
  auto value_after = [&](size_t at) -> size_t {
    if (p[at - 1] == '\\') return n;
    const size_t colon = skip_space(text, at + kLength);
    if (colon >= n || p[colon] != ':') return n;
    return skip_space(text, colon + 1);
  };
#ifdef __AVX2__
  // The text is followed by 64 readable bytes: a load may reach past n.
  for (; i < n; i += 32) {
    __m256i hits = _mm256_set1_epi8(-1);
    for (size_t j = 0; j < kLength; ++j)
      hits = _mm256_and_si256(
          hits, _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + j)),
                                  _mm256_set1_epi8(quoted_key[j])));
    for (auto bits = static_cast<uint32_t>(_mm256_movemask_epi8(hits)); bits; bits &= bits - 1) {
      const size_t at = i + static_cast<size_t>(__builtin_ctz(bits));
      if (at + kLength > n) return n;
      if (const size_t value = value_after(at); value < n) return value;
    }
  }
  return n;
#else
  for (; i + kLength <= n; ++i)
    if (std::memcmp(p + i, quoted_key, kLength) == 0)
      if (const size_t value = value_after(i); value < n) return value;
  return n;
#endif
}

}  // namespace

bool find_plain_pid_ts(std::string_view text, FieldSpan& pid, FieldSpan& ts) {
  const size_t pid_at = value_after_key(text, 1, "\"pid\"");
  if (pid_at >= text.size() || !number_span_from(text, pid_at, pid)) return false;
  const size_t ts_at = value_after_key(text, pid_at + pid.length, "\"ts\"");
  return ts_at < text.size() && number_span_from(text, ts_at, ts);
}

bool splice_site_spans(std::string_view text, SpliceSite site, FieldSpan& pid, FieldSpan& ts) {
  return number_span_at(text, splice_site_pid(site), pid) &&
         number_span_at(text, splice_site_ts(site), ts);
}

bool locate_top_level_fields(std::string_view text, TopLevelFields& fields, bool need_tid) {
#ifdef __AVX2__
  switch (locate_by_blocks(text, fields, need_tid)) {
    case BlockScan::kFound:
      return true;
    case BlockScan::kFailed:
      return false;
    case BlockScan::kByBytes:
      break;
  }
#endif
  return locate_top_level_fields_by_bytes(text, fields, need_tid);
}

}  // namespace tracecompact
