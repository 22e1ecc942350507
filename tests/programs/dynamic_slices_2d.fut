-- Slices whose lengths are only known inside each element, in two
-- dimensions: `a[s+1:, s+1:]` in a loop over s inside a map (diku-dk/
-- linalg's blocked LU, vendored by most packages, ran on the reference
-- backend for this). Read, mapped, flattened, transposed, and written back
-- in place.

-- One step of Gaussian elimination without division, per matrix.
def eliminate [n] (a: [n][n]f64) : [n][n]f64 =
  loop a = copy a for s < n-1 do
    let inner = a[s+1:, s+1:]
    let col = a[s+1:, s]
    let row = a[s, s+1:]
    let upd = map2 (\r c -> map2 (\x y -> x - c * y) r row) inner col
    let a[s+1:, s+1:] = upd
    in a

-- The sum of each trailing square, through flatten.
def trailing_sums [n] (a: [n][n]f64) : [n]f64 =
  map (\s -> f64.sum (flatten a[s:, s:])) (iota n)

-- Transposed lower-left blocks.
def corner_total [n] (a: [n][n]f64) : f64 =
  loop acc = 0 for s < n do acc + f64.sum (map f64.sum (transpose a[s:, :s+1]))

-- Rows cut by a length from outside the row.
def tails [n] (a: [n][n]f64) : f64 =
  loop acc = 0 for j < n do
    let t = map (\r -> r[j:]) a
    in acc + f64.sum (map f64.sum t) + f64.sum (flatten (map (\r -> take (n - j) r) a))

-- ==
-- entry: elim
-- input { [[[2.0,1.0,0.5],[1.0,3.0,1.0],[0.5,1.0,4.0]],[[1.0,2.0,3.0],[4.0,5.0,6.0],[7.0,8.0,10.0]]] }
-- output { [[[2.0,1.0,0.5],[1.0,2.0,0.5],[0.5,0.5,3.5]],[[1.0,2.0,3.0],[4.0,-3.0,-6.0],[7.0,-6.0,-47.0]]] }
entry elim (as: [][3][3]f64) = map eliminate as

-- ==
-- entry: sums
-- input { [[[1.0,2.0],[3.0,4.0]], [[0.0,1.0],[1.0,0.0]]] }
-- output { [[10.0, 4.0], [2.0, 0.0]] }
entry sums (as: [][2][2]f64) = map trailing_sums as

-- ==
-- entry: corners
-- input { [[[2.0,1.0,0.5],[1.0,3.0,1.0],[0.5,1.0,4.0]],[[1.0,2.0,3.0],[4.0,5.0,6.0],[7.0,8.0,10.0]]] }
-- output { [14.5, 61.0] }
entry corners (as: [][3][3]f64) = map corner_total as

-- ==
-- entry: tails_of
-- input { [[[2.0,1.0,0.5],[1.0,3.0,1.0],[0.5,1.0,4.0]],[[1.0,2.0,3.0],[4.0,5.0,6.0],[7.0,8.0,10.0]]] }
-- output { [56.0, 184.0] }
entry tails_of (as: [][3][3]f64) = map tails as
