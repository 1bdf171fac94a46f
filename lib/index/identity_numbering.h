// Dense ids for annotation identities (128-bit digests of their canonical text),
// equal for equal hashes and numbered in hash order: the plan sorts and
// compares 32-bit ids.
//
// Each hash gets a provisional id as it comes. A small direct-mapped table of
// recent hashes gives a repeat the provisional id it had, without storing the
// hash again: identical annotations come close together (one region on every
// stream, step after step), so a trace of a million identical annotations
// keeps a handful of hashes instead of a million. finish() sorts the stored
// hashes and maps each provisional id to its final one; a hash the table had
// forgotten was stored twice, and both of its provisional ids map to one.
#pragma once

#include <cstdint>
#include <vector>

#include "util/growable_array.h"
#include "util/hash128.h"

namespace tracecompact {

class IdentityNumbering {
 public:
  uint32_t provisional_id(const Hash128& hash);
  // The final id of each provisional id; releases the stored hashes.
  std::vector<uint32_t> finish();
  size_t stored_hashes() const { return stored_.size(); }

 private:
  // 20 bytes: in the worst case (no repeats) one per annotation.
  struct [[gnu::packed]] StoredHash {
    Hash128 hash;
    uint32_t provisional;
  };
  struct RecentHash {
    Hash128 hash{};
    uint32_t provisional = kEmpty;
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static constexpr size_t kRecentSlots = size_t{1} << 12;  // 96 KiB

  std::vector<RecentHash> recent_;  // sized on first use
  GrowableArray<StoredHash> stored_;
};

}  // namespace tracecompact
