-- map (several arrays), reduce (non-commutative and tuple operators),
-- reduce_comm, scan, filter, partition, all/any, on the reference backend.
-- ==
-- entry: maps
-- input { [1, 2, 3] [10, 20, 30] } output { [2, 3, 4] [11, 22, 33] [[1, 1], [2, 2], [3, 3]] [21, 42, 63] }
-- input { empty([0]i32) empty([0]i32) } output { empty([0]i32) empty([0]i32) empty([0][2]i32) empty([0]i32) }
-- input { [1, 2] [1, 2, 3] } error: Size mismatch: 2 vs 3

-- ==
-- entry: reductions
-- input { [1, 2, 3, 4] } output { 10 24 1234 10 4 }
-- input { empty([0]i32) } output { 0 1 0 0 -2147483648 }

-- ==
-- entry: tuple_reduce
-- input { [1, 2, 3] [2.0, 3.0, 4.0] } output { 6 24.0 }

-- ==
-- entry: scans
-- input { [1, 2, 3, 4] } output { [1, 3, 6, 10] [1, 2, 6, 24] [1, 12, 123, 1234] }
-- input { empty([0]i32) } output { empty([0]i32) empty([0]i32) empty([0]i32) }

-- ==
-- entry: affine_scan
-- input { [2, 3, 1] [1, 0, 5] } output { [2, 6, 6] [1, 3, 8] }

-- ==
-- entry: filters
-- input { [5, 1, 4, 2, 3] } output { [5, 4, 3] [4, 2] [5, 1, 3] [1, 2] [4, 3] [5] true false }
-- input { empty([0]i32) } output { empty([0]i32) empty([0]i32) empty([0]i32) empty([0]i32) empty([0]i32) empty([0]i32) true false }

entry maps (xs: []i32) (ys: []i32) =
  (map (+ 1) xs, map2 (+) xs ys, map (\x -> [x, x]) xs, map3 (\x y z -> x + y + z) xs ys ys)

-- Digit concatenation: (a, 10^k) <> (b, 10^m) = (a * 10^m + b, 10^(k+m)) is
-- associative but not commutative, so it checks the order of combination.
def concat_digits (a: i32, p: i32) (b: i32, q: i32) = (a * q + b, p * q)
def with_tens (xs: []i32) = zip xs (map (const 10) xs)

entry reductions (xs: []i32) =
  (reduce (+) 0 xs, reduce (*) 1 xs, (reduce concat_digits (0, 1) (with_tens xs)).0, reduce_comm (+) 0 xs,
   reduce i32.max i32.lowest xs)

entry tuple_reduce (xs: []i32) (ys: []f64) =
  reduce (\(a, b) (c, d) -> (a + c, b * d)) (0, 1) (zip xs ys)

entry scans (xs: []i32) = (scan (+) 0 xs, scan (*) 1 xs, map (.0) (scan concat_digits (0, 1) (with_tens xs)))

entry affine_scan (as: []i32) (bs: []i32) =
  unzip (scan (\(a, b) (c, d) -> (a * c, b * c + d)) (1, 0) (zip as bs))

entry filters (xs: []i32) =
  let (evens, odds) = partition (\x -> x % 2 == 0) xs
  let (small, mid, big) = partition2 (< 3) (< 5) xs
  in (filter (> 2) xs, evens, odds, small, mid, big, all (> 0) xs, any (> 5) xs)

-- ==
-- entry: streams
-- input { [1, 2, 3] } output { 6 [2, 3, 4] }
-- input { empty([0]i32) } output { 0 empty([0]i32) }

entry streams (xs: []i32) =
  (reduce_stream (+) (\k (c: [k]i32) -> i32.sum c) xs, map_stream (\k (c: [k]i32) -> map (+ 1) c) xs)
