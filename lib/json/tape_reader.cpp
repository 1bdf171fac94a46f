#include "json/tape_reader.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#ifdef __AVX2__
#include <immintrin.h>
#endif

#include "json/number_format.h"
#include "json/whitespace.h"

namespace tracecompact {
namespace {

using simdjson::internal::tape_ref;
using simdjson::internal::tape_type;

// Larger events go to the on-demand reader: the DOM parser's buffers grow to
// the largest document (about 10 bytes per byte), which must stay small.
constexpr size_t kLargestEvent = size_t{64} << 10;
// Deeper events go to the on-demand reader, which applies the nesting limit
// (json::kMaxDepth) and reports it.
constexpr size_t kDeepestEvent = 64;

// Just past the scalar (number or literal) that starts at `at`.
size_t scalar_end(std::string_view text, size_t at) {
  while (at < text.size() && !ends_json_scalar(text[at])) ++at;
  return at;
}

// Finding a member's raw value in the text of a valid object. Returns false
// where the answer is unsure (a key with an escape could spell the key sought).
class MemberFinder {
 public:
  explicit MemberFinder(std::string_view text) : text_(text) {}

  // The raw value of `key` in the object starting at `at` (empty if absent).
  bool find(size_t at, std::string_view key, std::string_view& value) {
    value = {};
    size_t i = at + 1;  // past '{'
    for (;;) {
      skip_space(i);
      if (i >= text_.size() || text_[i] != '"') return i < text_.size() && text_[i] == '}';
      const size_t key_begin = i + 1;
      size_t key_end = key_begin;
      while (key_end < text_.size() && text_[key_end] != '"' && text_[key_end] != '\\') ++key_end;
      if (key_end >= text_.size() || text_[key_end] == '\\') return false;
      i = key_end + 1;
      skip_space(i);
      if (i >= text_.size() || text_[i] != ':') return false;
      ++i;
      skip_space(i);
      const size_t value_begin = i;
      if (!skip_value(i)) return false;
      if (text_.substr(key_begin, key_end - key_begin) == key) {
        value = text_.substr(value_begin, i - value_begin);
        return true;
      }
      skip_space(i);
      if (i < text_.size() && text_[i] == ',') {
        ++i;
        continue;
      }
      return i < text_.size() && text_[i] == '}';
    }
  }

 private:
  void skip_space(size_t& i) const {
    while (i < text_.size() && is_json_whitespace(text_[i])) ++i;
  }
  // Past the closing quote of the string whose opening quote is at i.
  bool skip_string(size_t& i) const {
    size_t at = i + 1;
    for (;;) {
      const void* quote = std::memchr(text_.data() + at, '"', text_.size() - at);
      if (!quote) return false;
      const size_t q = static_cast<size_t>(static_cast<const char*>(quote) - text_.data());
      size_t backslashes = 0;
      while (q - backslashes > at && text_[q - backslashes - 1] == '\\') ++backslashes;
      if (backslashes % 2 == 0) {
        i = q + 1;
        return true;
      }
      at = q + 1;
    }
  }
  bool skip_value(size_t& i) const {
    if (i >= text_.size()) return false;
    const char first = text_[i];
    if (first == '"') return skip_string(i);
    if (first == '{' || first == '[') {
      size_t depth = 0;
      while (i < text_.size()) {
        const char c = text_[i];
        if (c == '"') {
          if (!skip_string(i)) return false;
          continue;
        }
        if (c == '{' || c == '[') ++depth;
        if ((c == '}' || c == ']') && --depth == 0) {
          ++i;
          return true;
        }
        ++i;
      }
      return false;
    }
    i = scalar_end(text_, i);
    return true;
  }

  std::string_view text_;
};

// The raw scalar value of the only member named `quoted_key` in a text
// without a backslash, told the places where it may start one by one.
class OnlyMember {
 public:
  explicit OnlyMember(std::string_view quoted_key) : key_(quoted_key) {}
  void visit(std::string_view text, size_t at) {
    if (text.compare(at, key_.size(), key_) != 0) return;
    size_t p = at + key_.size();
    while (p < text.size() && is_json_whitespace(text[p])) ++p;
    if (p == text.size() || text[p] != ':') return;  // a string value, not a key
    ++p;
    while (p < text.size() && is_json_whitespace(text[p])) ++p;
    const size_t end = scalar_end(text, p);
    if (!value_.empty() || end == p) ambiguous_ = true;
    value_ = text.substr(p, end - p);
  }
  // False if there is none or more than one (or its value is no scalar).
  bool found(std::string_view& value) const {
    value = value_;
    return !ambiguous_ && !value_.empty();
  }

