// A trace's PP rank (spec 10): its distributedInfo.rank's position in the first
// PP group of pg_config that holds it. The reference walks pg_config with
// Python's `for group in pg_config` and `rank in ranks`, so equality is
// Python's and a malformed pg_config fails only where the walk reaches it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "index/index_pass.h"
#include "index/trace_metadata.h"
#include "source/trace_input.h"
#include "support/trace_builder.h"
#include "tracecompact/error.h"

using namespace testsupport;

namespace tracecompact {
namespace {

TraceMetadata metadata_of(const std::string& distributed_info) {
  const TraceInput input = TraceInput::from_memory(
      trace({kernel(0, 7, "0", "1")}, ",\"distributedInfo\":" + distributed_info));
  const TraceIndex index = build_index(input);
  return read_trace_metadata(index);
}

int64_t pp_rank_of(const std::string& distributed_info) {
  return single_trace_pp_rank(metadata_of(distributed_info));
}

std::string info(const std::string& rank, const std::string& pg_config) {
  return "{\"rank\":" + rank + ",\"pg_config\":" + pg_config + "}";
}

}  // namespace

TEST_CASE("a rank is found in its PP group with Python's equality", "[pp_rank]") {
  const std::string mesh = "{\"pg_desc\":\"mesh_pp\",\"ranks\":";
  CHECK(pp_rank_of(info("3", "[" + mesh + "[5,3]}]")) == 1);
  CHECK(pp_rank_of(info("3", "[" + mesh + "[5,3.0]}]")) == 1);  // 3 == 3.0
  CHECK(pp_rank_of(info("3", "[" + mesh + "[3.5,\"3\",null,[3],3]}]")) == 4);
  // True == 1 and False == 0 in Python.
  CHECK(pp_rank_of(info("1", "[" + mesh + "[false,true]}]")) == 1);
  CHECK(pp_rank_of(info("0", "[" + mesh + "[true,false]}]")) == 1);
  // Integers compare exactly: 2^53 + 1 is not the float 2^53.
  CHECK(pp_rank_of(
            info("9007199254740993", "[" + mesh + "[9007199254740992,9007199254740993]}]")) == 1);
  CHECK(pp_rank_of(info("9007199254740993", "[" + mesh + "[9007199254740992.0]}]")) == 0);
  CHECK(pp_rank_of(info("-9223372036854775808", "[" + mesh + "[1,-9223372036854775808]}]")) == 1);
  CHECK(pp_rank_of(info("7", "[" + mesh + "[18446744073709551615,7]}]")) == 1);
  // Integers beyond 64 bits equal no rank, and are no fault (any group).
  CHECK(pp_rank_of(info("7", "[" + mesh + "[18446744073709551616,7]}]")) == 1);
  CHECK(pp_rank_of(info("7", "[{\"pg_name\":\"dp\",\"ranks\":[-99999999999999999999]}]")) == 0);
  // A group that is not a PP group is passed over; so is one without the rank.
  CHECK(pp_rank_of(info("3",
                        "[{\"pg_name\":\"dp\",\"ranks\":[3]},{\"pg_name\":\"torchtitan_real_pp\","
                        "\"ranks\":[1,2]}," +
                            mesh + "[8,9,3]}]")) == 2);
  CHECK(pp_rank_of(info("3", "[" + mesh + "[8,9]}]")) == 0);
}

TEST_CASE("a malformed pg_config fails only where the walk reaches it", "[pp_rank]") {
  const std::string match = "{\"pg_desc\":\"mesh_pp\",\"ranks\":[4,3]}";
  // Empty strings and objects walk as empty lists; a match before junk wins.
  CHECK(pp_rank_of(info("3", "{}")) == 0);
  CHECK(pp_rank_of(info("3", "\"\"")) == 0);
  CHECK(pp_rank_of(info("3", "[]")) == 0);
  CHECK(pp_rank_of(info("3", "[" + match + ",\"junk\",null]")) == 1);
  CHECK(pp_rank_of("{\"rank\":3}") == 0);
  // Without an integer rank the groups are never read.
  CHECK(pp_rank_of(info("\"3\"", "null")) == 0);
  for (const std::string& pg_config : std::vector<std::string>{
           "null", "5", "true", "\"x\"", "{\"a\":1}", "[\"junk\"," + match + "]",
           "[{\"pg_name\":\"dp\"},7]", "[" + match.substr(0, match.size() - 6) + "[8]},[]]"}) {
    INFO(pg_config);
    CHECK_THROWS_WITH(pp_rank_of(info("3", pg_config)),
                      Catch::Contains("distributedInfo.pg_config must be a list of objects"));
  }
}

}  // namespace tracecompact
