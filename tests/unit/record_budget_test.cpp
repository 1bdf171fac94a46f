// A merge's per-event records are kept within a budget shared by its ranks:
// a fixed allowance plus one per slice indexed, each index's share given back
// when the index goes.
#include <catch2/catch.hpp>

#include <memory>
#include <thread>
#include <vector>

#include "index/record_budget.h"

namespace tracecompact {

TEST_CASE("a record budget takes what is left and no more") {
  RecordBudget budget(100, 0);
  CHECK(budget.try_take(60));
  CHECK(!budget.try_take(60));  // refused whole: nothing taken
  CHECK(budget.try_take(40));
  CHECK(!budget.try_take(1));
  budget.give_back(60);
  CHECK(budget.try_take(60));
}

TEST_CASE("slices indexed widen a record budget") {
  auto budget = std::make_shared<RecordBudget>(0, 16);
  RecordGrant grant(budget);
  grant.credit_slices(1);
  CHECK(!grant.take(32));
  grant.credit_slices(2);  // one more slice: two in all, not three
  CHECK(grant.take(32));
  grant.credit_slices(2);  // no new slices
  CHECK(!grant.take(16));
  grant.credit_slices(3);
  CHECK(grant.take(16));
  CHECK(grant.taken() == 48);
  RecordGrant other(budget);  // the slices credit the budget, not the grant
  grant.credit_slices(5);
  CHECK(other.take(32));
}

TEST_CASE("a grant gives its share back when it goes, moved or not") {
  auto budget = std::make_shared<RecordBudget>(100, 0);
  {
    RecordGrant grant(budget);
    REQUIRE(grant.take(70));
    RecordGrant moved(std::move(grant));
    CHECK(!budget->try_take(31));
    RecordGrant replaced(budget);
    REQUIRE(replaced.take(30));
    replaced = std::move(moved);  // the 30 go back; the 70 move
    CHECK(budget->try_take(30));
    budget->give_back(30);
    CHECK(!budget->try_take(31));
  }
  CHECK(budget->try_take(100));
}

TEST_CASE("without a budget every take succeeds") {
  RecordGrant grant;
  CHECK(grant.take(uint64_t{1} << 40));
}

TEST_CASE("ranks taking from one budget at once never take more than it holds") {
  auto budget = std::make_shared<RecordBudget>(4096 * 8, 0);
  {
    std::vector<RecordGrant> grants;
    for (int t = 0; t < 4; ++t) grants.emplace_back(budget);
    std::vector<std::thread> threads;
    for (auto& grant : grants)
      threads.emplace_back([&grant] {
        while (grant.take(8)) {
        }
      });
    for (auto& thread : threads) thread.join();
    uint64_t total = 0;
    for (const auto& grant : grants) total += grant.taken();
    CHECK(total == 4096 * 8);
  }
  CHECK(budget->try_take(4096 * 8));  // all given back
}

}  // namespace tracecompact