 private:
  std::string_view key_;
  std::string_view value_;
  bool ambiguous_ = false;
};

enum class KeyScan { kDone, kBackslash };

// One pass over `text` for the candidates of "tid" and of "stream" (a quote, the
// key's first letter, and a quote where the key ends), 32 positions at a time;
// stops at the first backslash, after which a quote may not delimit a string.
// `text` is followed by readable padding.
KeyScan scan_tid_and_stream(std::string_view text, OnlyMember* tid, OnlyMember* stream) {
  constexpr size_t kTidEnd = 4, kStreamEnd = 7;  // the closing quote of "tid" / "stream"
  const size_t size = text.size();
  size_t i = 0;
#ifdef __AVX2__
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i t = _mm256_set1_epi8('t');
  const __m256i s = _mm256_set1_epi8('s');
  for (; i < size; i += 32) {
    auto at = [&](size_t offset) {
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text.data() + i + offset));
    };
    auto bits = [](__m256i hits) { return static_cast<uint32_t>(_mm256_movemask_epi8(hits)); };
    const uint32_t valid = size - i >= 32 ? ~uint32_t{0} : (uint32_t{1} << (size - i)) - 1;
    const __m256i first = at(0);
    if (bits(_mm256_cmpeq_epi8(first, backslash)) & valid) return KeyScan::kBackslash;
    const __m256i opens = _mm256_cmpeq_epi8(first, quote);
    const __m256i second = at(1);
    uint32_t tids =
        tid ? bits(_mm256_and_si256(_mm256_and_si256(opens, _mm256_cmpeq_epi8(second, t)),
                                    _mm256_cmpeq_epi8(at(kTidEnd), quote)))
            : 0;
    uint32_t streams =
        stream ? bits(_mm256_and_si256(_mm256_and_si256(opens, _mm256_cmpeq_epi8(second, s)),
                                       _mm256_cmpeq_epi8(at(kStreamEnd), quote)))
               : 0;
    for (; tids; tids &= tids - 1) {
      const size_t candidate = i + static_cast<size_t>(__builtin_ctz(tids));
      if (candidate + kTidEnd < size) tid->visit(text, candidate);
    }
    for (; streams; streams &= streams - 1) {
      const size_t candidate = i + static_cast<size_t>(__builtin_ctz(streams));
      if (candidate + kStreamEnd < size) stream->visit(text, candidate);
    }
  }
#else
  for (; i < size; ++i) {
    if (text[i] == '\\') return KeyScan::kBackslash;
    if (text[i] != '"' || i + 1 >= size) continue;
    if (tid && text[i + 1] == 't' && i + kTidEnd < size && text[i + kTidEnd] == '"')
      tid->visit(text, i);
    if (stream && text[i + 1] == 's' && i + kStreamEnd < size && text[i + kStreamEnd] == '"')
      stream->visit(text, i);
  }
#endif
  return KeyScan::kDone;
}

// A scalar as the on-demand reader has it (objects and arrays: their kind).
void read_scalar(const tape_ref& value, JsonScalar& out) {
  switch (value.tape_ref_type()) {
    case tape_type::STRING:
      out.kind = JsonKind::kString;
      out.text = value.get_string_view();
      break;
    case tape_type::INT64:
      out.kind = JsonKind::kNumber;
      out.integer = true;
      out.int_value = value.next_tape_value<int64_t>();
      out.number = static_cast<double>(out.int_value);
      break;
    case tape_type::UINT64:  // beyond int64: a number, not an integer (spec 0)
      out.kind = JsonKind::kNumber;
      out.integer = false;
      out.int_value = 0;
      out.beyond_int64 = value.next_tape_value<uint64_t>();
      out.number = static_cast<double>(out.beyond_int64);
      break;
    case tape_type::DOUBLE:
      out.kind = JsonKind::kNumber;
      out.integer = false;
      out.int_value = 0;
      out.number = value.next_tape_value<double>();
      break;
    case tape_type::TRUE_VALUE:
    case tape_type::FALSE_VALUE:
      out.kind = JsonKind::kBool;
      out.boolean = value.tape_ref_type() == tape_type::TRUE_VALUE;
      break;
    case tape_type::NULL_VALUE:
      out.kind = JsonKind::kNull;
      break;
    case tape_type::START_OBJECT:
      out.kind = JsonKind::kObject;
      break;
    default:
      out.kind = JsonKind::kArray;
      break;
  }
}

