// Parsing `-- ==` test blocks the way `futhark test` does.
#include <doctest/doctest.h>

#include "interp/cli/test_spec.hpp"
#include "interp/util/error.hpp"

using namespace thorn;
using namespace thorn::cli;

namespace {

ProgramTest spec(const std::string& text) {
  auto t = parse_test_spec(register_source("prog.fut", text));
  REQUIRE(t.has_value());
  return *t;
}

std::string error_of(const std::string& text) {
  try {
    parse_test_spec(register_source("prog.fut", text));
  } catch (const Error& e) {
    CHECK(e.kind == ErrorKind::Syntax);
    return e.render();
  }
  return "no error";
}

}  // namespace

TEST_CASE("programs without test blocks") {
  CHECK_FALSE(parse_test_spec(register_source("p.fut", "-- just a comment\ndef main (x: i32) = x\n")));
  CHECK_FALSE(parse_test_spec(register_source("p.fut", "")));
}

TEST_CASE("the futhark-test manual's first example") {
  ProgramTest t = spec(
      "-- Test simple indexing of an array.\n"
      "-- ==\n"
      "-- tags { firsttag secondtag }\n"
      "-- input { [4,3,2,1] 1i64 }\n"
      "-- output { 3 }\n"
      "-- input { [4,3,2,1] 5i64 }\n"
      "-- error: Error*\n"
      "\n"
      "let main (a: []i32) (i: i64): i32 =\n"
      "  a[i]\n");
  CHECK(t.tags == std::vector<std::string>{"firsttag", "secondtag"});
  REQUIRE(t.cases.size() == 1);
  const InputOutputs& io = t.cases[0];
  CHECK(io.entries == std::vector<std::string>{"main"});
  REQUIRE(io.runs.size() == 2);
  CHECK(io.runs[0].input.kind == TestInput::Kind::Values);
  CHECK(io.runs[0].input.values.text.find("[4,3,2,1] 1i64") != std::string::npos);
  CHECK(io.runs[0].input.values.line == 4);
  CHECK(io.runs[0].expected.kind == ExpectedResult::Kind::Values);
  CHECK(io.runs[0].name == "#0 (\"[4i32, 3i32, 2i32, 1i32] 1i64\")");
  CHECK(io.runs[1].expected.kind == ExpectedResult::Kind::Error);
  CHECK(io.runs[1].expected.error_regex == "Error*");
  CHECK(io.runs[1].name == "#1 (\"[4i32, 3i32, 2i32, 1i32] 5i64\")");
}

TEST_CASE("values keep their columns in the file") {
  ProgramTest t = spec("-- ==\n-- input {\n--   [1, 2]\n-- }\n");
  const ValuesText& v = t.cases[0].runs[0].input.values;
  CHECK(v.line == 2);
  // Reading the text reports positions of the program file.
  ValueReader r(v.text, "prog.fut", v.line);
  try {
    r.read(*semantic_type(ValueType{Prim::Bool, {}}), "argument 1");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.loc.line == 3);
    CHECK(e.loc.col == 6);
  }
}

TEST_CASE("several entry points and blocks") {
  ProgramTest t = spec(
      "let add (x: i32) (y: i32): i32 = x + y\n"
      "-- Test the add1 function.\n"
      "-- ==\n"
      "-- entry: add1\n"
      "-- input { 1 } output { 2 }\n"
      "entry add1 (x: i32): i32 = add x 1\n"
      "-- ==\n"
      "-- entry: sub1 sub2\n"
      "-- input { 1 }\n"
      "-- output { 0 }\n"
      "entry sub1 (x: i32): i32 = add x (-1)\n");
  REQUIRE(t.cases.size() == 2);
  CHECK(t.cases[0].entries == std::vector<std::string>{"add1"});
  CHECK(t.cases[1].entries == std::vector<std::string>{"sub1", "sub2"});
  CHECK(t.cases[1].runs[0].expected.kind == ExpectedResult::Kind::Values);
}

TEST_CASE("keywords need no space after their colon") {
  // Futhark's parser matches `entry:` as a prefix (0undefined/futhark-btree
  // writes `-- entry:construct_tree`).
  ProgramTest t = spec(
      "-- ==\n"
      "-- entry:f g\n"
      "-- input { 1 } output { 2 }\n"
      "entry f (x: i32) = x + 1\n"
      "entry g (x: i32) = x + 1\n");
  REQUIRE(t.cases.size() == 1);
  CHECK(t.cases[0].entries == std::vector<std::string>{"f", "g"});
}

