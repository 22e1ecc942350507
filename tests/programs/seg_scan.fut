-- Segmented scans from notes-scan and notes-flattening: flag-based
-- segmented scans with commutative, non-commutative and tuple operators,
-- and regular segments (map-scan) that the flattener turns into SegScan.
-- ==
-- entry: sgm_add
-- input { [1, 2, 3, 4, 5, 6] [true, false, false, true, false, false] } output { [1, 3, 6, 4, 9, 15] }
-- input { [1, 2, 3] [false, false, false] } output { [1, 3, 6] }
-- input { empty([0]i32) empty([0]bool) } output { empty([0]i32) }

-- ==
-- entry: sgm_mul
-- input { [2, 3, 4, 4, 5] [true, false, true, true, false] } output { [2, 6, 4, 4, 20] }

-- ==
-- entry: regular_mul
-- input { [[2, 3], [4, 5]] } output { [[2, 6], [4, 20]] }
-- input { empty([0][3]i32) } output { empty([0][3]i32) }
-- input { [empty([0]i32), empty([0]i32)] } output { [empty([0]i32), empty([0]i32)] }

-- ==
-- entry: affine_segments
-- input { [2, 3, 1, 2, 1, 3] [1, 0, 5, 2, 1, 3] } output { [[2, 6, 6], [2, 2, 6]] [[1, 3, 8], [2, 3, 12]] }

-- ==
-- entry: crossing
-- input { [1, 3, 5] [2, 4, 6] } output { [1, 10, 100] [2, 8, 48] }

-- ==
-- entry: linear
-- input { [1, 3, 5] [2, 4, 6] } output { [1, 7, 47] [2, 8, 48] }

def sgm_scan 't [n] (op: t -> t -> t) (ne: t) (vals: [n]t) (flags: [n]bool): [n]t =
  let pairs = scan (\(v1, f1) (v2, f2) -> (if f2 then v2 else op v1 v2, f1 || f2)) (ne, false) (zip vals flags)
  in map (.0) pairs

entry sgm_add [n] (vals: [n]i32) (flags: [n]bool) = sgm_scan (+) 0 vals flags
entry sgm_mul [n] (vals: [n]i32) (flags: [n]bool) = sgm_scan (*) 1 vals flags
-- (Explicit sizes: with anonymous ones the element shape of a map over an
-- empty array is not known, and comes out as [0][0].)
entry regular_mul [n] [m] (xss: [n][m]i32) = map (scan (*) 1) xss

-- Affine composition (a, b) then (c, d) = (a*c, b*c + d), segments of 3.
entry affine_segments [n] (as: [n]i32) (bs: [n]i32) =
  let segs: [n / 3][3](i32, i32) = unflatten (zip as bs)
  let res = map (scan (\(a, b) (c, d) -> (a * c, b * c + d)) (1, 0)) segs
  in (map (map (.0)) res, map (map (.1)) res)

-- notes-ad T16: a crossing tuple operator.
entry crossing [n] (as: [n]i32) (bs: [n]i32) =
  unzip (scan (\(a1, b1) (a2, b2) -> (b1 * a2 + b2 * a1, b1 * b2)) (0, 1) (zip as bs))

-- notes-ad T19: linear function composition.
entry linear [n] (ds: [n]i32) (cs: [n]i32) =
  unzip (scan (\(d1, c1) (d2, c2) -> (d2 + c2 * d1, c2 * c1)) (0, 1) (zip ds cs))
