-- Float to integer conversion of NaN and the infinities, on every backend:
-- NaN gives 0, the infinities saturate through i64 like other out-of-range
-- values (then wrap to narrower types), as Scalar::convert_to does. The
-- arrays are long enough for the host backend to flatten the maps.
-- ==
-- input { 300i64 }
-- output { [0i64, 9223372036854775807i64, -9223372036854775808i64] [0i32, -1i32, 0i32] [0u8, 255u8, 0u8] }
def main (n: i64) =
  let xs = map (\i -> let k = i % 3 in if k == 0 then f64.nan else if k == 1 then f64.inf else -f64.inf) (iota n)
  let a = map i64.f64 xs
  let b = map (\x -> i32.f64 x) xs
  let c = map (\x -> u8.f64 x) xs
  in (take 3 a, take 3 b, take 3 c)
