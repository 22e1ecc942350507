-- Float to integer conversion of NaN and the infinities, on every backend:
-- all give 0, as in Futhark (its rts/c/scalar.h; tests/primitive/
-- float_convop.fut), as Scalar::convert_to does. The
-- arrays are long enough for the host backend to flatten the maps.
-- ==
-- input { 300i64 }
-- output { [0i64, 0i64, 0i64] [0i32, 0i32, 0i32] [0u8, 0u8, 0u8] }
def main (n: i64) =
  let xs = map (\i -> let k = i % 3 in if k == 0 then f64.nan else if k == 1 then f64.inf else -f64.inf) (iota n)
  let a = map i64.f64 xs
  let b = map (\x -> i32.f64 x) xs
  let c = map (\x -> u8.f64 x) xs
  in (take 3 a, take 3 b, take 3 c)
