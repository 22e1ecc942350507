-- Float to integer conversion of finite values outside the target's range
-- (interp/core/float_to_int.hpp): i8..i32, u8 and u16 go through i32, i64
-- and u32 through i64, saturating there, then wrap to the target width.
-- So `i32.f32 1e20` is i32.highest, as a GPU gives, and 300 -> u8 is 44,
-- -1 -> u32 is u32.highest, as in C. Futhark's map_tridag_par test needs a
-- large magnitude here. The array is long enough for the host backend to
-- flatten the maps.
-- ==
-- input { 300i64 }
-- output {
--   [2147483647i32, -2147483648i32, 2147483647i32, 300i32, -1i32, 0i32]
--   [9223372036854775807i64, -9223372036854775808i64, 10000000000i64, 300i64, -1i64, 0i64]
--   [-1i8, 0i8, -1i8, 44i8, -1i8, 0i8]
--   [255u8, 0u8, 255u8, 44u8, 255u8, 0u8]
--   [4294967295u32, 0u32, 1410065408u32, 300u32, 4294967295u32, 0u32]
--   [18446744073709551615u64, 9223372036854775808u64, 10000000000u64, 300u64, 18446744073709551615u64, 0u64]
-- }
def main (n: i64) =
  let pick (i: i64) : f32 =
    match i % 6
    case 0 -> 1e20
    case 1 -> -1e20
    case 2 -> 1e10
    case 3 -> 300.7
    case 4 -> -1.5
    case _ -> f32.nan
  let xs = map pick (iota n)
  in ( take 6 (map i32.f32 xs), take 6 (map i64.f32 xs), take 6 (map i8.f32 xs)
     , take 6 (map u8.f32 xs), take 6 (map u32.f32 xs), take 6 (map u64.f32 xs))
