-- Automatic differentiation of scans whose operator works on tuples of
-- scalars: the seed's generic rule with d x d transposed Jacobians (a scan
-- of affine maps over the reversed sequence) in reverse mode, dual tuples
-- scanned in forward mode. On the host backend with --validate each result
-- is also compared with the reference tape.

-- T16: a crossing operator, whose Jacobian is not symmetric (the wrong
-- orientation gives [(70,29),(24,26),(8,18)] for the first input).
-- ==
-- entry: t16
-- input { [1.0, 3.0, 5.0] [2.0, 4.0, 6.0] [1.0, 1.0, 1.0] [1.0, 1.0, 1.0] }
-- output { [29.0, 14.0, 8.0] [70.0, 31.0, 18.0] [1.0, 5.0, 50.0] [0.0, 2.0, 20.0] }
-- input { [1.0, 3.0, 5.0] [2.0, 4.0, 6.0] [1.0, 1.0, 1.0] [0.0, 0.0, 0.0] }
-- output { [29.0, 14.0, 8.0] [41.0, 17.0, 10.0] [1.0, 5.0, 50.0] [0.0, 2.0, 20.0] }
def cross (a1: f64, b1: f64) (a2: f64, b2: f64) = (b1 * a2 + b2 * a1, b1 * b2)
entry t16 (as: []f64) (bs: []f64) (ya: []f64) (yb: []f64) =
  let f xs = scan cross (0, 1) xs
  let (xa, xb) = unzip (vjp f (zip as bs) (zip ya yb))
  let (ta, tb) = unzip (jvp f (zip as bs) (map (\i -> if i == 0 then (1, 0) else (0, 1)) (indices as)))
  in (xa, xb, ta, tb)

-- T17: three independent components (+, *, max) in one operator.
-- ==
-- entry: t17
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 4.0] [5.0, 1.0, 7.0] }
-- output { [3.0, 2.0, 1.0] [16.0, 10.0, 6.0] [2.0, 0.0, 1.0] }
entry t17 (as: []f64) (bs: []f64) (cs: []f64) =
  let f xs = scan (\(a1, b1, c1) (a2, b2, c2) -> (a1 + a2, b1 * b2, f64.max c1 c2)) (0, 1, -f64.inf) xs
  in unzip3 (vjp f (zip3 as bs cs) (map (\_ -> (1, 1, 1)) as))

-- T19: composition of affine maps as the operator.
-- ==
-- entry: t19
-- input { [1.0, 3.0, 5.0] [2.0, 4.0, 6.0] } output { [29.0, 7.0, 1.0] [29.0, 21.0, 15.0] }
entry t19 (ds: []f64) (cs: []f64) =
  let f xs = scan (\(d1, c1) (d2, c2) -> (d2 + c2 * d1, c2 * c1)) (0, 1) xs
  in unzip (vjp f (zip ds cs) (map (\_ -> (1, 1)) ds))

-- The 2x2 matrix product scan (thesis: mm2by2) on pseudo-random inputs,
-- its input built by a map to tuples and its result reduced by a map from
-- tuples. vjp is checked against central finite differences, and against
-- jvp through ybar . (J xdot) == (ybar J) . xdot for random directions.
def rnd (seed: i64) (i: i64) : f64 =
  let h = (i * 2654435761 + seed * 40503) % 1000003
  in f64.i64 h / 1000003 - 0.5

def mm2 (a0: f64, a1: f64, a2: f64, a3: f64) (b0: f64, b1: f64, b2: f64, b3: f64) =
  (a0 * b0 + a1 * b2, a0 * b1 + a1 * b3, a2 * b0 + a3 * b2, a2 * b1 + a3 * b3)

def weights (n: i64) = map (\i -> (rnd 5 i, rnd 6 i, rnd 7 i, rnd 8 i)) (iota n)

def chain [n] (xs: [n]f64) : f64 =
  let ms = scan mm2 (1, 0, 0, 1) (map (\x -> (1 + x, x, x * x, 1 - x)) xs)
  in f64.sum (map2 (\(a, b, c, d) (p, q, r, s) -> a * p + b * q + c * r + d * s) ms (weights n))

