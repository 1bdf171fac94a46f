#include "merge/rank_preview.h"

#include <exception>
#include <string>
#include <string_view>

#include "source/byte_source.h"
#include "tokenizer/trace_tokenizer.h"

namespace tracecompact {
namespace {

// A head or tail larger than this is not worth reading ahead.
constexpr uint64_t kLargestHead = uint64_t{1} << 20;
constexpr size_t kTailBytes = size_t{64} << 10;
constexpr size_t kPreviewChunk = size_t{64} << 10;
// Closing brackets tried from the end of a tail: one of them closes traceEvents.
constexpr int kTailCandidates = 32;

// The two values the layout reads; seeing either twice ends the preview (pass 1
// refuses such a trace).
struct Found {
  TraceIndex values;  // only its top_level
  bool repeated = false;
  void add(std::string_view key, std::string_view text) {
    if (key != "baseTimeNanoseconds" && key != "distributedInfo") return;
    if (values.find_top_level(key)) repeated = true;
    values.top_level.push_back({std::string(key), std::string(text)});
  }
};

// The top-level values before traceEvents; false if the head has no events or
// runs long.
bool read_head(const TraceInput& input, Found& found) {
  auto source = input.open();
  TraceTokenizer tokenizer(*source, kPreviewChunk);
  for (;;) {
    const auto item = tokenizer.next();
    if (item.kind == TraceTokenizer::Kind::kEventsBegin) return true;
    if (item.kind == TraceTokenizer::Kind::kEnd || tokenizer.bytes_consumed() > kLargestHead)
      return false;
    if (item.kind == TraceTokenizer::Kind::kTopLevelValue) found.add(item.key, item.text);
  }
}

// The members of `object` (a '{', members, '}'): false unless it is exactly that.
bool read_members(std::string_view object, Found& found) {
  try {
    MemorySource source(object);
    TraceTokenizer tokenizer(source, kPreviewChunk);
    Found here;
    for (auto item = tokenizer.next(); item.kind != TraceTokenizer::Kind::kEnd;
         item = tokenizer.next()) {
      if (item.kind != TraceTokenizer::Kind::kTopLevelValue) return false;
      here.add(item.key, item.text);
    }
    if (here.values.top_level.empty()) return false;
    for (const auto& value : here.values.top_level) found.add(value.key, value.text);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// The top-level values after the events of a plain input, found by trying the
// last closing brackets: the first one whose rest reads as members.
void read_tail(const TraceInput& input, Found& found) {
  const auto random_access = input.open_random_access();
  if (!random_access) return;  // gzip reads only from the start
  const uint64_t size = input.stored_size();
  const uint64_t from = size > kTailBytes ? size - kTailBytes : 0;
  std::string tail(static_cast<size_t>(size - from), '\0');
  tail.resize(random_access->read_at(from, tail.data(), tail.size()));
  size_t search_end = tail.size();  // the next bracket tried lies before this
  for (int tried = 0; tried < kTailCandidates && search_end > 0; ++tried) {
    const size_t bracket = tail.rfind(']', search_end - 1);
    if (bracket == std::string::npos) return;
    search_end = bracket;
    const size_t comma = tail.find_first_not_of(" \t\r\n", bracket + 1);
    if (comma == std::string::npos || tail[comma] != ',') continue;
    // The members after the comma, read in place as an object of their own.
    tail[comma] = '{';
    if (read_members(std::string_view(tail).substr(comma), found)) return;
    tail[comma] = ',';  // earlier brackets read through it
  }
}

}  // namespace

std::optional<TraceMetadata> preview_rank_metadata(const TraceInput& input) {
  try {
    Found found;
    if (!read_head(input, found)) return std::nullopt;
    if (!found.values.find_top_level("baseTimeNanoseconds")) read_tail(input, found);
    if (found.repeated) return std::nullopt;
    TraceMetadata metadata = read_trace_metadata(found.values);
    metadata.source = input.display_name();
    if (!metadata.base_time_ns || !metadata.has_distributed_info || !metadata.rank)
      return std::nullopt;
    return metadata;
  } catch (const std::exception&) {  // a fault pass 1 will report, or no memory
    return std::nullopt;
  }
}

}  // namespace tracecompact
