-- A map over a few rows in which each element copies its own row of
-- 12,000 values and sorts a prefix of it in place (odd-even transposition):
-- 96 KB of private arrays per element, more than a fused or segmented
-- element may hold. The host runs it as one element per row in narrower tiles
-- (misc/knn-by-kdtree radix-sorts the points of each node of its top
-- levels this way), not on the reference backend.
-- ==
-- input { 3i64 12000i64 }
-- output { [7.1994e7, 1.43988e8, 2.15982e8] [71627.0, 143254.0, 214881.0] [11999.0, 23998.0, 35997.0] }

def sort_prefix [n] (xs: [n]f64) (k: i64) : [n]f64 =
  loop xs = copy xs for pass < k do
    loop xs for i < (k - 1) / 2 do
      let j = 2 * i + pass % 2
      in if j + 1 < k && xs[j] > xs[j + 1]
         then let a = xs[j] let b = xs[j + 1] in xs with [j] = b with [j + 1] = a
         else xs

entry main (rows: i64) (n: i64) =
  let xss = tabulate_2d rows n (\r i -> f64.i64 (((n - i) * (r + 1)) % (n * (r + 1))))
  let sorted = map (\xs -> sort_prefix xs 64) xss
  in (map f64.sum sorted, map (\xs -> xs[1] + xs[2] * 2 + xs[63] * 3) sorted, map (\xs -> f64.maximum xs) sorted)
