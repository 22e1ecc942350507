-- Segmented reductions from notes-segred: map-reduce over rows (regular
-- segments) with commutative and non-commutative operators, empty segments,
-- a redomap with a map part and an invariant, maximum segment sum, and a
-- three-level nest.
-- ==
-- entry: row_sums
-- input { [[1, 2, 3], [4, 5, 6]] } output { [6, 15] }
-- input { [empty([0]i32), empty([0]i32), empty([0]i32)] } output { [0, 0, 0] }
-- input { empty([0][5]i32) } output { empty([0]i32) }

-- ==
-- entry: redomap
-- input { [[1, 2], [3, 4]] [1, 2] } output { [[2, 4], [6, 8]] [5, 11] [6, 120] }

-- ==
-- entry: mss
-- input { [[1, -2, 3, 4, -1], [-5, -1, -3, -2, -4], [2, 2, -10, 3, 1]] } output { [7, 0, 4] }

-- ==
-- entry: nest3
-- input { [[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]] } output { [[[3, 7], [11, 15]]] }

-- ==
-- entry: vec_add
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] } output { [[4, 6], [12, 14]] }

entry row_sums (xss: [][]i32) = map (reduce (+) 0) xss

entry redomap [n] [m] (xss: [n][m]i32) (bs: [n]i32) =
  unzip3 (map2 (\xs b -> (map (* 2) xs, reduce (+) 0 (map (+ b) xs), reduce (*) 1 (map (\x -> (x + b) * b) xs))) xss bs)

-- Maximum segment sum: a 4-tuple non-commutative operator.
def mss_op (mss1: i32, mis1: i32, mcs1: i32, ts1: i32) (mss2: i32, mis2: i32, mcs2: i32, ts2: i32) =
  (i32.max (i32.max mss1 mss2) (mcs1 + mis2), i32.max mis1 (ts1 + mis2), i32.max mcs2 (mcs1 + ts2), ts1 + ts2)
def mss_one (x: i32) = let m = i32.max x 0 in (m, m, m, x)
entry mss (xss: [][]i32) = map (\xs -> (reduce mss_op (0, 0, 0, 0) (map mss_one xs)).0) xss

entry nest3 (x: [][][][]i32) = map (map (map (reduce (+) 0))) x

entry vec_add (xsss: [][][]i32) = map (reduce (map2 (+)) [0, 0]) xsss
