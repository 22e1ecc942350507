-- Products with an empty dimension. [n][1] by [1][0]: the rows of the
-- result are empty, and the flattened nest's element code that would
-- index them never runs (linalg's QR factorisation multiplies such blocks
-- at its last step; it fell back to the reference backend with "rows with
-- an empty dimension"). [n][0] by [0][m]: every dot product is over no
-- elements.
-- ==
-- input { [[1.0], [2.0], [3.0]] empty([1][0]f64) }
-- output { empty([3][0]f64) }
-- input { empty([3][0]f64) empty([0][3]f64) }
-- output { [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]] }
-- input { [[1.0, 2.0], [3.0, 4.0]] [[1.0, 0.0], [0.0, 1.0]] }
-- output { [[1.0, 2.0], [3.0, 4.0]] }

def dot [p] (xs: [p]f64) (ys: [p]f64) = f64.sum (map2 (*) xs ys)

entry main [n] [p] [m] (xss: [n][p]f64) (yss: [p][m]f64) : [n][m]f64 =
  map (\xs -> map (\ys -> dot xs ys) (transpose yss)) xss
