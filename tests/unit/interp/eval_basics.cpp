#include "eval_test_util.hpp"

using thorn::test::eval_text;

TEST_CASE("arithmetic on literals") {
  CHECK(eval_text("1 + 2") == "3i32");
  CHECK(eval_text("1i64 + 2") == "3i64");
  CHECK(eval_text("2.5 * 2") == "5.0f64");
}
