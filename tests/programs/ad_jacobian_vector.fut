-- Jacobians as maps of derivatives that the element-wise transformation
-- (interp/flatten/lower_ad.cpp) cannot differentiate: tuples, a scan with a
-- tuple operator, reductions other than (+). The function and the point
-- are the same in every element, so the host backend runs each map as
-- vector AD (interp/exec/map_jacobian.cpp: mjp/jmp over the seeds) instead
-- of falling back to the reference. --validate compares with the
-- reference's map of jvp2/vjp2. Expected values: the reference backend.

def mm2 (a1: f64, b1: f64, c1: f64, d1: f64) (a2: f64, b2: f64, c2: f64, d2: f64) =
  (a1 * a2 + b1 * c2, a1 * b2 + b1 * d2, c1 * a2 + d1 * c2, c1 * b2 + d1 * d2)

-- Prefix products of 2x2 matrices (ifl23-revad-red-scan's test-scan-mm2).
def prefix_products [n] (xs: [n](f64, f64, f64, f64)) = scan mm2 (1, 0, 0, 1) xs

def onehot n (i: i64) : [n]f64 = tabulate n (\j -> f64.bool (i == j))
def fromarr (x: [4]f64) = (x[0], x[1], x[2], x[3])
def toarr (a: f64, b: f64, c: f64, d: f64) = [a, b, c, d]

-- ==
-- entry: scan_jvp
-- input { [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 1.5]] }
-- output { [[[1.0, 0.0, 0.0, 0.0], [0.5, -1.0, 0.0, 0.0]],
--           [[0.0, 1.0, 0.0, 0.0], [2.0, 1.5, 0.0, 0.0]],
--           [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.5, -1.0]],
--           [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 2.0, 1.5]],
--           [[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 3.0, 0.0]],
--           [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 3.0]],
--           [[0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 4.0, 0.0]],
--           [[0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 4.0]]] }
entry scan_jvp [n] (x: [n][4]f64) =
  let x = map fromarr x
  in tabulate (n * 4) (\k -> jvp prefix_products x (map fromarr (unflatten (onehot (n * 4) k))))
     |> map (map toarr)

-- The seed made by a let before the call: row k is the gradient of output
-- component k.
-- ==
-- entry: scan_vjp
-- input { [[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 1.5]] }
-- output { [[[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]], [[0.5, 2.0, 0.0, 0.0], [1.0, 0.0, 2.0, 0.0]], [[-1.0, 1.5, 0.0, 0.0], [0.0, 1.0, 0.0, 2.0]], [[0.0, 0.0, 0.5, 2.0], [3.0, 0.0, 4.0, 0.0]], [[0.0, 0.0, -1.0, 1.5], [0.0, 3.0, 0.0, 4.0]]] }
entry scan_vjp [n] (x: [n][4]f64) =
  let x = map fromarr x
  in tabulate (n * 4) (\k -> let s = unflatten (onehot (n * 4) k) in vjp prefix_products x (map fromarr s))
     |> map (map toarr)

def softmax [n] (xs: [n]f64) =
  let m = f64.maximum xs
  let e = map (\x -> f64.exp (x - m)) xs
  in map (/ f64.sum e) e

-- A reduction with max, written with the prelude's compositions and
-- partial applications; vjp2's pair, or one part of it.
-- ==
-- entry: softmax_rows softmax_cols
-- input { [1.0, -2.0, 0.5] }
-- output { [[0.2392361665479417, -1.8148020189585966e-2, -0.22108814635835572], [-1.8148020189585966e-2, 2.9155350847653732e-2, -1.1007330658067766e-2], [-0.2210881463583557, -1.1007330658067766e-2, 0.23209547701642347]] }
entry softmax_rows [n] (x: [n]f64) = tabulate n (vjp softmax x <-< onehot n)
entry softmax_cols [n] (x: [n]f64) = map (jvp softmax x) (tabulate n (onehot n)) |> transpose

-- ==
-- entry: softmax_primals
-- input { [1.0, -2.0, 0.5] }
-- output { [[0.6037488961486258, 3.0058887569574023e-2, 0.3661922162818002], [0.6037488961486258, 3.0058887569574023e-2, 0.3661922162818002], [0.6037488961486258, 3.0058887569574023e-2, 0.3661922162818002]] }
entry softmax_primals [n] (x: [n]f64) = tabulate n (\i -> (vjp2 softmax x (onehot n i)).0)

-- ==
-- entry: softmax_pairs
-- input { [1.0, -2.0, 0.5] }
-- output { [[0.6037488961486258, 3.0058887569574023e-2, 0.3661922162818002], [0.6037488961486258, 3.0058887569574023e-2, 0.3661922162818002], [0.6037488961486258, 3.0058887569574023e-2, 0.3661922162818002]] [[0.2392361665479417, -1.8148020189585966e-2, -0.22108814635835572], [-1.8148020189585966e-2, 2.9155350847653732e-2, -1.1007330658067766e-2], [-0.2210881463583557, -1.1007330658067766e-2, 0.23209547701642347]] }
entry softmax_pairs [n] (x: [n]f64) = tabulate n (\i -> vjp2 softmax x (onehot n i)) |> unzip

-- tabulate_2d: seeds indexed in two dimensions (a scaled outer product's
-- Jacobian, [n][n] outputs by n inputs).
def outer [n] (x: [n]f64) = let m = f64.maximum x in map (\a -> map (* (a * m)) x) x
-- ==
-- entry: outer_rev
-- input { [1.0, -2.0, 0.5] }
-- output { [[[3.0, 0.0, 0.0], [-4.0, 1.0, 0.0], [1.0, 0.0, 1.0]], [[-4.0, 1.0, 0.0], [4.0, -4.0, 0.0], [-1.0, 0.5, -2.0]], [[1.0, 0.0, 1.0], [-1.0, 0.5, -2.0], [0.25, 0.0, 1.0]]] }
entry outer_rev [n] (x: [n]f64) = tabulate_2d n n (\i j -> vjp outer x (tabulate_2d n n (\a b -> f64.bool (a == i && b == j))))