// Events whose tid (and args.stream) tokens pass 1 records for pass 2.
bool needs_tokens(const EventFields& f) {
  if (!f.cat.is_string()) return false;
  const std::string_view cat = f.cat.text;
  return cat == "kernel" || cat == "Kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" ||
         cat == "cuda_sync" || cat == "gpu_user_annotation";
}

}  // namespace

TapeReader::TapeReader() {
  // The nesting limit stays with the parser as its buffers grow. Should the
  // allocation fail, every event goes to the on-demand reader.
  usable_ = parser_.allocate(size_t{4} << 10, kDeepestEvent) == simdjson::SUCCESS;
}

namespace {

// An object or array value, which moves the structural places of the members after it.
bool is_container(JsonKind kind) {
  return kind == JsonKind::kObject || kind == JsonKind::kArray;
}
bool is_container(const tape_ref& value) {
  const auto type = value.tape_ref_type();
  return type == tape_type::START_OBJECT || type == tape_type::START_ARRAY;
}

// Metadata ("M") and flow phases: pass 2 reads their other fields too.
bool is_metadata_or_flow(const JsonScalar& ph) {
  return ph.is("M") || is_flow_phase(ph);
}

}  // namespace

// Members before the first object or array value take four structural indexes
// each (key, ':', value, ',' or '}') after the '{': member m's key is at index
// 4m + 1 and its value at 4m + 3. An object value's members follow its '{' the
// same way. simdjson 3.0's DOM parser keeps stage 1's indexes in its
// implementation until the next parse; read() notes the members' places.
SpliceSite TapeReader::splice_site(std::string_view text, const EventFields& f) const {
  if (is_metadata_or_flow(f.ph)) return kNoSpliceSite;
  if (!f.pid.present()) return kNoSpliceSite;  // a site needs pid (json/splice_site.h)
  const MemberOrdinals& o = ordinals_;
  // After an object or array the places are unknown (Kineto writes args last).
  if (o.pid >= o.first_nested || (o.ts != MemberOrdinals::kNone && o.ts >= o.first_nested))
    return kNoSpliceSite;
  // Offsets beyond a site's reach stay below kAbsentField: make_splice_site refuses them.
  auto site_offset = [](size_t offset) {
    return static_cast<uint16_t>(std::min<size_t>(offset, kAbsentField - 1));
  };
  const size_t pid_at = number_offset(text, 4 * size_t{o.pid} + 3);
  if (pid_at == kNoNumber) return kNoSpliceSite;
  uint16_t ts_at = kAbsentField;
  if (o.ts != MemberOrdinals::kNone) {
    const size_t at = number_offset(text, 4 * size_t{o.ts} + 3);
    if (at == kNoNumber) return kNoSpliceSite;
    ts_at = site_offset(at);
  }
  return make_splice_site(site_offset(pid_at), ts_at);
}

bool TapeReader::has_plain_pid_ts(std::string_view text, const EventFields& f) const {
  if (is_metadata_or_flow(f.ph)) return false;
  const MemberOrdinals& o = ordinals_;
  if (o.pid == MemberOrdinals::kNone || o.ts == MemberOrdinals::kNone || o.pid >= o.ts ||
      o.ts >= o.first_nested)
    return false;
  // Values that are no numbers are left to pass 2, whose search refuses them.
  return is_key_at(text, 4 * size_t{o.pid} + 1, "\"pid\"") &&
         is_key_at(text, 4 * size_t{o.ts} + 1, "\"ts\"");
}

// Whether the key at stage 1's structural index `index` is spelled `quoted_key`
// (quotes included).
template <size_t N>
bool TapeReader::is_key_at(std::string_view text, size_t index, const char (&quoted_key)[N]) const {
  constexpr size_t kLength = N - 1;  // without the literal's terminating zero
  const auto& stage1 = *parser_.implementation;
  if (index >= stage1.n_structural_indexes) return false;
  const size_t at = stage1.structural_indexes[index];
  return at + kLength <= text.size() && std::memcmp(text.data() + at, quoted_key, kLength) == 0;
}

