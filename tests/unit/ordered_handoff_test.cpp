// OrderedHandoff: slots are processed in the order handed over, never more
// than the ring holds at once; at a stop, slots handed over are processed or
// dropped as asked; a failure on the consumer's thread (set-up or a slot)
// reaches the caller's next call.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "util/ordered_handoff.h"

namespace tracecompact {

TEST_CASE("an ordered handoff processes slots in order, each refilled only once free") {
  constexpr size_t kSlots = 3;
  std::vector<int> slots(kSlots, -1);
  std::vector<int> seen;
  {
    OrderedHandoff handoff(kSlots, OrderedHandoff::AtStop::kDropHanded, nullptr, [&](size_t slot) {
      if (seen.size() % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      seen.push_back(slots[slot]);
      slots[slot] = -1;  // a slot refilled too early shows as -1 lost
    });
    for (int i = 0; i < 500; ++i) {
      REQUIRE(slots[handoff.filling()] == -1);
      slots[handoff.filling()] = i;
      handoff.hand_over();
    }
    handoff.wait_until_processed();
  }
  REQUIRE(seen.size() == 500);
  for (int i = 0; i < 500; ++i) CHECK(seen[static_cast<size_t>(i)] == i);
}

TEST_CASE("an ordered handoff stopped early processes or drops what was handed over") {
  for (const auto at_stop :
       {OrderedHandoff::AtStop::kProcessHanded, OrderedHandoff::AtStop::kDropHanded}) {
    std::atomic<bool> started{false}, destroying{false};
    std::atomic<int> processed{0};
    auto handoff = std::make_unique<OrderedHandoff>(4, at_stop, nullptr, [&](size_t) {
      // The first slot lasts until the handoff is being destroyed, and a while
      // longer (a generous margin for the destructor to ask the stop), so that
      // the stop comes while the other two slots wait.
      if (processed == 0) {
        started = true;
        while (!destroying) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
      ++processed;
    });
    for (int i = 0; i < 3; ++i) handoff->hand_over();  // the ring still has room
    while (!started) std::this_thread::yield();
    destroying = true;
    handoff.reset();
    CHECK(processed == (at_stop == OrderedHandoff::AtStop::kProcessHanded ? 3 : 1));
  }
}

TEST_CASE("an ordered handoff's consumer failure reaches the caller") {
  SECTION("in a slot") {
    OrderedHandoff handoff(2, OrderedHandoff::AtStop::kDropHanded, nullptr,
                           [](size_t) { throw std::runtime_error("disk full"); });
    handoff.hand_over();
    CHECK_THROWS_WITH(
        [&] {
          for (int i = 0; i < 3; ++i) handoff.hand_over();  // at the latest once the ring is full
        }(),
        "disk full");
    CHECK_THROWS_WITH(handoff.wait_until_processed(), "disk full");
  }
  SECTION("in the set-up") {
    OrderedHandoff handoff(
        2, OrderedHandoff::AtStop::kDropHanded, [] { throw std::runtime_error("no memory"); },
        [](size_t) {});
    CHECK_THROWS_WITH(handoff.wait_for_set_up(), "no memory");
    CHECK_THROWS_WITH(handoff.hand_over(), "no memory");
  }
  SECTION("a ring of fewer than two slots is refused") {
    CHECK_THROWS_AS(OrderedHandoff(1, OrderedHandoff::AtStop::kDropHanded, nullptr, [](size_t) {}),
                    std::logic_error);
  }
}

}  // namespace tracecompact
