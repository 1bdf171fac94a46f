// spec 2: the lane group of a measured slice, and the table of recent kernel
// names that spares classify_slice the rules for a name it has just seen.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "index/groups.h"

using namespace tracecompact;

TEST_CASE("slices are grouped by category, then by the lowered name", "[groups]") {
  CHECK(classify_slice("gpu_memcpy", "ncclKernel_AllGather") == Group::kMemcpy);
  CHECK(classify_slice("gpu_memset", "x") == Group::kMemset);
  CHECK(classify_slice("cuda_sync", "x") == Group::kCudaSync);
  CHECK(classify_slice("kernel", "ncclDevKernel_AllGather_RING_LL") == Group::kNcclAllGather);
  CHECK(classify_slice("kernel", "NCCLKERNEL_REDUCESCATTER") == Group::kNcclReduceScatter);
  CHECK(classify_slice("Kernel", "nccl_allreduce_sum") == Group::kNcclAllReduce);
  CHECK(classify_slice("kernel", "ncclDevKernel_SendRecv") == Group::kNcclOther);
  CHECK(classify_slice("kernel", "Symmetric_Memory_Barrier_kernel") ==
        Group::kSymmetricMemoryBarrier);
  CHECK(classify_slice("kernel", "symmetric_memory_put") == Group::kCompute);
  CHECK(classify_slice("kernel", "allgather_without_the_library") == Group::kCompute);
  CHECK(classify_slice("kernel", "") == Group::kCompute);
}

TEST_CASE("recent kernel names give the same group as the rules", "[groups]") {
  // More names than the table has slots, names alike but for their middle or
  // their case, empty and very long ones, in an order that keeps evicting.
  std::vector<std::string> names = {"", "n", "nccl", "NcCl_AllReduce", "ncclAllReduce"};
  const std::vector<std::string> parts = {
      "allgather",        "reducescatter", "allreduce", "sendrecv",
      "symmetric_memory", "barrier",       "gemm",      "NCCL"};
  std::mt19937_64 random(41);
  for (int i = 0; i < 400; ++i) {
    std::string name = "void k<" + std::to_string(i % 7) + ">_";
    for (int p = 0; p < 3; ++p) name += parts[random() % parts.size()] + "_";
    name += "(int, float)";
    if (i % 50 == 0) name.append(2000, 'x');  // longer than the table keeps
    names.push_back(name);
  }
  for (int i = 0; i < 20000; ++i) {
    const std::string& name = names[random() % names.size()];
    INFO(name);
    REQUIRE(classify_slice("kernel", name) == classify_kernel_name(name));
  }
}
