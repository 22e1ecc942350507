-- Forward mode of the map rule for element functions over arrays
-- (interp/eval/ad_fwd.cpp): jvp of maps whose mapped function takes rows,
-- contains SOACs, or is a partial application of a named function to
-- active values. On the host backend these run as plans (no "runs on the
-- reference tape" line under --log plan); --validate compares them with
-- the reference tape, and on the reference backend the same outputs check
-- the tape. Expected values were produced by the reference backend and
-- checked against central finite differences (h = 1e-6).

def gd_loss (w: [4]f64) (xs: [][4]f64) (ys: []f64) =
  f64.sum (map2 (\x y -> let p = f64.sum (map2 (*) w x) in (p - y) * (p - y)) xs ys)

def gd_data (n: i64) =
  let xs = tabulate_2d n 4 (\i j -> f64.i64 ((i * 7 + j * 3) % 11) / 11)
  in (xs, map (\x -> x[0] * 2 + x[1] - x[3]) xs)

-- The gradient's component along v: the captured weights carry the tangent.
-- ==
-- entry: gd_dir
-- input { 6i64 [0.5, 0.25, 1.0, 2.0] [1.0, 0.0, 0.0, 0.0] }
-- output { 1.867768595041323 }
-- input { 6i64 [0.5, 0.25, 1.0, 2.0] [0.5, -1.0, 2.0, 0.25] }
-- output { 9.90392561983471 }
entry gd_dir (n: i64) (w: [4]f64) (v: [4]f64) =
  let (xs, ys) = gd_data n
  in jvp (\w -> gd_loss w xs ys) w v

-- The rows carry the tangent; scalar code with a branch and an index of
-- the row inside.
-- ==
-- entry: row_jvp
-- input { [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]] [2.0, -1.0] [[1.0, 0.0, 0.5], [0.25, 1.0, -1.0]] }
-- output { -9.632627817921664 }
entry row_jvp (xs: [][3]f64) (ys: []f64) (dxs: [][3]f64) =
  let f xs = f64.sum (map2 (\x y -> let s = f64.sum (map (\a -> a * a) x)
                                    let t = if x[0] > 0.75 then f64.sin s else s * x[1i64]
                                    in t * y) xs ys)
  in jvp f xs dxs

def dotprod xs ys = f64.sum (map2 (*) xs ys)
def matmul [m] [n] [q] (xss: [m][q]f64, yss: [q][n]f64) =
  map (\xs -> map (dotprod xs) (transpose yss)) xss

-- ==
-- entry: matmul_jvp
-- input { [[1.0,2.0],[3.0,4.0]] [[5.0,6.0],[7.0,8.0]] [[1.0,0.5],[-1.0,2.0]] [[0.5,1.0],[2.0,-1.0]] }
-- output { [[13.0, 9.0], [18.5, 9.0]] }
entry matmul_jvp [n] [m] [q] (xss: [m][q]f64) (yss: [q][n]f64) (dx: [m][q]f64) (dy: [q][n]f64) =
  jvp matmul (xss, yss) (dx, dy)

def matvec [n] [q] (mat: [n][q]f64) (vct: [q]f64) : [n]f64 = map (dotprod vct) mat
def matmat [m] [n] [q] (mat1: [m][q]f64, mat2: [n][q]f64) : [m][n]f64 = map (matvec mat2) mat1

-- ==
-- entry: matmat_jvp
-- input { [[1.0,2.0],[3.0,4.0],[0.5,-1.0]] [[5.0,6.0],[7.0,8.0]] [[1.0,2.0],[3.0,4.0],[-1.0,0.5]] [[0.5,1.0],[2.0,-1.0]] }
-- output { [[19.5, 23.0], [44.5, 55.0], [-2.75, -1.0]] }
entry matmat_jvp (a: [][]f64) (b: [][]f64) (da: [][]f64) (db: [][]f64) = jvp matmat (a, b) (da, db)

-- A matrix-vector product's tangent in the matrix and the vector.
-- ==
-- entry: matvec_jvp
-- input { [[1.0,2.0],[3.0,4.0],[0.5,-1.0]] [5.0,6.0] [[1.0,0.0],[0.0,1.0],[2.0,-1.0]] [0.5,-0.5] }
-- output { [4.5, 5.5, 4.75] }
entry matvec_jvp (m: [][]f64) (v: []f64) (dm: [][]f64) (dv: []f64) = jvp (\(m, v) -> matvec m v) (m, v) (dm, dv)

def gemm [m] [n] [q] (alpha: f64) (beta: f64) (xss: [m][q]f64, yss: [q][n]f64, css: [m][n]f64) =
  map2 (\xs cs -> map2 (\ys c -> c * alpha + beta * (dotprod xs ys)) (transpose yss) cs) xss css

-- ==
-- entry: gemm_jvp
-- input { [[1.0,2.0],[3.0,4.0]] [[5.0,6.0,1.0],[7.0,8.0,2.0]] [[1.0,0.0,2.0],[0.5,1.0,-1.0]] [[1.0,0.5],[0.0,-1.0]] [[0.5,0.0,1.0],[1.0,1.0,0.0]] [[1.0,2.0,1.0],[3.0,4.0,-2.0]] }
-- output { [[8.2, 9.399999999999999, 2.5999999999999996], [0.4500000000000002, -0.7999999999999998, -0.30000000000000004]] }
entry gemm_jvp (a: [][]f64) (b: [][]f64) (c: [][]f64) (da: [][]f64) (db: [][]f64) (dc: [][]f64) =
  jvp (gemm 0.5 0.7) (a, b, c) (da, db, dc)

-- Consistency of the two modes on the plans: for a scalar-valued f,
-- jvp f x v == dot v (vjp f x 1), with a captured active matrix, rows,
-- a named function partially applied to them, a transpose and an index
-- of the row inside (by an i64 literal: ad_rev.cpp's one-hot row for an
-- unsuffixed index gives the flattener an i32 compare, a separate bug).
def cons_g (w: [3]f64) (m: [3][3]f64) (x: [3]f64) =
  let h = map (dotprod x) m
  in f64.sum (map2 (\a b -> a * f64.exp (b * 0.1)) h w) + dotprod x (map f64.sum (transpose m)) * x[1i64]

def cons_f (w: [3]f64) (m: [3][3]f64) (xs: [][3]f64) = f64.sum (map (cons_g w m) xs)

-- ==
-- entry: consistency
-- input { [0.5, -1.0, 2.0] [[1.0,0.5,0.0],[0.25,1.0,-1.0],[2.0,0.0,1.0]] [[1.0,2.0,3.0],[0.5,-1.0,2.0],[0.0,1.0,-2.0],[4.0,0.5,1.0]]
--         [0.3, 0.1, -0.7] [[0.2,-0.1,0.4],[1.0,0.0,0.3],[-0.5,0.25,0.1]] [[0.1,0.2,0.3],[-0.3,0.2,0.1],[0.0,0.5,1.0],[0.7,-0.2,0.4]] }
-- output { true }
entry consistency (w: [3]f64) (m: [3][3]f64) (xs: [][3]f64) (vw: [3]f64) (vm: [3][3]f64) (vx: [][3]f64) =
  let j = jvp (\(w, m, xs) -> cons_f w m xs) (w, m, xs) (vw, vm, vx)
  let (gw, gm, gx) = vjp (\(w, m, xs) -> cons_f w m xs) (w, m, xs) 1
  let d = dotprod gw vw + f64.sum (map2 dotprod gm vm) + f64.sum (map2 dotprod gx vx)
  in f64.abs (j - d) <= 1e-9 * f64.max 1 (f64.abs j)