TEST_CASE("files, names, tags, random input and auto output") {
  ProgramTest t = spec(
      "-- ==\n"
      "-- \"small\" input { 1 } output { 1 }\n"
      "-- compiled nobench input @ data/big.in.gz\n"
      "-- output @ data/big.out\n"
      "-- random input { [100]i32 [10][20]f32 10i64 } auto output\n"
      "-- no_opencl input { 2 }\n"
      "-- script input { mk 10 } output { 3 }\n");
  const auto& runs = t.cases[0].runs;
  REQUIRE(runs.size() == 5);
  CHECK(runs[0].name == "small");
  CHECK(runs[1].tags == std::vector<std::string>{"compiled", "nobench"});
  CHECK(runs[1].input.kind == TestInput::Kind::File);
  CHECK(runs[1].input.file == "data/big.in.gz");
  CHECK(runs[1].name == "data/big.in");  // .gz is dropped from the name
  CHECK(runs[1].expected.kind == ExpectedResult::Kind::File);
  CHECK(runs[1].expected.file == "data/big.out");
  CHECK(runs[2].input.kind == TestInput::Kind::Random);
  REQUIRE(runs[2].input.random.size() == 3);
  CHECK(runs[2].input.random[1].type->str() == "[10][20]f32");
  CHECK(runs[2].input.random[2].fixed.has_value());
  CHECK(runs[2].name == "[100]i32 [10][20]f32 10i64");
  CHECK(runs[2].expected.kind == ExpectedResult::Kind::Auto);
  CHECK(runs[3].tags == std::vector<std::string>{"no_opencl"});
  CHECK(runs[3].expected.kind == ExpectedResult::Kind::Success);
  CHECK(runs[4].input.kind == TestInput::Kind::Script);
}

TEST_CASE("a block that expects a type error") {
  ProgramTest t = spec("-- ==\n-- error: Cannot unify\ndef main = 1 + true\n");
  CHECK(t.expects_compile_error);
  CHECK(t.compile_error_regex == "Cannot unify");
  CHECK(t.cases.empty());
  ProgramTest any = spec("-- ==\n-- error:\n");
  CHECK(any.expects_compile_error);
  CHECK(any.compile_error_regex.empty());
}

TEST_CASE("structure and warning tests are skipped") {
  ProgramTest t = spec(
      "-- ==\n"
      "-- input { 1 } output { 1 }\n"
      "-- structure gpu { SegMap 1 SegRed 2 }\n"
      "-- structure { Screma 1 }\n"
      "-- warning: unused\n");
  CHECK(t.cases[0].runs.size() == 1);
  CHECK(t.structure_tests == 2);
  CHECK(t.warning_tests == 1);
}

TEST_CASE("disabled programs and properties") {
  ProgramTest t = spec("-- ==\n-- tags { disable }\n-- input { 1 }\n");
  CHECK(t.has_tag("disable"));
  ProgramTest p = spec("-- ==\n-- property: prop_a prop_b\n");
  CHECK(p.properties == std::vector<std::string>{"prop_a", "prop_b"});
}

TEST_CASE("malformed blocks are reported with positions") {
  CHECK(error_of("-- ==\n-- input { 1 \n") .find("prog.fut:2:10: syntax error: test block: this '{' of 'input' is never closed") == 0);
  CHECK(error_of("-- ==\n-- input { 1 } outptu { 2 }\n").find("prog.fut:2:23: syntax error: test block: expected 'input', got '{'") == 0);
  CHECK(error_of("-- ==\n-- \"a\" input { 1 }\n-- \"a\" input { 2 }\n").find("multiple datasets with name \"a\"") !=
        std::string::npos);
  CHECK(error_of("-- ==\n-- random input { [10]t }\n").find("unknown type 't'") != std::string::npos);
  CHECK(error_of("-- ==\n-- random input { []i32 }\n").find("constant size") != std::string::npos);
  CHECK(error_of("-- ==\n-- error: x\ndef f = 1\n-- ==\n-- input { 1 }\n").find("no more test blocks") !=
        std::string::npos);
}
