#include <catch2/catch.hpp>

#include "json/number_format.h"
#include "plan/pp_arrows.h"

using namespace tracecompact;

TEST_CASE("messages print numbers like Python's float repr", "[format]") {
  CHECK(python_float_repr(-1) == "-1.0");
  CHECK(python_float_repr(0.5) == "0.5");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(123456789012345.0) == "123456789012345.0");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(0.00001) == "1e-05");
  CHECK(python_float_repr(-2.5e-7) == "-2.5e-07");
}

TEST_CASE("computed doubles always carry a fraction or exponent", "[format]") {
  CHECK(format_double(1) == "1.0");
  CHECK(format_double(1.5) == "1.5");
  CHECK(format_double(-0.0) == "-0.0");
  CHECK(format_double(1e20).find_first_of(".e") != std::string::npos);
}

TEST_CASE("PP names take ASCII digits and numeric stage and microbatch", "[pp]") {
  auto n = parse_pp_name("PP:01F00");
  CHECK(n.kind == PPName::Kind::kOperation);
  CHECK(n.stage == 1);
  CHECK(n.op == PPOp::kF);
  CHECK(n.microbatch == 0);
  CHECK(parse_pp_name("PP:3SEND_B12").op == PPOp::kSendB);
  CHECK(parse_pp_name("PP:3SEND_B12").microbatch == 12);
  CHECK(parse_pp_name("PP:2UNSHARD").kind == PPName::Kind::kUnshard);
  CHECK(parse_pp_name("PP:F0").kind == PPName::Kind::kNone);
  CHECK(parse_pp_name("PP:0F").kind == PPName::Kind::kNone);
  CHECK(parse_pp_name("PP:0F0 ").kind == PPName::Kind::kNone);
  CHECK(parse_pp_name("PP:0X0").kind == PPName::Kind::kNone);
  CHECK(parse_pp_name("PP:\xd9\xa1"
                      "F0")
            .kind == PPName::Kind::kNone);  // Arabic-Indic one
}
