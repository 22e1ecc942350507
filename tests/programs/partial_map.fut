-- Maps of partial applications of named functions. The narrow map of
-- `smooth 2` is distributed like a lambda (the sum in its body becomes a
-- segmented reduction); `gray dirs` has a size parameter that the given
-- argument's shape gives, which the rest of the call could not solve, so
-- it stays undistributed (rodinia/backprop's `sobolIndR dirVct`).
-- ==
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] 5i64 }
-- output { [[8.0, 10.0, 12.0], [23.0, 25.0, 27.0]] [0.0f32, 0.5f32, 0.75f32, 0.25f32, 0.375f32] }

def smooth (k: f64) (xs: []f64) =
  let s = f64.sum xs
  in map (\x -> x * k + s) xs

def gray [b] (dirs: [b]i32) (n: i32) : f32 =
  let g = (n >> 1) ^ n
  let r = loop r = 0 for (i, v) in zip (iota b) dirs do
            if (g >> i32.i64 i) & 1 == 1 then r ^ v else r
  in f32.i32 r / f32.i64 (1 << b)

entry main (xss: [][]f64) (m: i64) =
  (map (smooth 2) xss, map (gray [4, 2, 1]) (map i32.i64 (iota m)))
