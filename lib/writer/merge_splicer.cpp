#include "writer/merge_splicer.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include "json/number_format.h"
#include "writer/top_level_fields.h"

namespace tracecompact {
namespace {

bool is_number_text(std::string_view text) {
  return !text.empty() && (text[0] == '-' || (text[0] >= '0' && text[0] <= '9'));
}

constexpr size_t kBytes = MergeSplicer::kReplacementBytes;
static_assert(kBytes % 8 == 0, "same_token compares whole words");
static_assert(std::endian::native == std::endian::little, "same_token masks the low bytes");

// Whether `token` (in an event's text, followed by 64 readable bytes) spells
// `known` (the start of an array of kBytes): the two compared as 8-byte words
// under a mask, instead of a memcmp call per event.
bool same_token(std::string_view token, const char* known, size_t known_size) {
  if (token.size() != known_size || known_size == 0 || known_size > kBytes) return false;
  uint64_t differing = 0;
  for (size_t word = 0; word < kBytes / 8; ++word) {
    uint64_t a, b;
    std::memcpy(&a, token.data() + 8 * word, sizeof a);
    std::memcpy(&b, known + 8 * word, sizeof b);
    const size_t bytes = known_size > 8 * word ? std::min<size_t>(known_size - 8 * word, 8) : 0;
    const uint64_t mask = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
    differing |= (a ^ b) & mask;
  }
  return differing == 0;
}

// Copies `size` bytes; up to kBytes of them as kBytes, which the caller has
// room and readable bytes for (most pieces of a splice are short: two moves
// instead of a memcpy call).
void copy_piece(char* out, const char* from, size_t size) {
  if (size <= kBytes)
    std::memcpy(out, from, kBytes);
  else
    std::memcpy(out, from, size);
}

}  // namespace

bool MergeSplicer::write(std::string_view text, const EventEdit& edit, ValueSpan stream_span,
                         const MergeEdit& merge, FlowIdWriter& flow_ids, JsonOut& out,
                         const TopLevelFields* located) {
  if (edit.ts || edit.dur) return false;
  TopLevelFields fields;
  if (located)
    fields = *located;
  else if (!locate_top_level_fields(text, fields, edit.tid.has_value()))
    return false;
  const std::string_view ph = fields.ph.found ? fields.ph.in(text) : std::string_view();
  if (ph.find('\\') != std::string_view::npos || ph == "\"M\"") return false;
  start();
  if (fields.id.found && is_flow_phase_token(ph)) {
    const auto integer = FlowIdRenumberer::integer_value(fields.id.in(text));
    if (!integer) return false;
    flow_id_ = *integer;
    has_flow_id_ = true;
    add(fields.id.at, fields.id.length, {}, true);
  }
  if (!add_pid(text, fields.pid, merge) || !add_ts(text, fields.ts, merge)) return false;
  std::string_view tid_text;
  if (edit.tid) {
    if (!fields.tid.found) return false;
    tid_text = integer_text(*edit.tid);
    add(fields.tid.at, fields.tid.length, tid_text);
  }
  if (edit.stream) {
    if (!stream_span.valid()) return false;
    // A slice's stream is its lane's tid: one conversion serves both.
    add(stream_span.at, stream_span.length,
        edit.tid == edit.stream ? tid_text : integer_text(*edit.stream));
  }
  return emit(text, flow_ids, out);
}

// pid, ts and a slice's lane spliced in one claimed stretch, added in
// Kineto's order (pid, tid, ts, then args.stream) and sorted where the event's
// is another.
bool MergeSplicer::write_at(std::string_view text, const FieldSpan& pid, const FieldSpan& ts,
                            const LaneSplice* lane, const MergeEdit& merge, JsonOut& out) {
  start();
  if (!add_pid(text, pid, merge)) return false;
  std::string_view lane_tid_text;
  if (lane) {
    lane_tid_text = lane_text(lane->lane_tid);
    add(lane->tid.at, lane->tid.length, lane_tid_text);
  }
  if (!add_ts(text, ts, merge)) return false;
  if (lane) add(lane->stream.at, lane->stream.length, lane_tid_text);
  if (!sort_parts()) return false;
  write_parts_in_order(text, out);
  return true;
}

void MergeSplicer::start() {
  count_ = 0;
  used_ = 0;
  has_flow_id_ = false;
}

// Most events repeat one of the last two pid tokens, whose replacements are
// kept. A pid that is not an integer stays as it is. False: for the full
// rewriter.
bool MergeSplicer::add_pid(std::string_view text, const FieldSpan& pid, const MergeEdit& merge) {
  if (!pid.found) return true;
  const std::string_view token = pid.in(text);
  for (size_t i = 0; i < 2; ++i) {
    const PidText& known = pids_[i];
    if (same_token(token, known.token, known.token_size)) {
      pid_to_replace_ = 1 - i;
      add(pid.at, pid.length, std::string_view(known.text, known.text_size));
      return true;
    }
  }
  if (!is_integer_text(token)) return true;
  if (!map_pid(token, merge)) return false;
  const PidText& mapped = pids_[pid_to_replace_];
  pid_to_replace_ = 1 - pid_to_replace_;
  add(pid.at, pid.length, std::string_view(mapped.text, mapped.text_size));
  return true;
}

// False when the shifted time is no finite number: for the full rewriter.
bool MergeSplicer::add_ts(std::string_view text, const FieldSpan& ts_span, const MergeEdit& merge) {
  if (!ts_span.found) return true;
  const std::string_view ts = ts_span.in(text);
  if (!is_number_text(ts)) return true;
  // ts + 0.0 is ts: the rank with the earliest base keeps its tokens.
  if (merge.ts_shift.offset_us == 0 && is_short_plain_number(ts)) return true;
  if (!same_token(ts, last_ts_token_, last_ts_token_size_) && !shift_ts(ts, merge)) return false;
  add(ts_span.at, ts_span.length, std::string_view(last_ts_text_, last_ts_text_size_));
  return true;
}

// The shifted time of `ts` into last_ts_text_, kept with the token if it fits;
// false when it is no finite number.
bool MergeSplicer::shift_ts(std::string_view ts, const MergeEdit& merge) {
  last_ts_token_size_ = 0;  // the text below is no other token's
  char* const begin = last_ts_text_;
  char* end = write_shifted_timestamp(ts, merge.ts_shift, begin);
  if (!end) {
    const double shifted = read_number_token(ts) + merge.ts_shift.offset_us;
    if (!std::isfinite(shifted)) return false;
    end = write_round_trip(shifted, begin, last_ts_text_ + sizeof last_ts_text_);
  }
  last_ts_text_size_ = static_cast<size_t>(end - begin);
  const bool fits = ts.size() <= sizeof last_ts_token_;
  if (fits) std::memcpy(last_ts_token_, ts.data(), ts.size());
  last_ts_token_size_ = fits ? ts.size() : 0;
  return true;
}

// The parts in text order. At most five, nearly in order: an insertion sort.
// False where two overlap, which pass 1's findings never do unless the input
// changed since: the full rewriter then judges the event.
bool MergeSplicer::sort_parts() {
  auto apart = [&](size_t i) { return parts_[i - 1].at + parts_[i - 1].length <= parts_[i].at; };
  size_t i = 1;
  while (i < count_ && apart(i)) ++i;
  if (i == count_) return true;  // the usual case: added in text order
  for (i = 1; i < count_; ++i)
    for (size_t j = i; j > 0 && parts_[j].at < parts_[j - 1].at; --j)
      std::swap(parts_[j], parts_[j - 1]);
  for (i = 1; i < count_; ++i)
    if (!apart(i)) return false;
  return true;
}

// The parts (none of them a flow id) written over the event's own tokens;
// false as for sort_parts().
bool MergeSplicer::write_parts(std::string_view text, JsonOut& out) {
  if (!sort_parts()) return false;
  out.raw_spliced(text, parts_, count_);
  return true;
}

// Parts in text order and apart (none a flow id; every replacement in an
// array of kReplacementBytes, the text followed by 64 readable bytes): the
// event in one claimed stretch, short pieces copied 32 bytes at a time over
// room claimed for them.
void MergeSplicer::write_parts_in_order(std::string_view text, JsonOut& out) {
  size_t size = text.size();
  for (size_t i = 0; i < count_; ++i) size += parts_[i].text.size() - parts_[i].length;
  OutputStream& stream = out.stream();
  // Larger than the output's buffer: piece by piece. (Not for the events pass 1
  // read off simdjson's tape, which found their pid and ts: at most 64 KiB.)
  if (!stream.claim(size + kReplacementBytes)) {
    out.raw_spliced(text, parts_, count_);
    return;
  }
  out.begin_raw_value();
  // Not null: the separator took at most a byte, and the room fits in the
  // buffer (the claim above), so this claim at worst drains it first.
  char* at = stream.claim(size + kReplacementBytes);
  size_t copied = 0;
  for (size_t i = 0; i < count_; ++i) {
    copy_piece(at, text.data() + copied, parts_[i].at - copied);
    at += parts_[i].at - copied;
    copy_piece(at, parts_[i].text.data(), parts_[i].text.size());
    at += parts_[i].text.size();
    copied = parts_[i].at + parts_[i].length;
  }
  std::memcpy(at, text.data() + copied, text.size() - copied);
  stream.commit(at + (text.size() - copied));
}

// The same where a part may be the flow id, which `flow_ids` writes.
bool MergeSplicer::emit(std::string_view text, FlowIdWriter& flow_ids, JsonOut& out) {
  if (!has_flow_id_) return write_parts(text, out);
  if (!sort_parts()) return false;
  out.raw_spliced(text, parts_, count_, [&](size_t i) {
    if (parts_[i].flow_id)
      flow_ids.put_integer(flow_id_, out.stream());
    else
      out.stream().write(parts_[i].text.data(), parts_[i].text.size());
  });
  return true;
}

// Maps an integer pid token to its merged pid's text, kept with the token in
// the entry used less recently; false when the full rewriter must judge it
// (beyond int64, not mapped).
bool MergeSplicer::map_pid(std::string_view token, const MergeEdit& merge) {
  PidText& entry = pids_[pid_to_replace_];
  if (token.size() > sizeof entry.token) return false;
  int64_t pid = 0;
  const auto parsed = std::from_chars(token.data(), token.data() + token.size(), pid);
  if (parsed.ec != std::errc() || parsed.ptr != token.data() + token.size()) return false;
  const auto mapped = merge.pid_map->find(pid);
  if (mapped == merge.pid_map->end()) return false;
  std::memcpy(entry.token, token.data(), token.size());
  entry.token_size = token.size();
  entry.text_size = static_cast<size_t>(
      std::to_chars(entry.text, entry.text + sizeof entry.text, mapped->second).ptr - entry.text);
  return true;
}

std::string_view MergeSplicer::lane_text(int64_t lane_tid) {
  if (last_lane_text_size_ == 0 || lane_tid != last_lane_tid_) {
    last_lane_tid_ = lane_tid;
    last_lane_text_size_ = static_cast<size_t>(
        std::to_chars(last_lane_text_, last_lane_text_ + sizeof last_lane_text_, lane_tid).ptr -
        last_lane_text_);
  }
  return std::string_view(last_lane_text_, last_lane_text_size_);
}

std::string_view MergeSplicer::integer_text(int64_t value) {
  char* begin = digits_ + used_;
  char* end = std::to_chars(begin, digits_ + sizeof digits_, value).ptr;
  used_ = static_cast<size_t>(end - digits_);
  return std::string_view(begin, static_cast<size_t>(end - begin));
}

}  // namespace tracecompact
