// Merged flow ids: each distinct id numbered in order of first appearance
// (spec 11), whether it sits in the direct window or the hash tables.
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>

#include "writer/event_rewriter.h"

using tracecompact::FlowIdRenumberer;

namespace {

// The rule itself: a map from canonical text to first_id + order of appearance.
class ExpectedNumbering {
 public:
  explicit ExpectedNumbering(uint64_t first_id) : first_id_(first_id) {}
  uint64_t number(const std::string& text) {
    return numbers_.try_emplace(text, first_id_ + numbers_.size()).first->second;
  }

 private:
  uint64_t first_id_;
  std::unordered_map<std::string, uint64_t> numbers_;
};

void check_integers(FlowIdRenumberer& ids, ExpectedNumbering& expected, int64_t id) {
  const std::string text = std::to_string(id);
  if (!FlowIdRenumberer::is_plain_integer(text)) return;  // 19 digits: text ids
  const uint64_t want = expected.number(text);
  REQUIRE(ids.renumber_integer(id) == want);
  REQUIRE(ids.renumber(text) == want);
}

}  // namespace

TEST_CASE("flow ids keep their first-appearance numbers across window and tables", "[unit]") {
  FlowIdRenumberer ids(3000000000);
  ExpectedNumbering expected(3000000000);

  SECTION("Kineto-like: runs of rising ids, each run lower than the one before") {
    for (int64_t run_start = 1'000'000; run_start > 0; run_start -= 50'000)
      for (int64_t id = run_start; id < run_start + 20'000; id += 3)
        check_integers(ids, expected, id);
    for (int64_t id = 0; id < 1'020'000; id += 997)
      check_integers(ids, expected, id);  // seen and not
  }
  SECTION("an id first kept in the hash table, then covered by the window") {
    check_integers(ids, expected, 0);
    check_integers(ids, expected, 200'000);  // too far for the window yet
    check_integers(ids, expected, -200'000);
    for (int64_t id = 1; id < 40'000; ++id) check_integers(ids, expected, id);
    check_integers(ids, expected, 200'000);
    check_integers(ids, expected, -200'000);
    for (int64_t id = -40'000; id < 0; ++id) check_integers(ids, expected, id);
    check_integers(ids, expected, 200'000);
    check_integers(ids, expected, -200'000);
  }
  SECTION("sparse, extreme and text ids mixed") {
    std::mt19937_64 random(7);
    for (int i = 0; i < 20'000; ++i) {
      const uint64_t kind = random() % 4;
      int64_t id = 0;
      if (kind == 0) id = static_cast<int64_t>(random());                // anywhere
      if (kind == 1) id = static_cast<int64_t>(random() % 5000) - 2500;  // near zero
      if (kind == 2)  // the largest plain integers (18 digits), both signs
        id = (random() % 2 ? 1 : -1) *
             (999'999'999'999'999'999 - static_cast<int64_t>(random() % 100));
      if (kind == 3) {
        const std::string text = "\"flow" + std::to_string(random() % 300) + "\"";
        REQUIRE(ids.renumber(text) == expected.number(text));
        continue;
      }
      check_integers(ids, expected, id);
    }
  }
}

TEST_CASE("the flow-id window widens geometrically for sparse ids", "[unit]") {
  // Ids 8 apart use up the window's allowance exactly: without a floor on each
  // widening's growth, every new id widened (and copied) the whole window.
  FlowIdRenumberer ids(1000);
  ExpectedNumbering expected(1000);
  check_integers(ids, expected, 0);
  for (int64_t k = 0; k < 200'000; ++k) check_integers(ids, expected, 65'535 + 8 * k);
  for (int64_t k = 0; k < 200'000; k += 7) check_integers(ids, expected, 65'535 + 8 * k);
  CHECK(ids.window_widenings() < 64);
}

TEST_CASE("flow ids at the ends of int64 are numbered like any other", "[unit]") {
  // Not plain integers as text (19 digits), but the window's arithmetic must
  // still hold at the ends of the range.
  FlowIdRenumberer ids(5);
  std::unordered_map<int64_t, uint64_t> expected;
  const int64_t sequence[] = {INT64_MAX,          INT64_MAX - 1,
                              INT64_MAX - 70'000, INT64_MIN,
                              INT64_MIN + 1,      INT64_MAX,
                              INT64_MIN,          0,
                              INT64_MIN + 5'000,  -1,
                              INT64_MAX - 4'095,  INT64_MAX - 4'096};
  for (const int64_t id : sequence) {
    const uint64_t want = expected.try_emplace(id, 5 + expected.size()).first->second;
    REQUIRE(ids.renumber_integer(id) == want);
  }
}
