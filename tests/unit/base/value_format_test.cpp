// Printing values exactly as `futhark run` (Data style) and `futhark repl`
// (Repl style) do, the binary format, and result comparison.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "interp/core/value_compare.hpp"
#include "interp/core/value_io.hpp"
#include "interp/util/error.hpp"

using namespace thorn;

namespace {

TypePtr prim(Prim p) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Prim;
  t->prim = p;
  return t;
}

TypePtr array(Prim p, int rank) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Array;
  t->elem = prim(p);
  t->dims.resize(size_t(rank));
  return t;
}

Value parse(const std::string& text) { return ValueReader(text).read_any("v").first; }

std::string run_text(const std::string& text) {
  auto [v, t] = ValueReader(text).read_any("v");
  TypePtr type = t.shape.empty() ? prim(t.prim) : array(t.prim, int(t.shape.size()));
  return format_value(v, type, ValueStyle::Data);
}

std::string repl_text(const Value& v) { return format_value(v, TypePtr(), ValueStyle::Repl); }

Value f64(double x) { return Scalar::floating(Prim::F64, x); }

}  // namespace

TEST_CASE("scalars print like futhark run") {
  CHECK(run_text("1i32") == "1i32");
  CHECK(run_text("-5i8") == "-5i8");
  CHECK(run_text("255u8") == "255u8");
  CHECK(run_text("true") == "true");
  CHECK(run_text("2.5f64") == "2.5f64");
  CHECK(run_text("1.0f32") == "1.0f32");
  CHECK(run_text("1f64") == "1.0f64");
  CHECK(run_text("0.001") == "1.0e-3f64");
  CHECK(run_text("1e7") == "1.0e7f64");
  CHECK(run_text("123.456f32") == "123.456f32");
  CHECK(run_text("f32.nan") == "f32.nan");
  CHECK(run_text("-f64.nan") == "f64.nan");
  CHECK(run_text("-f64.inf") == "-f64.inf");
  CHECK(run_text("f16.inf") == "f16.inf");
}

TEST_CASE("arrays print like futhark run") {
  CHECK(run_text("[1, 2]") == "[1i32, 2i32]");
  CHECK(run_text("[[1, 2], [3, 4]]") == "[[1i32, 2i32],\n [3i32, 4i32]]");
  CHECK(run_text("[[[1], [2]], [[3], [4]]]") == "[[[1i32],\n  [2i32]],\n [[3i32],\n  [4i32]]]");
  CHECK(run_text("[true, false]") == "[true, false]");
  CHECK(run_text("[1.5f32, f32.inf]") == "[1.5f32, f32.inf]");
  CHECK(run_text("empty([0]i64)") == "empty([0]i64)");
  CHECK(run_text("empty([2][0]i32)") == "empty([2][0]i32)");
  CHECK(run_text("empty([0][3]f32)") == "empty([0][3]f32)");
}

TEST_CASE("the repl prints without suffixes") {
  CHECK(repl_text(Scalar::i32(3)) == "3");
  CHECK(repl_text(f64(1.0)) == "1.0");
  CHECK(repl_text(Scalar::floating(Prim::F32, NAN)) == "f32.nan");
  CHECK(repl_text(Scalar::floating(Prim::F64, -INFINITY)) == "-f64.inf");
  CHECK(repl_text(parse("[1, 2, 3]")) == "[1, 2, 3]");
  CHECK(repl_text(parse("[[1, 2], [3, 4]]")) == "[[1, 2],\n [3, 4]]");
  CHECK(repl_text(parse("empty([0]i32)")) == "[]");
  CHECK(repl_text(parse("empty([2][0]i32)")) == "[[],\n []]");
}

TEST_CASE("tuples, records, sums and functions") {
  Value t = Value::tuple({Scalar::i32(1), f64(2.0)});
  CHECK(format_value(t, TypePtr(), ValueStyle::Data) == "(1i32,\n 2.0f64)");
  CHECK(repl_text(Value::unit()) == "()");

  Value r = Value::record({{"b", Scalar::boolean(true)}, {"a", Scalar::i32(1)}});
  CHECK(format_value(r, TypePtr(), ValueStyle::Data) == "{a = 1i32,\n b = true}");

  CHECK(format_value(Value::sum("some", {Scalar::i32(1)}), TypePtr()) == "#some 1i32");
  CHECK(repl_text(Value::sum("none", {})) == "#none");
  // A sum as a payload is parenthesised.
  CHECK(repl_text(Value::sum("some", {Value::sum("none", {})})) == "#some (#none)");

  // Elements of an array that are not arrays are flattened when they fit.
  Value pairs = array_from_rows({Value::tuple({Scalar::i32(1), Scalar::i32(2)}),
                                 Value::tuple({Scalar::i32(3), Scalar::i32(4)})});
  CHECK(repl_text(pairs) == "[(1, 2), (3, 4)]");

  // A tuple holding a matrix stacks the rows.
  Value nested = Value::tuple({parse("[[1, 2], [3, 4]]"), Scalar::boolean(false)});
  CHECK(repl_text(nested) == "([[1, 2],\n  [3, 4]],\n false)");
}

