#include "index/identity_numbering.h"

#include <algorithm>

namespace tracecompact {

uint32_t IdentityNumbering::provisional_id(const Hash128& hash) {
  if (recent_.empty()) recent_.resize(kRecentSlots);
  RecentHash& slot = recent_[hash.low & (kRecentSlots - 1)];
  if (slot.provisional != kEmpty && slot.hash == hash) return slot.provisional;
  const auto provisional = static_cast<uint32_t>(stored_.size());
  stored_.push_back({hash, provisional});
  slot = {hash, provisional};
  return provisional;
}

std::vector<uint32_t> IdentityNumbering::finish() {
  // Packed fields are copied out before they are compared (no references to them).
  auto hash_of = [](const StoredHash& stored) { return Hash128(stored.hash); };
  std::sort(stored_.begin(), stored_.end(),
            [&](const StoredHash& a, const StoredHash& b) { return hash_of(a) < hash_of(b); });
  std::vector<uint32_t> final_ids(stored_.size());
  uint32_t id = 0;
  for (size_t i = 0; i < stored_.size(); ++i) {
    if (i > 0 && hash_of(stored_[i]) != hash_of(stored_[i - 1])) ++id;
    final_ids[stored_[i].provisional] = id;
  }
  stored_.release();
  recent_ = {};
  return final_ids;
}

}  // namespace tracecompact
