// The textual value reader: every literal form, type guidance, and errors
// with positions.
#include <doctest/doctest.h>

#include <cmath>

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

TypePtr array(Prim p, int rank, std::vector<int64_t> sizes = {}) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Array;
  t->elem = prim(p);
  for (int k = 0; k < rank; ++k) {
    Dim d;
    if (size_t(k) < sizes.size() && sizes[size_t(k)] >= 0) {
      d.kind = Dim::Kind::Constant;
      d.value = sizes[size_t(k)];
    }
    t->dims.push_back(d);
  }
  return t;
}

Value read1(const std::string& text, const TypePtr& type) {
  ValueReader r(text);
  Value v = r.read(*type, "argument 1");
  CHECK(r.at_end());
  return v;
}

Scalar scalar1(const std::string& text, Prim p) {
  Value v = read1(text, prim(p));
  REQUIRE(v.kind == Value::Kind::Scalar);
  CHECK(v.scalar.type == p);
  return v.scalar;
}

std::vector<double> elems(const Value& v) {
  std::vector<double> out;
  for (int64_t k = 0; k < v.arr().count(); ++k) out.push_back(prim_element(v.arr(), k).as_f64());
  return out;
}

// The rendered error (message and position) of reading `text` as `type`.
std::string error_of(const std::string& text, const TypePtr& type) {
  try {
    read1(text, type);
  } catch (const Error& e) {
    CHECK(e.kind == ErrorKind::Input);
    return e.render();
  }
  return "no error";
}

}  // namespace

TEST_CASE("scalars with and without suffixes") {
  CHECK(scalar1("1i32", Prim::I32).i == 1);
  CHECK(scalar1("-7", Prim::I64).i == -7);
  CHECK(scalar1("3", Prim::F32).f == 3.0);          // an unsuffixed integer takes the expected type
  CHECK(scalar1("2.5f32", Prim::F32).f == 2.5);
  CHECK(scalar1("2.5", Prim::F64).f == 2.5);
  CHECK(scalar1("1e-3", Prim::F64).f == 1e-3);
  CHECK(scalar1("1.5E2f64", Prim::F64).f == 150.0);
  CHECK(scalar1("3f32", Prim::F32).f == 3.0);       // an integer with a float suffix is a float
  CHECK(scalar1("0xff", Prim::U8).u == 255);
  CHECK(scalar1("0xffu8", Prim::U8).u == 255);
  CHECK(scalar1("-0b101", Prim::I32).i == -5);
  CHECK(scalar1("1_000_000i64", Prim::I64).i == 1000000);
  CHECK(scalar1("18446744073709551615u64", Prim::U64).u == 18446744073709551615ull);
  CHECK(scalar1("-1", Prim::U32).u == 4294967295u);  // wraps, as Futhark's reader does
  CHECK(scalar1("true", Prim::Bool).b == true);
  CHECK(scalar1("false", Prim::Bool).b == false);
  CHECK(scalar1("1.5f16", Prim::F16).f == 1.5);
  CHECK(scalar1("0.1f32", Prim::F32).f == double(0.1f));
}

TEST_CASE("infinities and NaNs") {
  CHECK(std::isinf(scalar1("f32.inf", Prim::F32).f));
  CHECK(scalar1("-f64.inf", Prim::F64).f < 0);
  CHECK(std::isinf(scalar1("-f64.inf", Prim::F64).f));
  CHECK(std::isnan(scalar1("f64.nan", Prim::F64).f));
  CHECK(std::isnan(scalar1("-f64.nan", Prim::F64).f));
  CHECK(std::isnan(scalar1("f16.nan", Prim::F16).f));
}

TEST_CASE("arrays of any rank") {
  Value v = read1("[1, 2, 3]", array(Prim::I32, 1));
  CHECK(v.arr().shape == std::vector<int64_t>{3});
  CHECK(elems(v) == std::vector<double>{1, 2, 3});

  Value m = read1("[[1, 2], [3, 4], [5, 6]]", array(Prim::F32, 2));
  CHECK(m.arr().elem.prim == Prim::F32);
  CHECK(m.arr().shape == std::vector<int64_t>{3, 2});
  CHECK(elems(m) == std::vector<double>{1, 2, 3, 4, 5, 6});

  Value c = read1("[[[true]], [[false]]]", array(Prim::Bool, 3));
  CHECK(c.arr().shape == std::vector<int64_t>{2, 1, 1});

  Value trailing = read1("[1, 2,]", array(Prim::I64, 1));  // Futhark allows a trailing comma
  CHECK(trailing.arr().shape == std::vector<int64_t>{2});

  Value spaced = read1("  [ 1 ,\n\t2 ]  ", array(Prim::I8, 1));
  CHECK(elems(spaced) == std::vector<double>{1, 2});
}

TEST_CASE("empty arrays") {
  Value e = read1("empty([0][3]i32)", array(Prim::I32, 2));
  CHECK(e.arr().shape == std::vector<int64_t>{0, 3});
  Value e2 = read1("empty( [2][0] f64 )", array(Prim::F64, 2));
  CHECK(e2.arr().shape == std::vector<int64_t>{2, 0});
  Value b = read1("[]", array(Prim::F32, 1));  // the expected type supplies what [] lacks
  CHECK(b.arr().shape == std::vector<int64_t>{0});
  CHECK(b.arr().elem.prim == Prim::F32);
  Value rows = read1("[[], []]", array(Prim::I32, 2));
  CHECK(rows.arr().shape == std::vector<int64_t>{2, 0});
  Value inner = read1("[empty([0]i32), empty([0]i32)]", array(Prim::I32, 2));
  CHECK(inner.arr().shape == std::vector<int64_t>{2, 0});
}