TEST_CASE("long arrays of tuples break like prettyprinter's layoutPretty") {
  // hsep never breaks between the elements of an array of non-arrays, so
  // once the line is full every later element starts past column 80 and
  // breaks inside: Futhark's own (odd) layout, reproduced faithfully.
  std::vector<Value> rows;
  for (int k = 0; k < 10; ++k) rows.push_back(Value::tuple({Scalar::i32(k), Scalar::i32(k * 1000)}));
  std::string s = repl_text(array_from_rows(rows));
  CHECK(s ==
        "[(0, 0), (1, 1000), (2, 2000), (3, 3000), (4, 4000), (5, 5000), (6, 6000), (7,\n"
        "                                                                            7000), (8,\n"
        "                                                                                    8000), (9,\n"
        "                                                                                            9000)]");
  // Short ones stay on one line.
  CHECK(repl_text(array_from_rows({rows[0], rows[1]})) == "[(0, 0), (1, 1000)]");
}

TEST_CASE("binary values round-trip, mixed with text") {
  std::string input = "1i32 ";
  write_binary_value(input, parse("[[1.5f32, 2.5f32], [3.0f32, -4.0f32]]"));
  input += "\n -- a comment between values\n";
  write_binary_value(input, Scalar::boolean(true));
  write_binary_value(input, parse("empty([0][2]i64)"));
  write_binary_value(input, Scalar::floating(Prim::F16, 0.5));
  input += " [7u16]";

  ValueReader r(input);
  CHECK(r.read_any("v").first.scalar.i == 1);
  auto [m, mt] = r.read_any("v");
  CHECK(mt.str() == "[2][2]f32");
  CHECK(prim_element(m.arr(), 3).f == -4.0);
  CHECK(r.read(*prim(Prim::Bool), "v").scalar.b);
  CHECK(r.read_any("v").second.str() == "[0][2]i64");
  CHECK(r.read(*prim(Prim::F16), "v").scalar.f == 0.5);
  CHECK(r.read_any("v").second.str() == "[1]u16");
  CHECK(r.at_end());
}

TEST_CASE("binary encoding is Futhark's") {
  std::string b = binary_value(parse("[1, 2]"));
  REQUIRE(b.size() == 7 + 8 + 8);
  CHECK(b.substr(0, 3) == std::string("b\x02\x01", 3));
  CHECK(b.substr(3, 4) == " i32");
  uint64_t dim;
  std::memcpy(&dim, b.data() + 7, 8);
  CHECK(dim == 2);
  int32_t second;
  std::memcpy(&second, b.data() + 19, 4);
  CHECK(second == 2);
  CHECK(binary_value(Scalar::boolean(true)) == std::string("b\x02\x00" "bool\x01", 8));
  CHECK(binary_value(parse("3u8")).substr(3, 4) == "  u8");
}

TEST_CASE("binary errors") {
  std::string bad = binary_value(parse("[1, 2]"));
  CHECK_THROWS_WITH_AS(ValueReader(bad).read(*array(Prim::F32, 1), "argument 1"),
                       doctest::Contains("argument 1: binary value at byte 0: expected []f32, got a value of type [2]i32"),
                       Error);
  CHECK_THROWS_WITH_AS(ValueReader(bad.substr(0, bad.size() - 1)).read_any("v"),
                       doctest::Contains("ends in the middle"), Error);
  std::string version = bad;
  version[1] = 1;
  CHECK_THROWS_WITH_AS(ValueReader(version).read_any("v"), doctest::Contains("unsupported format version 1"), Error);
  std::string tag = bad;
  tag[4] = 'x';
  CHECK_THROWS_WITH_AS(ValueReader(tag).read_any("v"), doctest::Contains("unknown element type"), Error);
}

TEST_CASE("comparison as futhark test does it") {
  CHECK_FALSE(compare_value(parse("[1, 2, 3]"), parse("[1, 2, 3]")));
  CHECK(*compare_value(parse("[1, 2, 4]"), parse("[1, 2, 3]")) == "value #0 index [2]: expected 3i32, got 4i32");
  CHECK(*compare_value(parse("[[1, 2], [3, 5]]"), parse("[[1, 2], [3, 4]]"), 1) ==
        "value #1 index [1,1]: expected 4i32, got 5i32");
  CHECK(*compare_value(parse("[1, 2]"), parse("[1, 2, 3]")) ==
        "value #0: expected an array of shape [3], got [2]");
  CHECK(*compare_value(parse("1i64"), parse("1i32")) == "value #0: expected a value of type i32, got i64");
  // Tolerance relative to the largest expected value.
  CHECK_FALSE(compare_value(parse("[1000.0, 1.0]"), parse("[1001.0, 1.0]")));
  CHECK(compare_value(parse("[1000.0, 1.0]"), parse("[1003.0, 1.0]")));
  CHECK_FALSE(compare_value(parse("1.001"), parse("1.0")));
  CHECK(compare_value(parse("1.01"), parse("1.0")));
  CHECK_FALSE(compare_value(parse("[f64.nan, f64.inf]"), parse("[f64.nan, f64.inf]")));
  CHECK(compare_value(parse("-f64.inf"), parse("f64.inf")));
  CHECK(compare_value(parse("f64.nan"), parse("1.0")));
  CHECK(*compare_values({parse("1")}, {parse("1"), parse("2")}) == "expected 2 values, got 1");
  CHECK(compare_value(Value::tuple({Scalar::i32(1), Scalar::i32(2)}), Value::tuple({Scalar::i32(1), Scalar::i32(3)})));
}
