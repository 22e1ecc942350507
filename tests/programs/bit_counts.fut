-- popc, clz and ctz return i32 for every integer type, also inside mapped
-- functions that the host backend flattens (the result register of these
-- operations has a type other than their operand's).
-- ==
-- entry: clz
-- input { [0u64, 255u64, 65535u64, 4294967295u64, 18446744073709551615u64] }
-- output { [8i32, 0i32, 0i32, 0i32, 0i32] [16i32, 8i32, 0i32, 0i32, 0i32] }
entry clz (xs: []u64) = (map (\x -> i8.clz (i8.u64 x)) xs, map (\x -> u16.clz (u16.u64 x)) xs)

-- ==
-- entry: popc_ctz
-- input { [0u64, 255u64, 65535u64, 4294967295u64, 18446744073709551615u64] }
-- output { [0i32, 8i32, 16i32, 16i32, 16i32] [32i32, 0i32, 0i32, 0i32, 0i32] [64i32, 0i32, 0i32, 0i32, 0i32] }
entry popc_ctz (xs: []u64) =
  (map (\x -> i16.popc (i16.u64 x)) xs, map (\x -> u32.ctz (u32.u64 x)) xs, map (\x -> i64.ctz (i64.u64 x)) xs)

-- get_bit and set_bit inside mapped functions (pbbs' radix sorts and
-- k-d trees), bits outside the width included: 0 from get_bit, x
-- unchanged by set_bit.
-- ==
-- entry: bits
-- input { [0, 1, 7, 31, 32, -1] [5u8, 255u8, 128u8, 1u8, 3u8, 9u8] }
-- output { [1i32, 1i32, 1i32, 0i32, 0i32, 0i32] [1i32, 0i32, 1i32, 1i32, 0i32, 0i32]
--          [4u8, 253u8, 0u8, 1u8, 3u8, 9u8] [5u8, 255u8, 128u8, 1u8, 3u8, 9u8] [5i16, 255i16, 128i16, 1i16, 3i16, 9i16] }
entry bits (bs: []i32) (xs: []u8) =
  unzip5 (map2 (\b x -> (u8.get_bit b x, i32.get_bit b (i32.u8 x * -1), u8.set_bit b x 0, u8.set_bit b x 1,
                         i16.set_bit b (i16.u8 x) 3)) bs xs)
