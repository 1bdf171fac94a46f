#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "util/chunked_vector.h"
#include "util/warm_chunks.h"

TEST_CASE("chunked vector keeps every element across growing and full chunks", "[util]") {
  tracecompact::ChunkedVector<uint64_t> values;
  const size_t n = 1200000;  // past the growing chunks into full 2 MiB ones
  for (size_t i = 0; i < n; ++i) values.push_back(i * 3);
  REQUIRE(values.size() == n);
  bool all = true;
  for (size_t i = 0; i < n; ++i) all = all && values[i] == i * 3;
  CHECK(all);
  size_t k = 0;
  for (uint64_t v : values) all = all && v == 3 * k++;
  CHECK(all);
  CHECK(k == n);
}

TEST_CASE("a moved chunked vector keeps its elements and the emptied one grows apart", "[util]") {
  using tracecompact::ChunkedVector;
  ChunkedVector<uint32_t> first;
  for (uint32_t i = 0; i < 1000; ++i) first.push_back(i);  // the last chunk part filled
  ChunkedVector<uint32_t> second(std::move(first));
  for (uint32_t i = 1000; i < 1500; ++i) second.push_back(i);
  // The emptied vector takes chunks of its own: appending to it must not write
  // into the chunks it handed over.
  for (uint32_t i = 0; i < 700; ++i) first.push_back(7);  // NOLINT(bugprone-use-after-move)
  REQUIRE(second.size() == 1500);
  REQUIRE(first.size() == 700);
  bool intact = true;
  for (uint32_t i = 0; i < 1500; ++i) intact = intact && second[i] == i;
  CHECK(intact);
  ChunkedVector<uint32_t> third;
  third.push_back(42);
  third = std::move(second);
  third.push_back(1500);
  REQUIRE(third.size() == 1501);
  for (uint32_t i = 0; i < 1501; ++i) intact = intact && third[i] == i;
  CHECK(intact);
}

TEST_CASE("a warm chunk supply hands out touched, aligned full-size chunks", "[util]") {
  using tracecompact::kIndexChunkBytes;
  tracecompact::WarmChunkSupply supply(2);
  void* chunk = nullptr;
  // The helper prepares chunks in the background; give it time on a busy machine.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!(chunk = supply.take()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(chunk != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(chunk) % kIndexChunkBytes == 0);
  std::memset(chunk, 0x5a, kIndexChunkBytes);
  CHECK(static_cast<unsigned char*>(chunk)[kIndexChunkBytes - 1] == 0x5a);
  std::free(chunk);
}

TEST_CASE("chunked vectors grown under a warm chunk supply keep every element", "[util]") {
  const size_t n = 2000000;  // eight full chunks of uint64_t
  tracecompact::ChunkedVector<uint64_t> values;
  {
    tracecompact::WarmChunkSupply outer(1);  // the thread's supply
    tracecompact::WarmChunkSupply inner(3);  // inactive while outer is there
    for (size_t i = 0; i < n / 2; ++i) values.push_back(i ^ 0x9e3779b97f4a7c15);
  }
  // No supply any more: fresh chunks again, for this thread and others.
  for (size_t i = n / 2; i < n; ++i) values.push_back(i ^ 0x9e3779b97f4a7c15);
  tracecompact::ChunkedVector<uint64_t> elsewhere;
  std::thread([&] {
    for (size_t i = 0; i < n / 4; ++i) elsewhere.push_back(i);
  }).join();
  bool all = values.size() == n && elsewhere.size() == n / 4;
  for (size_t i = 0; i < n; ++i) all = all && values[i] == (i ^ 0x9e3779b97f4a7c15);
  for (size_t i = 0; i < n / 4; ++i) all = all && elsewhere[i] == i;
  CHECK(all);
}

TEST_CASE("a warm chunk supply destroyed out of order leaves no dangling supply", "[util]") {
  auto outer = std::make_unique<tracecompact::WarmChunkSupply>(1);
  auto inner = std::make_unique<tracecompact::WarmChunkSupply>(1);
  outer.reset();  // the thread's supply goes first; the inner one was never active
  tracecompact::ChunkedVector<uint64_t> values;
  for (size_t i = 0; i < 600000; ++i) values.push_back(i);  // into full-size chunks
  inner.reset();
  for (size_t i = 600000; i < 1200000; ++i) values.push_back(i);
  bool all = values.size() == 1200000;
  for (size_t i = 0; i < values.size(); ++i) all = all && values[i] == i;
  CHECK(all);
}
