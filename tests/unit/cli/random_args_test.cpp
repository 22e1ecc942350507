// Random datasets and command-line scanning.
#include <doctest/doctest.h>

#include "interp/cli/args.hpp"
#include "interp/cli/random_values.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using namespace thorn::cli;

TEST_CASE("value types for generation") {
  CHECK(parse_value_type("[1000][32]f32").str() == "[1000][32]f32");
  CHECK(parse_value_type("i64").str() == "i64");
  CHECK(parse_value_type("[ 3 ] bool").str() == "[3]bool");
  CHECK_THROWS_WITH_AS(parse_value_type("(i32, i32)"), doctest::Contains("tuples and records"), Error);
  CHECK_THROWS_WITH_AS(parse_value_type("[n]i32"), doctest::Contains("constant size"), Error);
  CHECK_THROWS_WITH_AS(parse_value_type("[3]"), doctest::Contains("missing element type"), Error);
}

TEST_CASE("random values are deterministic and within bounds") {
  ValueType t = parse_value_type("[1000]i32");
  RandomBounds b;
  b.set(Prim::I32, "-5:9");
  Value a = random_value(t, 7, b), a2 = random_value(t, 7, b), c = random_value(t, 8, b);
  bool differs = false;
  for (int64_t k = 0; k < 1000; ++k) {
    int64_t x = prim_element(a.arr(), k).i;
    CHECK(x >= -5);
    CHECK(x <= 9);
    CHECK(x == prim_element(a2.arr(), k).i);
    differs = differs || x != prim_element(c.arr(), k).i;
  }
  CHECK(differs);

  Value f = random_value(parse_value_type("[100][3]f32"), 1);
  CHECK(f.arr().shape == std::vector<int64_t>{100, 3});
  for (int64_t k = 0; k < 300; ++k) {
    double x = prim_element(f.arr(), k).f;
    CHECK(x >= 0.0);
    CHECK(x <= 1.0);
  }
  // Whole-range integers hit both halves.
  Value u = random_value(parse_value_type("[200]i64"), 3);
  bool negative = false, positive = false;
  for (int64_t k = 0; k < 200; ++k) {
    negative = negative || prim_element(u.arr(), k).i < 0;
    positive = positive || prim_element(u.arr(), k).i > 0;
  }
  CHECK((negative && positive));
  CHECK(random_value(parse_value_type("bool"), 1).kind == Value::Kind::Scalar);
  CHECK_THROWS_AS(b.set(Prim::U8, "0:300"), Error);
  CHECK_THROWS_AS(b.set(Prim::F32, "1:0"), Error);
}

TEST_CASE("argument scanning") {
  ArgScanner a("run", {"-e", "foo", "--backend=gpu", "-bx", "--validate", "prog.fut", "--", "-x"});
  REQUIRE(a.next());
  CHECK(a.is("-e", "--entry"));
  CHECK(a.value() == "foo");
  REQUIRE(a.next());
  CHECK(a.is("", "--backend"));
  CHECK(a.value() == "gpu");
  REQUIRE(a.next());
  CHECK(a.is("-b", ""));
  CHECK(a.value() == "x");
  REQUIRE(a.next());
  CHECK(a.is("", "--validate"));
  REQUIRE(a.next());
  CHECK(a.positional());
  CHECK(a.arg() == "prog.fut");
  REQUIRE(a.next());
  CHECK(a.positional());
  CHECK(a.arg() == "-x");
  CHECK_FALSE(a.next());

  ArgScanner missing("run", {"-e"});
  REQUIRE(missing.next());
  CHECK_THROWS_WITH_AS(missing.value(), doctest::Contains("option -e needs a value"), Error);
  ArgScanner flag("run", {"--validate=yes"});
  REQUIRE(flag.next());
  CHECK_THROWS_WITH_AS(flag.no_value(), doctest::Contains("takes no value"), Error);
}
