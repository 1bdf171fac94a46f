#include "tokenizer/copied_events.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>

#include "util/outsized_buffer.h"

namespace tracecompact {
namespace {

// Bytes of events per batch: large enough that handing a batch over costs
// little, small enough that a few per thread stay in cache.
constexpr size_t kBatchBytes = size_t{256} << 10;

}  // namespace

bool CopiedEvents::add(std::string_view event, uint64_t index, uint64_t offset) {
  if (!events_.empty() && used_ + event.size() > kBatchBytes) return false;
  const size_t needed = used_ + event.size() + simdjson::SIMDJSON_PADDING;
  if (text_.size() < needed)
    text_.resize(std::max(needed, kBatchBytes + simdjson::SIMDJSON_PADDING));
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
