-- The map rule for element functions over arrays (interp/eval/ad_rev.cpp):
-- vjp of maps whose mapped function takes rows, contains SOACs, or is a
-- partial application of a named function to active values. On the host
-- backend these run as plans (no "runs on the reference tape" line under
-- --log plan); --validate compares them with the reference tape, and on
-- the reference backend the same outputs check the tape. Expected values
-- were produced by the reference backend and checked against central
-- finite differences (h = 1e-6).

-- Gradient descent's step: a least-squares loss over the rows of a matrix,
-- the weights captured by the mapped function (their adjoint is a column
-- sum of the rows' contributions).
def gd_loss (w: [4]f64) (xs: [][4]f64) (ys: []f64) =
  f64.sum (map2 (\x y -> let p = f64.sum (map2 (*) w x) in (p - y) * (p - y)) xs ys)

def gd_data (n: i64) =
  let xs = tabulate_2d n 4 (\i j -> f64.i64 ((i * 7 + j * 3) % 11) / 11)
  in (xs, map (\x -> x[0] * 2 + x[1] - x[3]) xs)

-- ==
-- entry: gd_grad
-- input { 6i64 [0.5, 0.25, 1.0, 2.0] }
-- output { [1.8677685950413228, 1.7644628099173556, 4.615702479338843, 6.0123966942148765] }
entry gd_grad (n: i64) (w: [4]f64) =
  let (xs, ys) = gd_data n
  in vjp (\w -> gd_loss w xs ys) w 1

-- The rows carry the derivative: each row's adjoint is a row; scalar code
-- with a branch and an index of the row inside.
-- ==
-- entry: row_grad
-- input { [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]] [2.0, -1.0] }
-- output { [[0.5469488728313344, 1.0938977456626688, 1.6408466184940034], [1.0, -7.25, 4.0]] }
entry row_grad (xs: [][3]f64) (ys: []f64) =
  let f xs = f64.sum (map2 (\x y -> let s = f64.sum (map (\a -> a * a) x)
                                    let t = if x[0] > 0.75 then f64.sin s else s * x[1]
                                    in t * y) xs ys)
  in vjp f xs 1

-- Futhark's tests/ad/genred-opt/matmul-simple.fut: a map of a map of a
-- partial application, the transposed matrix captured.
def dotprod xs ys = f64.sum (map2 (*) xs ys)
def matmul [m] [n] [q] (xss: [m][q]f64, yss: [q][n]f64) =
  map (\xs -> map (dotprod xs) (transpose yss)) xss

-- ==
-- entry: matmul_vjp
-- input { [[1.0,2.0],[3.0,4.0]] [[5.0,6.0],[7.0,8.0]] [[1.0,2.0],[3.0,4.0]] }
-- output { [[17.0, 23.0], [39.0, 53.0]] [[10.0, 14.0], [14.0, 20.0]] }
entry matmul_vjp [n] [m] [q] (xss: [m][q]f64) (yss: [q][n]f64) (res_adj: [m][n]f64) =
  vjp matmul (xss, yss) res_adj

-- genred-opt's matvec-simple: `map (matvec mat2) mat1`, the active matrix
-- given by partial application.
def matvec [n] [q] (mat: [n][q]f64) (vct: [q]f64) : [n]f64 = map (dotprod vct) mat
def matmat [m] [n] [q] (mat1: [m][q]f64, mat2: [n][q]f64) : [m][n]f64 = map (matvec mat2) mat1

-- ==
-- entry: matmat_vjp
-- input { [[1.0,2.0],[3.0,4.0],[0.5,-1.0]] [[5.0,6.0],[7.0,8.0]] [[1.0,2.0],[3.0,4.0],[-1.0,0.5]] }
-- output { [[19.0, 22.0], [43.0, 50.0], [-1.5, -2.0]] [[9.5, 15.0], [14.25, 19.5]] }
entry matmat_vjp (a: [][]f64) (b: [][]f64) (r: [][]f64) = vjp matmat (a, b) r

-- genred-opt's gemm-simple: captured scalars and a transposed capture.
def gemm [m] [n] [q] (alpha: f64) (beta: f64) (xss: [m][q]f64, yss: [q][n]f64, css: [m][n]f64) =
  map2 (\xs cs -> map2 (\ys c -> c * alpha + beta * (dotprod xs ys)) (transpose yss) cs) xss css

-- ==
-- entry: gemm_vjp
-- input { [[1.0,2.0],[3.0,4.0]] [[5.0,6.0,1.0],[7.0,8.0,2.0]] [[1.0,0.0,2.0],[0.5,1.0,-1.0]] [[1.0,2.0,1.0],[3.0,4.0,-2.0]] }
-- output { [[12.6, 17.5], [25.9, 34.3]] [[7.0, 9.8, -3.5], [9.8, 14.0, -4.2]] [[0.5, 1.0, 0.5], [1.5, 2.0, -1.0]] }
entry gemm_vjp (a: [][]f64) (b: [][]f64) (c: [][]f64) (r: [][]f64) = vjp (gemm 0.5 0.7) (a, b, c) r
