-- A narrow map of a call whose body maps over `iota n`, n a size
-- parameter of the callee: distributed, `iota n` is evaluated once for all
-- elements, with n bound from their shapes (it was unbound: "The size `n`
-- cannot be determined at run time").

def suffix_sums [n] (a: [n][n]f64) : [n]f64 =
  map (\s -> f64.sum (flatten a[s:, s:])) (iota n)

def scaled_rows [n] (a: [n][n]f64) : [n][n]f64 =
  map (\i -> map (\x -> x * f64.i64 i) a[i]) (iota n)

-- ==
-- entry: sums
-- input { [[[1.0,2.0],[3.0,4.0]], [[0.0,1.0],[1.0,0.0]]] }
-- output { [[10.0, 4.0], [2.0, 0.0]] }
entry sums (as: [][2][2]f64) = map suffix_sums as

-- ==
-- entry: scaled
-- input { [[[1.0,2.0],[3.0,4.0]]] }
-- output { [[[0.0,0.0],[3.0,4.0]]] }
entry scaled (as: [][2][2]f64) = map scaled_rows as
