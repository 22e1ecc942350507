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
