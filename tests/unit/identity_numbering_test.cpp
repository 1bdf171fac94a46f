// Identity ids: equal for equal hashes and only for them, dense, in hash order,
// whether a repeat is caught by the table of recent hashes or was forgotten.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "index/identity_numbering.h"

namespace tracecompact {

TEST_CASE("identity ids are dense, in hash order and equal exactly for equal hashes") {
  std::vector<Hash128> hashes;
  for (int k = 0; k < 10000; ++k) hashes.push_back(hash128("identity " + std::to_string(k)));
  // Each hash at once again (caught by the table), then all of them once more
  // 10 000 hashes later (forgotten by a table of a few thousand slots).
  std::vector<Hash128> sequence;
  for (const Hash128& hash : hashes) {
    sequence.push_back(hash);
    sequence.push_back(hash);
  }
  sequence.insert(sequence.end(), hashes.rbegin(), hashes.rend());

  IdentityNumbering numbering;
  std::vector<uint32_t> provisional;
  for (const Hash128& hash : sequence) provisional.push_back(numbering.provisional_id(hash));
  CHECK(provisional[0] == provisional[1]);             // a repeat at once shares its id
  CHECK(numbering.stored_hashes() < sequence.size());  // and is not stored again
  const std::vector<uint32_t> final_ids = numbering.finish();

  std::map<Hash128, uint32_t> id_of;  // in hash order
  for (size_t i = 0; i < sequence.size(); ++i) {
    const uint32_t id = final_ids.at(provisional[i]);
    const auto [it, inserted] = id_of.emplace(sequence[i], id);
    REQUIRE(it->second == id);  // equal hashes, equal ids
  }
  REQUIRE(id_of.size() == hashes.size());
  uint32_t expected = 0;
  for (const auto& [hash, id] : id_of) REQUIRE(id == expected++);  // distinct, dense, ordered
}

}  // namespace tracecompact