TEST_CASE("strings are arrays of bytes") {
  Value s = read1("\"ab\\n\"", array(Prim::U8, 1));
  CHECK(elems(s) == std::vector<double>{'a', 'b', '\n'});
}

TEST_CASE("comments and blanks between values") {
  ValueReader r("-- leading comment\n1 -- one\n\n  [2, 3] -- two\n  true\n-- done\n");
  CHECK(r.read(*prim(Prim::I32), "a").scalar.i == 1);
  CHECK(elems(r.read(*array(Prim::I32, 1), "b")) == std::vector<double>{2, 3});
  CHECK(r.read(*prim(Prim::Bool), "c").scalar.b);
  CHECK(r.at_end());
}

TEST_CASE("untyped reading uses Futhark's defaults") {
  ValueReader r("1 2.5 [1i64, 2] [1.0, 2] 3u8 \"hi\" empty([0]bool)");
  auto [a, ta] = r.read_any("v");
  CHECK(ta.str() == "i32");
  CHECK(a.scalar.i == 1);
  CHECK(r.read_any("v").second.str() == "f64");
  auto [c, tc] = r.read_any("v");
  CHECK(tc.str() == "[2]i64");  // the first element decides
  CHECK(r.read_any("v").second.str() == "[2]f64");
  CHECK(r.read_any("v").second.str() == "u8");
  CHECK(r.read_any("v").second.str() == "[2]u8");
  CHECK(r.read_any("v").second.str() == "[0]bool");
  CHECK(r.at_end());
}

TEST_CASE("read_values reads arguments and rejects extra input") {
  auto vs = read_values("1 [2.0]", {prim(Prim::I32), array(Prim::F32, 1)});
  REQUIRE(vs.size() == 2);
  CHECK(vs[1].arr().elem.prim == Prim::F32);
  CHECK_THROWS_AS(read_values("1", {prim(Prim::I32), prim(Prim::I32)}), Error);
  CHECK_THROWS_AS(read_values("1 2", {prim(Prim::I32)}), Error);
}

TEST_CASE("type errors say which value, what was expected, and where") {
  std::string e = error_of("[1i32, 2]", array(Prim::F32, 2));
  CHECK(e.find("<stdin>:1:1: input error: argument 1: expected [][]f32, got [1i32, 2]") == 0);

  e = error_of("\n  [1.0, 2i32]", array(Prim::F32, 1));
  CHECK(e.find("<stdin>:2:9: input error: argument 1: expected []f32, got 2i32") == 0);
  CHECK(e.find("^^^^") != std::string::npos);  // the caret spans the literal

  e = error_of("2.5", prim(Prim::I32));
  CHECK(e.find("argument 1: expected i32, got 2.5") != std::string::npos);

  e = error_of("1", prim(Prim::Bool));
  CHECK(e.find("expected bool, got 1") != std::string::npos);

  e = error_of("[1, 2]", array(Prim::I32, 1, {3}));
  CHECK(e.find("expected [3]i32, got an array of type [2]i32") != std::string::npos);

  e = error_of("empty([0]i64)", array(Prim::I32, 1));
  CHECK(e.find("expected []i32, got empty([0]i64)") != std::string::npos);
}

TEST_CASE("malformed input errors") {
  std::string e = error_of("[[1, 2], [3]]", array(Prim::I32, 2));
  CHECK(e.find("1:10: input error: argument 1: irregular array") != std::string::npos);

  e = error_of("[1, 2", array(Prim::I32, 1));
  CHECK(e.find("expected ',' or ']', but the input ended") != std::string::npos);

  e = error_of("[1 2]", array(Prim::I32, 1));
  CHECK(e.find("1:4: input error: argument 1: expected ',' or ']', got 2") != std::string::npos);

  e = error_of("", prim(Prim::I32));
  CHECK(e.find("expected a value of type i32, but the input ended") != std::string::npos);

  e = error_of("abc", prim(Prim::I32));
  CHECK(e.find("expected a value of type i32, got abc") != std::string::npos);

  e = error_of("1.5i32", prim(Prim::I32));
  CHECK(e.find("a decimal number cannot have the suffix i32") != std::string::npos);

  e = error_of("99999999999999999999", prim(Prim::I64));
  CHECK(e.find("too large") != std::string::npos);

  e = error_of("empty([2]i32)", array(Prim::I32, 1));
  CHECK(e.find("needs a dimension that is 0") != std::string::npos);

  ValueReader r("[]");
  CHECK_THROWS_WITH_AS(r.read_any("value 1"), doctest::Contains("cannot tell the element type"), Error);
}

TEST_CASE("positions inside a larger file") {
  // A test block starting at line 10 of some file: errors point into the file.
  ValueReader r("1\n  [2, x]", "prog.fut", 10);
  r.read(*prim(Prim::I32), "value 1");
  try {
    r.read(*array(Prim::I32, 1), "value 2");
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.loc.line == 11);
    CHECK(e.loc.col == 7);
    CHECK(e.render().find("prog.fut:11:7:") == 0);
  }
}

TEST_CASE("values that the format cannot express") {
  auto tuple = std::make_shared<Type>();
  tuple->kind = Type::Kind::Tuple;
  tuple->elems = {prim(Prim::I32), prim(Prim::F32)};
  CHECK_FALSE(is_value_format_type(*tuple));
  ValueReader r("1");
  CHECK_THROWS_WITH_AS(r.read(*tuple, "argument 1"), doctest::Contains("(i32, f32) cannot be given"), Error);
}