// Where the number at stage 1's structural index `index` starts; kNoNumber if
// there is none (not expected: the tape has a number there).
size_t TapeReader::number_offset(std::string_view text, size_t index) const {
  const auto& stage1 = *parser_.implementation;
  if (index >= stage1.n_structural_indexes) return kNoNumber;
  const size_t at = stage1.structural_indexes[index];
  if (at >= text.size() || (text[at] != '-' && (text[at] < '0' || text[at] > '9')))
    return kNoNumber;
  return at;
}

// The number token at stage 1's structural index `index`; false if there is none.
bool TapeReader::number_token(std::string_view text, size_t index, std::string_view& raw) const {
  const size_t at = number_offset(text, index);
  if (at == kNoNumber) return false;
  raw = text.substr(at, scalar_end(text, at) - at);
  return true;
}

// pid's, tid's and ts's places, and whether a slot's value (a scalar the rules
// read, here found to be an object or array) moves the places after it.
void TapeReader::note_ordinal(const EventFields& f, const JsonScalar* slot, uint32_t member) {
  if (slot == &f.pid)
    ordinals_.pid = member;
  else if (slot == &f.tid)
    ordinals_.tid = member;
  else if (slot == &f.ts)
    ordinals_.ts = member;
  if (ordinals_.first_nested == MemberOrdinals::kNone && is_container(slot->kind))
    ordinals_.first_nested = member;
}

// The raw tokens of a numeric tid and args.stream at their members' places;
// false where a place is unknown (an object or array before it).
bool TapeReader::tokens_from_ordinals(std::string_view text, EventFields& f) const {
  const MemberOrdinals& o = ordinals_;
  if (f.tid.is_number() &&
      (o.tid >= o.first_nested || !number_token(text, 4 * size_t{o.tid} + 3, f.tid.raw)))
    return false;
  if (f.args_stream.is_number()) {
    // args' '{' is at 4 * args + 3, its member j's value 3 + 4j after it.
    if (o.args > o.first_nested || o.stream_in_args >= o.first_nested_in_args ||
        !number_token(text, 4 * size_t{o.args} + 6 + 4 * size_t{o.stream_in_args},
                      f.args_stream.raw))
      return false;
  }
  return true;
}

