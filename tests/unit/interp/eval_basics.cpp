// Scalar semantics: literals, integer wrap-around, Futhark's two kinds of
// division, shifts, floats, comparisons, conversions.
#include "eval_test_util.hpp"

using thorn::test::eval_error;
using thorn::test::eval_text;

TEST_CASE("literals take the checker's types") {
  CHECK(eval_text("1 + 2") == "3i32");
  CHECK(eval_text("1i64 + 2") == "3i64");
  CHECK(eval_text("2.5 * 2") == "5.0f64");
  CHECK(eval_text("1f32 + 0.5") == "1.5f32");
  CHECK(eval_text("'a'") == "97i32");
  CHECK(eval_text("0xff_u8 + 1") == "0u8");
  CHECK(eval_text("true && !false") == "true");
}

TEST_CASE("integers wrap around at every width") {
  CHECK(eval_text("127i8 + 1") == "-128i8");
  CHECK(eval_text("255u8 + 1") == "0u8");
  CHECK(eval_text("0u16 - 1") == "65535u16");
  CHECK(eval_text("i32.highest + 1") == "-2147483648i32");
  CHECK(eval_text("i64.highest * 2") == "-2i64");
  CHECK(eval_text("-(-128i8)") == "-128i8");
  CHECK(eval_text("2i32 ** 31") == "-2147483648i32");
  CHECK(eval_text("3u64 ** 41") == "18026252303461234787u64");  // 3^41 mod 2^64
}

TEST_CASE("division: / and % round toward negative infinity, // and %% toward zero") {
  CHECK(eval_text("-7 / 2") == "-4i32");
  CHECK(eval_text("-7 % 2") == "1i32");
  CHECK(eval_text("7 % -2") == "-1i32");
  CHECK(eval_text("-7 // 2") == "-3i32");
  CHECK(eval_text("-7 %% 2") == "-1i32");
  CHECK(eval_text("7 / 2") == "3i32");
  CHECK(eval_text("200u8 / 3") == "66u8");
  CHECK(eval_text("200u8 % 7") == "4u8");
  CHECK(eval_text("i32.lowest / -1") == "-2147483648i32");
  CHECK(eval_text("i32.lowest % -1") == "0i32");
  CHECK(eval_error("1 / 0") == "division by zero");
  CHECK(eval_error("1u8 % 0") == "division by zero");
  CHECK(eval_error("1 // 0") == "division by zero");
}

TEST_CASE("shifts and bitwise operators") {
  CHECK(eval_text("1 << 4") == "16i32");
  CHECK(eval_text("1 << 40") == "0i32");
  CHECK(eval_text("-8 >> 1") == "-4i32");
  CHECK(eval_text("-8 >>> 1") == "2147483644i32");
  CHECK(eval_text("-8i8 >>> 1") == "124i8");
  CHECK(eval_text("200u8 >> 1") == "100u8");
  CHECK(eval_text("6 & 3") == "2i32");
  CHECK(eval_text("6 | 3") == "7i32");
  CHECK(eval_text("6 ^ 3") == "5i32");
  CHECK(eval_text("!0u8") == "255u8");
  CHECK(eval_text("i32.not 0") == "-1i32");
}

TEST_CASE("floats are IEEE in their own precision") {
  CHECK(eval_text("0.1f32 + 0.2f32") == "0.3f32");
  CHECK(eval_text("0.1 + 0.2") == "0.30000000000000004f64");
  CHECK(eval_text("1f64 / 0") == "f64.inf");
  CHECK(eval_text("-1f32 / 0") == "-f32.inf");
  CHECK(eval_text("0f64 / 0") == "f64.nan");
  CHECK(eval_text("f64.nan == f64.nan") == "false");
  CHECK(eval_text("-0.0 == 0.0") == "true");
  CHECK(eval_text("7.5 % 2.0") == "1.5f64");
  CHECK(eval_text("-7.5 % 2.0") == "-1.5f64");
  CHECK(eval_text("2f32 ** 0.5") == "1.4142135f32");
  CHECK(eval_text("f16.sqrt 2") == "1.4140625f16");
  CHECK(eval_text("f16.f32 65520") == "f16.inf");
  CHECK(eval_text("1f16 + 0.0001") == "1.0f16");
}

