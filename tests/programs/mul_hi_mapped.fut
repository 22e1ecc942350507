-- mul_hi and mad_hi inside mapped functions (the flattener's lowering, which
-- builds the 64-bit cases from 32-bit halves), every integer type, signs
-- and extremes included.
-- ==
-- input { [0i64, 1, -1, 7, -9223372036854775808, 9223372036854775807, 123456789012345, -98765432109876]
--         [5i64, -1, -1, 9223372036854775807, -9223372036854775808, 9223372036854775807, -987654321098, 3] }
-- output { [0i64, -1i64, 0i64, 3i64, 4611686018427387904i64, 4611686018427387903i64, -6609982i64, -1i64] [0u64, 0u64, 18446744073709551614u64, 3u64, 4611686018427387904u64, 4611686018427387903u64, 123456782402363u64, 2u64] [3i64, 2i64, 3i64, 6i64, 4611686018427387907i64, 4611686018427387906i64, -6609979i64, 2i64] [0i32, -1i32, 0i32, -1i32, 0i32, 0i32, -89628732i32, 1i32] [0u32, 0u32, 4294967294u32, 6u32, 0u32, 4294967294u32, 98528250u32, 1u32] [1u32, 1u32, 4294967295u32, 7u32, 1u32, 4294967295u32, 98528251u32, 2u32] [0i16, -1i16, 0i16, -1i16, 0i16, 0i16, -398i16, -1i16] [0u16, 0u16, 65534u16, 6u16, 0u16, 65534u16, 2728u16, 2u16] [0i8, -1i8, 0i8, -1i8, 0i8, 0i8, 25i8, -1i8] [0u8, 0u8, 254u8, 6u8, 0u8, 254u8, 25u8, 2u8] [-1i8, -2i8, -1i8, -2i8, -1i8, -1i8, 24i8, -2i8] }

def hi64 (a: i64) (b: i64) = (i64.mul_hi a b, u64.mul_hi (u64.i64 a) (u64.i64 b), i64.mad_hi a b 3)
def hi32 (a: i64) (b: i64) = (i32.mul_hi (i32.i64 a) (i32.i64 b), u32.mul_hi (u32.i64 a) (u32.i64 b), u32.mad_hi (u32.i64 a) (u32.i64 b) 1)
def hi16 (a: i64) (b: i64) = (i16.mul_hi (i16.i64 a) (i16.i64 b), u16.mul_hi (u16.i64 a) (u16.i64 b))
def hi8 (a: i64) (b: i64) = (i8.mul_hi (i8.i64 a) (i8.i64 b), u8.mul_hi (u8.i64 a) (u8.i64 b), i8.mad_hi (i8.i64 a) (i8.i64 b) (-1))

def main (xs: []i64) (ys: []i64) =
  let (a, b, c) = unzip3 (map2 hi64 xs ys)
  let (d, e, f) = unzip3 (map2 hi32 xs ys)
  let (g, h) = unzip (map2 hi16 xs ys)
  let (i, j, k) = unzip3 (map2 hi8 xs ys)
  in (a, b, c, d, e, f, g, h, i, j, k)
