#include "tokenizer/copied_events.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

#include "util/outsized_buffer.h"

namespace tracecompact {
namespace {

// Bytes per batch, the padding after its events included: large enough that
// handing a batch over costs little, small enough that a few per thread stay in
// cache, and a whole number of 4 KiB pages (eight batches fill a huge page).
constexpr size_t kBatchBytes = size_t{256} << 10;
constexpr size_t kEventBytes = kBatchBytes - simdjson::SIMDJSON_PADDING;

}  // namespace

bool CopiedEvents::add(std::string_view event, uint64_t index, uint64_t offset) {
  if (!events_.empty() && used_ + event.size() > kEventBytes) return false;
  const size_t needed = used_ + event.size() + simdjson::SIMDJSON_PADDING;
  if (text_.size() < needed) text_.resize(std::max(needed, kBatchBytes));
  std::memcpy(text_.data() + used_, event.data(), event.size());
  events_.push_back({used_, event.size(), index, offset});
  used_ += event.size();
  std::memset(text_.data() + used_, ' ', simdjson::SIMDJSON_PADDING);
  return true;
}

void CopiedEvents::clear() {
  used_ = 0;
  events_.clear();
  drop_if_outsized(text_, kBatchBytes);
}

}  // namespace tracecompact