TEST_CASE("comparisons, including bool ordering") {
  CHECK(eval_text("1 < 2") == "true");
  CHECK(eval_text("255u8 > 1u8") == "true");
  CHECK(eval_text("-1i8 < 1i8") == "true");
  CHECK(eval_text("false < true") == "true");
  CHECK(eval_text("f64.nan < 1") == "false");
  CHECK(eval_text("f64.nan >= 1") == "false");
  CHECK(eval_text("2 != 3") == "true");
}

TEST_CASE("&& and || short-circuit") {
  CHECK(eval_text("false && (1 / 0 == 0)") == "false");
  CHECK(eval_text("true || (1 / 0 == 0)") == "true");
  CHECK(eval_error("true && (1 / 0 == 0)") == "division by zero");
}

TEST_CASE("conversions") {
  CHECK(eval_text("i64.i32 (-5)") == "-5i64");
  CHECK(eval_text("u32.i32 (-1)") == "4294967295u32");
  CHECK(eval_text("i8.i32 300") == "44i8");
  CHECK(eval_text("i32.f64 3.7") == "3i32");
  CHECK(eval_text("i32.f64 (-3.7)") == "-3i32");
  // The infinities and NaN give 0, as in Futhark; finite values beyond i64
  // saturate (Scalar::convert_to), then wrap.
  CHECK(eval_text("i32.f64 f64.inf") == "0i32");
  CHECK(eval_text("i64.f64 (-f64.inf)") == "0i64");
  CHECK(eval_text("u32.f32 f32.inf") == "0u32");
  CHECK(eval_text("i64.f64 1e30") == "9223372036854775807i64");
  CHECK(eval_text("i32.f32 f32.nan") == "0i32");
  CHECK(eval_text("f32.i32 7") == "7.0f32");
  CHECK(eval_text("f64.u64 u64.highest") == "1.8446744073709552e19f64");
  CHECK(eval_text("bool.i32 3") == "true");
  CHECK(eval_text("bool.f64 0") == "false");
  CHECK(eval_text("i32.bool true") == "1i32");
  CHECK(eval_text("f32.f64 0.1") == "0.1f32");
  CHECK(eval_text("f64.from_fraction 1 4") == "0.25f64");
  CHECK(eval_text("f32.to_i64 2.9") == "2i64");
  CHECK(eval_text("i32.u32 4294967295u32") == "-1i32");
  CHECK(eval_text("u32.i32 (-1)") == "4294967295u32");
}

TEST_CASE("integer functions of the numeric modules") {
  CHECK(eval_text("i32.abs (-3)") == "3i32");
  CHECK(eval_text("i8.abs (-128)") == "-128i8");
  CHECK(eval_text("i32.sgn (-3)") == "-1i32");
  CHECK(eval_text("u8.sgn 7") == "1u8");
  CHECK(eval_text("i32.max 3 5") == "5i32");
  CHECK(eval_text("u8.min 200 3") == "3u8");
  CHECK(eval_text("i32.popc (-1)") == "32i32");
  CHECK(eval_text("u8.popc 255") == "8i32");
  CHECK(eval_text("i32.clz 1") == "31i32");
  CHECK(eval_text("i16.clz 0") == "16i32");
  CHECK(eval_text("i64.ctz 8") == "3i32");
  CHECK(eval_text("u32.ctz 0") == "32i32");
  CHECK(eval_text("i32.mul_hi 0x40000000 4") == "1i32");
  CHECK(eval_text("i32.mul_hi (-1) 1") == "-1i32");
  CHECK(eval_text("u8.mul_hi 200 200") == "156u8");
  CHECK(eval_text("u64.mul_hi u64.highest 2") == "1u64");
  CHECK(eval_text("i32.mad_hi 0x40000000 4 10") == "11i32");
  CHECK(eval_text("i32.get_bit 3 8") == "1i32");
  CHECK(eval_text("i32.set_bit 0 8 1") == "9i32");
  CHECK(eval_text("i32.set_bit 3 8 0") == "0i32");
  CHECK(eval_text("i8.num_bits") == "8i32");
  CHECK(eval_text("i16.highest") == "32767i16");
  CHECK(eval_text("i16.lowest") == "-32768i16");
  CHECK(eval_text("u16.lowest") == "0u16");
  CHECK(eval_text("i32.sum [1, 2, 3]") == "6i32");
  CHECK(eval_text("i32.product [2, 3, 4]") == "24i32");
  CHECK(eval_text("i32.maximum [2, 7, 4]") == "7i32");
  CHECK(eval_text("i32.minimum ([] : []i32)") == "2147483647i32");
  CHECK(eval_text("i32.maximum ([] : []i32)") == "-2147483648i32");
  CHECK(eval_text("(i32.+) 1 2") == "3i32");
  CHECK(eval_text("(i64.*) 3 4") == "12i64");
}

