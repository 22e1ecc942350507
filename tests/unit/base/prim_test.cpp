#include <doctest/doctest.h>

#include <cmath>

#include "interp/core/prim.hpp"

using namespace thorn;

TEST_CASE("integers wrap to their width") {
  CHECK(Scalar::signed_int(Prim::I8, 130).i == -126);
  CHECK(Scalar::signed_int(Prim::I32, 0x80000000LL).i == -2147483648LL);
  CHECK(Scalar::unsigned_int(Prim::U8, 300).u == 44);
  CHECK(Scalar::signed_int(Prim::U16, -1).u == 65535);
}

TEST_CASE("conversions follow Futhark") {
  CHECK(Scalar::floating(Prim::F64, -2.7).convert_to(Prim::I32).i == -2);
  CHECK(Scalar::signed_int(Prim::I32, -1).convert_to(Prim::U32).u == 4294967295u);
  CHECK(Scalar::boolean(true).convert_to(Prim::F32).f == 1.0);
  CHECK(Scalar::signed_int(Prim::I64, 0).convert_to(Prim::Bool).b == false);
  CHECK(Scalar::unsigned_int(Prim::U8, 255).convert_to(Prim::I8).i == -1);
  CHECK(Scalar::signed_int(Prim::I8, -128).convert_to(Prim::U16).u == 128);  // zero-extends into unsigned
  CHECK(Scalar::signed_int(Prim::I16, -32768).convert_to(Prim::U64).u == 32768);
  CHECK(Scalar::signed_int(Prim::I8, -1).convert_to(Prim::I64).i == -1);
  CHECK(Scalar::signed_int(Prim::I8, -128).convert_to(Prim::F32).f == -128.0);
}

TEST_CASE("scalars print like futhark run") {
  CHECK(format_scalar(Scalar::i32(-3)) == "-3i32");
  CHECK(format_scalar(Scalar::unsigned_int(Prim::U64, 18446744073709551615ull)) == "18446744073709551615u64");
  CHECK(format_scalar(Scalar::boolean(true)) == "true");
  CHECK(format_scalar(Scalar::floating(Prim::F64, 1.0)) == "1.0f64");
  CHECK(format_scalar(Scalar::floating(Prim::F64, 2.5)) == "2.5f64");
  CHECK(format_scalar(Scalar::floating(Prim::F32, 0.1)) == "0.1f32");
  CHECK(format_scalar(Scalar::floating(Prim::F64, 0.01)) == "1.0e-2f64");
  CHECK(format_scalar(Scalar::floating(Prim::F64, 12345678.0)) == "1.2345678e7f64");
  CHECK(format_scalar(Scalar::floating(Prim::F64, 1234567.0)) == "1234567.0f64");
  CHECK(format_scalar(Scalar::floating(Prim::F64, -0.5)) == "-0.5f64");
  CHECK(format_scalar(Scalar::floating(Prim::F32, NAN)) == "f32.nan");
  CHECK(format_scalar(Scalar::floating(Prim::F64, -INFINITY)) == "-f64.inf");
  CHECK(format_scalar(Scalar::floating(Prim::F16, 0.1)) == "9.9975586e-2f16");
}

TEST_CASE("f16 rounding") {
  CHECK(round_to_f16(1.0) == 1.0);
  CHECK(round_to_f16(65504.0) == 65504.0);
  CHECK(std::isinf(round_to_f16(70000.0)));
  CHECK(round_to_f16(1.0 + 1.0 / 4096) == 1.0);  // ties to even
  CHECK(f16_from_bits(f16_bits(5.960464477539063e-08)) == 5.960464477539063e-08);  // smallest subnormal
}