bool TapeReader::read(std::string_view text, EventFields& f) {
  f.clear();
  if (!usable_ || text.size() > kLargestEvent) return false;
  simdjson::dom::element root;
  if (parser_.parse(text.data(), text.size(), false).get(root)) return false;
  const simdjson::dom::document* doc = &parser_.doc;
  const tape_ref object(doc, 1);  // after the root word
  if (object.tape_ref_type() != tape_type::START_OBJECT) return false;
  const size_t end = object.matching_brace_index() - 1;  // the closing '}'
  ordinals_ = MemberOrdinals();
  for (uint32_t i = 2, member = 0; i < end; ++member) {
    const std::string_view key = tape_ref(doc, i).get_string_view();
    const tape_ref value(doc, i + 1);
    if (JsonScalar* slot = f.slot(key)) {
      if (slot->present()) return false;  // the on-demand reader reports it
      read_scalar(value, *slot);
      note_ordinal(f, slot, member);
    } else if (key == "args") {
      if (f.args_kind != JsonKind::kAbsent) return false;
      JsonScalar args;
      read_scalar(value, args);
      f.args_kind = args.kind;
      ordinals_.args = member;
      if (ordinals_.first_nested == MemberOrdinals::kNone && is_container(args.kind))
        ordinals_.first_nested = member;
      if (args.kind == JsonKind::kObject) {
        const size_t args_end = value.matching_brace_index() - 1;
        f.args_empty = args_end == i + 2;
        for (uint32_t k = i + 2, args_member = 0; k < args_end; ++args_member) {
          const std::string_view args_key = tape_ref(doc, k).get_string_view();
          const tape_ref args_value(doc, k + 1);
          JsonScalar* args_slot = args_key == "stream" ? &f.args_stream
                                  : args_key == "name" ? &f.args_name
                                                       : nullptr;
          if (args_slot) {
            if (args_slot->present()) return false;
            read_scalar(args_value, *args_slot);
            if (args_slot == &f.args_stream) ordinals_.stream_in_args = args_member;
          }
          if (ordinals_.first_nested_in_args == MemberOrdinals::kNone && is_container(args_value))
            ordinals_.first_nested_in_args = args_member;
          k = static_cast<uint32_t>(args_value.after_element());
        }
      }
    } else if (ordinals_.first_nested == MemberOrdinals::kNone && is_container(value)) {
      ordinals_.first_nested = member;
    }
    i = static_cast<uint32_t>(value.after_element());
  }
  if (!needs_tokens(f)) return true;
  if (tokens_from_ordinals(text, f)) return true;
  // Without a backslash every quote delimits a string, so a quoted "tid"
  // followed by ':' is a key; if it is the only one, it is the event's own.
  OnlyMember tid("\"tid\""), stream("\"stream\"");
  const bool want_tid = f.tid.is_number(), want_stream = f.args_stream.is_number();
  if (scan_tid_and_stream(text, want_tid ? &tid : nullptr, want_stream ? &stream : nullptr) ==
      KeyScan::kDone)
    return (!want_tid || tid.found(f.tid.raw)) && (!want_stream || stream.found(f.args_stream.raw));
  MemberFinder finder(text);
  if (f.tid.is_number() && (!finder.find(0, "tid", f.tid.raw) || f.tid.raw.empty())) return false;
  if (f.args_stream.is_number()) {
    std::string_view args;
    if (!finder.find(0, "args", args) || args.empty() ||
        !finder.find(static_cast<size_t>(args.data() - text.data()), "stream", f.args_stream.raw) ||
        f.args_stream.raw.empty())
      return false;
  }
  return true;
}

Hash128 TapeReader::digest(size_t at, size_t depth) {
  const tape_ref value(&parser_.doc, at);
  switch (value.tape_ref_type()) {
    case tape_type::START_OBJECT:
      return digest_object(at, depth, {}, {});
    case tape_type::START_ARRAY: {
      json::ArrayDigest array;
      const size_t end = value.matching_brace_index() - 1;
      for (size_t i = at + 1; i < end; i = tape_ref(&parser_.doc, i).after_element())
        array.add(digest(i, depth + 1));
      return array.finish();
    }
    case tape_type::STRING:
      return json::string_digest(value.get_string_view());
    case tape_type::INT64:
      return json::integer_digest(value.next_tape_value<int64_t>());
    case tape_type::UINT64: {  // an integer beyond int64: its digits, as written
      char digits[24];
      const char* end =
          std::to_chars(digits, digits + sizeof digits, value.next_tape_value<uint64_t>()).ptr;
      return json::digits_digest(std::string_view(digits, static_cast<size_t>(end - digits)));
    }
    case tape_type::DOUBLE:
      return json::double_digest(value.next_tape_value<double>());
    case tape_type::TRUE_VALUE:
      return json::bool_digest(true);
    case tape_type::FALSE_VALUE:
      return json::bool_digest(false);
    default:
      return json::null_digest();
  }
}

Hash128 TapeReader::digest_object(size_t at, size_t depth, json::SkipKeys skip,
                                  json::SkipKeys args_skip) {
  const simdjson::dom::document* doc = &parser_.doc;
  if (objects_.size() <= depth) objects_.resize(depth + 1);
  json::ObjectDigest& object = objects_[depth];
  object.clear();
  const size_t end = tape_ref(doc, at).matching_brace_index() - 1;
  for (size_t i = at + 1; i < end;) {
    const std::string_view key = tape_ref(doc, i).get_string_view();
    const tape_ref value(doc, i + 1);
    i = value.after_element();
    if (skip.has(key)) continue;
    if (args_skip.count && key == "args" && value.tape_ref_type() == tape_type::START_OBJECT)
      object.add(key, digest_object(value.json_index, depth + 1, args_skip, {}));
    else
      object.add(key, digest(value.json_index, depth + 1));
  }
  return object.finish();
}

Hash128 TapeReader::event_digest(const json::EventDigestSkips& skips) {
  return digest_object(1, 0, skips.top, skips.args);
}

}  // namespace tracecompact
