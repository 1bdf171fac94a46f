#include "index/event_batches.h"

#include <simdjson.h>

#include <cstring>

namespace tracecompact {
namespace {

constexpr size_t kBatchBytes = size_t{512}
                               << 10;  // events copied per batch (an event may exceed it)
constexpr size_t kBatchesPerWorker = 3;

}  // namespace

bool EventBatch::add(std::string_view event, uint64_t index, uint64_t offset) {
  if (!slots.empty() && used + event.size() > kBatchBytes) return false;
  const size_t needed = used + event.size() + simdjson::SIMDJSON_PADDING;
  if (text.size() < needed) text.resize(std::max(needed, kBatchBytes + simdjson::SIMDJSON_PADDING));
  std::memcpy(text.data() + used, event.data(), event.size());
  slots.push_back({used, event.size(), index, offset});
  used += event.size();
  std::memset(text.data() + used, ' ', simdjson::SIMDJSON_PADDING);
  return true;
}

void EventBatch::clear() {
  used = 0;
  slots.clear();
  digests.clear();
  arena.clear();
  error = nullptr;
}

void EventBatch::digest(EventParser& parser) {
  try {
    for (const Slot& slot : slots) {
      const auto& fields = parser.parse_in_place(
          std::string_view(text.data() + slot.at, slot.length), {slot.index, slot.offset});
      digests.push_back(digest_event(fields, parser, slot.index, arena));
    }
  } catch (...) {
    error = std::current_exception();  // the caller meets it in event order
  }
}

EventBatches::EventBatches(unsigned workers)
    : batches_(workers ? workers * kBatchesPerWorker : 1), done_(batches_.size(), false) {
  for (unsigned w = 0; w < workers; ++w) workers_.emplace_back([this] { work(); });
}

EventBatches::~EventBatches() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void EventBatches::submit() {
  if (workers_.empty()) {
    filling().digest(caller_parser_);
    done_[submitted_ % batches_.size()] = true;
    ++submitted_;
    return;
  }
  {
    std::lock_guard lock(mutex_);
    done_[submitted_ % batches_.size()] = false;
    ++submitted_;
  }
  changed_.notify_all();
}

EventBatch& EventBatches::oldest() {
  const size_t slot = taken_ % batches_.size();
  if (!workers_.empty()) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return done_[slot]; });
  }
  return batches_[slot];
}

void EventBatches::pop() {
  batches_[taken_ % batches_.size()].clear();
  ++taken_;
}

void EventBatches::work() {
  EventParser parser;
  for (;;) {
    size_t index;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stopping_ || claimed_ < submitted_; });
      if (stopping_) return;
      index = claimed_++;
    }
    EventBatch& batch = batches_[index % batches_.size()];
    batch.digest(parser);
    {
      std::lock_guard lock(mutex_);
      done_[index % batches_.size()] = true;
    }
    changed_.notify_all();
  }
}

}  // namespace tracecompact