-- ==
-- entry: mm2_fd
-- input { 7i64 } output { true }
-- input { 40i64 } output { true }
entry mm2_fd (n: i64) =
  let xs = map (rnd 1) (iota n)
  let g = vjp chain xs 1
  let h = 1e-6
  let moved i d = map2 (\j x -> if j == i then x + d else x) (iota n) xs
  let fd = map (\i -> (chain (moved i h) - chain (moved i (-h))) / (2 * h)) (iota n)
  in and (map2 (\a b -> f64.abs (a - b) <= 1e-6 * (1 + f64.abs b)) g fd)

-- vjp and jvp of the tuple scan itself (tuples in and out) agree.
-- ==
-- entry: mm2_dual
-- input { 9i64 } output { true }
-- input { 100i64 } output { true }
entry mm2_dual (n: i64) =
  let xs = map (\i -> (rnd 1 i, rnd 2 i, rnd 3 i, rnd 4 i)) (iota n)
  let xdot = map (\i -> (rnd 11 i, rnd 12 i, rnd 13 i, rnd 14 i)) (iota n)
  let ybar = weights n
  let f = scan mm2 (1, 0, 0, 1)
  let dot4 (a, b, c, d) (p, q, r, s) = a * p + b * q + c * r + d * s
  let lhs = f64.sum (map2 dot4 ybar (jvp f xs xdot))
  let rhs = f64.sum (map2 dot4 (vjp f xs ybar) xdot)
  in f64.abs (lhs - rhs) <= 1e-9 * (1 + f64.abs lhs)

-- reduce with tuple operators: the generic reduce rule (exclusive scans
-- from both sides, then the operator's vjps) on component arrays; dual
-- tuples reduced in forward mode.
-- ==
-- entry: r17
-- input { [1.0, 2.0, 3.0] [2.0, 3.0, 4.0] [5.0, 1.0, 7.0] }
-- output { [1.0, 1.0, 1.0] [12.0, 8.0, 6.0] [0.0, 0.0, 1.0] 1.0 20.0 1.0 }
entry r17 (as: []f64) (bs: []f64) (cs: []f64) =
  let f xs = reduce (\(a1, b1, c1) (a2, b2, c2) -> (a1 + a2, b1 * b2, f64.max c1 c2)) (0, 1, -f64.inf) xs
  let (xa, xb, xc) = unzip3 (vjp f (zip3 as bs cs) (1, 1, 1))
  let (ta, tb, tc) = jvp f (zip3 as bs cs) [(1, 1, 1), (0, 1, 0), (0, 0, 1)]
  in (xa, xb, xc, ta, tb, tc)

-- The crossing operator of T16 (not commutative: the right-hand scan
-- needs the flipped operator).
-- ==
-- entry: r16
-- input { [1.0, 3.0, 5.0] [2.0, 4.0, 6.0] 1.0 1.0 } output { [24.0, 12.0, 8.0] [62.0, 28.0, 18.0] }
-- input { [1.0, 3.0, 5.0] [2.0, 4.0, 6.0] 1.0 0.0 } output { [24.0, 12.0, 8.0] [38.0, 16.0, 10.0] }
entry r16 (as: []f64) (bs: []f64) (ya: f64) (yb: f64) =
  unzip (vjp (reduce cross (0, 1)) (zip as bs) (ya, yb))

-- The 2x2 matrix product reduced, against finite differences.
-- ==
-- entry: rmm_fd
-- input { 9i64 } output { true }
entry rmm_fd (n: i64) =
  let f (xs: [n]f64) =
    let (a, b, c, d) = reduce mm2 (1, 0, 0, 1) (map (\x -> (1 + x, x, x * x, 1 - x)) xs)
    in a + 2 * b + 3 * c + 4 * d
  let xs = map (rnd 3) (iota n)
  let g = vjp f xs 1
  let h = 1e-6
  let moved i d = map2 (\j x -> if j == i then x + d else x) (iota n) xs
  let fd = map (\i -> (f (moved i h) - f (moved i (-h))) / (2 * h)) (iota n)
  in and (map2 (\a b -> f64.abs (a - b) <= 1e-6 * (1 + f64.abs b)) g fd)