TEST_CASE("float functions of the numeric modules") {
  CHECK(eval_text("f64.sqrt 16") == "4.0f64");
  CHECK(eval_text("f32.sqrt 2") == "1.4142135f32");
  CHECK(eval_text("f64.round 2.5") == "2.0f64");
  CHECK(eval_text("f64.round 3.5") == "4.0f64");
  CHECK(eval_text("f64.round (-2.5)") == "-2.0f64");
  CHECK(eval_text("f32.floor (-1.5)") == "-2.0f32");
  CHECK(eval_text("f32.ceil 1.2") == "2.0f32");
  CHECK(eval_text("f64.trunc (-1.7)") == "-1.0f64");
  CHECK(eval_text("f64.abs (-2)") == "2.0f64");
  CHECK(eval_text("f64.sgn (-2)") == "-1.0f64");
  CHECK(eval_text("f64.max 1 f64.nan") == "1.0f64");
  CHECK(eval_text("f64.min f64.nan 2") == "2.0f64");
  CHECK(eval_text("f64.isnan f64.nan") == "true");
  CHECK(eval_text("f32.isinf (-f32.inf)") == "true");
  CHECK(eval_text("f64.to_bits 1.0") == "4607182418800017408u64");
  CHECK(eval_text("f32.from_bits 0x3f800000") == "1.0f32");
  CHECK(eval_text("f16.to_bits 1.0") == "15360u16");
  CHECK(eval_text("f32.get_bit 31 (-1)") == "1i32");
  CHECK(eval_text("f32.set_bit 31 1 1") == "-1.0f32");
  CHECK(eval_text("f64.log 1") == "0.0f64");
  CHECK(eval_text("f64.exp 0") == "1.0f64");
  CHECK(eval_text("f64.atan2 1 1 == f64.pi / 4") == "true");
  CHECK(eval_text("f64.hypot 3 4") == "5.0f64");
  CHECK(eval_text("f64.fma 2 3 4") == "10.0f64");
  CHECK(eval_text("f64.lerp 0 10 0.25") == "2.5f64");
  CHECK(eval_text("f64.copysign 3 (-1)") == "-3.0f64");
  CHECK(eval_text("f64.ldexp 1 10") == "1024.0f64");
  CHECK(eval_text("f32.nextafter 1 2 > 1") == "true");
  CHECK(eval_text("f64.gamma 5") == "24.0f64");
  CHECK(eval_text("f64.highest") == "f64.inf");
  CHECK(eval_text("f32.lowest") == "-f32.inf");
  CHECK(eval_text("f32.pi") == "3.1415927f32");
  CHECK(eval_text("f64.e") == "2.718281828459045f64");
  CHECK(eval_text("f64.recip 4") == "0.25f64");
  CHECK(eval_text("f32.sum [0.5, 0.25]") == "0.75f32");
  CHECK(eval_text("f64.maximum [1, 3, 2]") == "3.0f64");
  CHECK(eval_text("f64.to_f64 2") == "2.0f64");
}
