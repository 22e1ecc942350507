-- Map distribution (interp/flatten/distribute.hpp): a narrow map whose
-- body is a sequence of lets with inner SOACs runs as one map per let,
-- each planned on its own (SegRed, SegScan, flat maps fused into their
-- consumers). Every case must give the reference backend's results, both
-- distributed and kept sequential (THORN_DISTRIBUTE=never), which
-- tests/CMakeLists.txt runs too.

def gen (r: i64) (c: i64) : [r][c]f64 =
  tabulate_2d r c (\i j -> f64.i64 ((i * 7 + j * j * 3) % 11) - 5)

-- Mean and variance of each row: reduce, scalar code, map, reduce.
-- ==
-- entry: moments
-- input { 3i64 8i64 }
-- output { [-0.625f64, -0.5f64, -0.375f64] [9.484375f64, 12.75f64, 6.734375f64] }
entry moments (r: i64) (c: i64) : ([]f64, []f64) =
  unzip (map (\xs -> let s = f64.sum xs
                     let mu = s / f64.i64 c
                     let ys = map (\x -> (x - mu) * (x - mu)) xs
                     let v = f64.sum ys / f64.i64 c
                     in (mu, v)) (gen r c))

-- Shadowed names, a scan with a tuple operator, and indexing the scan's
-- result from the element's scalar code.
-- ==
-- entry: shadowing
-- input { 2i64 6i64 }
-- output { [[-5i64, 7i64, -11i64, 11i64, -12i64, 8i64], [2i64, -7i64, 10i64, -6i64, 1i64, -1i64]] [1i64, 5i64] }
entry shadowing (r: i64) (c: i64) =
  let xss = map (map i64.f64) (gen r c)
  in unzip (map (\xs -> let xs = scan (+) 0 xs
                        let xs = map2 (\x i -> if i % 2 == 0 then x else -x) xs (iota c)
                        let (lo, hi) = reduce (\(a, b) (x, y) -> (i64.min a x, i64.max b y)) (i64.highest, i64.lowest)
                                              (map (\x -> (x, x)) xs)
                        in (xs, lo + hi + xs[c - 1] % 3)) xss)

-- A function with a size parameter, called from the mapped function: its
-- arguments are mapped, then its own body is distributed.
def reverse_prefix [n] (xs: [n]i64) : [n]i64 =
  let ys = scan (+) 0 xs
  in map (\i -> ys[n - 1 - i] * 2) (iota n)

-- ==
-- entry: called
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] }
-- output { [[12i64, 6i64, 2i64], [30i64, 18i64, 8i64]] }
entry called (xss: [][]i64) = map (\xs -> reverse_prefix (map (+0) xs)) xss

-- A map of a map whose function is the same for every outer element:
-- the rows are flattened and the inner map distributed.
-- ==
-- entry: nested
-- input { 2i64 3i64 5i64 }
-- output { [[20i64, 75i64, 130i64], [185i64, 240i64, 295i64]] }
entry nested (a: i64) (b: i64) (c: i64) =
  let xsss = tabulate_3d a b c (\i j k -> i * b * c + j * c + k)
  in map (\xss -> map (\xs -> let s = scan (+) 0 xs
                              let t = reduce (+) 0 xs
                              in s[c - 1] + t + s[0]) xss) xsss

-- An intermediate whose size depends on the element (filter): the map
-- is kept sequential, where no irregular array is built.
-- ==
-- entry: irregular
-- input { [1i64, 5i64, 9i64] [3i64, 4i64, 6i64, 8i64, 10i64] }
-- output { [5i64, 3i64, 1i64] }
entry irregular (xs: []i64) (zs: []i64) =
  map (\x -> let ys = filter (> x) zs
             let n = length ys
             in n + reduce (+) 0 (map (\y -> y * 0) ys)) xs

-- A loop with inner parallelism inside a let, and a local function.
-- ==
-- entry: loop_and_local
-- input { 3i64 4i64 }
-- output { [-116i64, 111i64, -14i64] [-22i64, 12i64, 2i64] }
entry loop_and_local (r: i64) (c: i64) =
  let xss = map (map i64.f64) (gen r c)
  let a = map (\xs -> let zs = loop zs = xs for i < 3 do scan (+) i zs
                      let t = i64.sum zs
                      in t - zs[0]) xss
  let b = map (\xs -> let twice y = y * 2
                      let s = i64.sum xs
                      in twice s) xss
  in (a, b)

-- A name bound twice passed to a function whose body is a map capturing
-- the function's parameters (LocVolCalib's implicitMethod): the last
-- binding is passed, and the captured values reach every inner element.
def scale_rows [n][m] (ws: [m]f64) (xss: [n][m]f64) (k: f64) : [n][m]f64 =
  map (\xs -> let s = scan (+) 0 xs in map2 (\x w -> x * w + k) s ws) xss

-- ==
-- entry: captured
-- input { 2i64 3i64 4i64 }
-- output { [[[30.0f64, 34.0f64, 42.0f64, 54.0f64], [30.0f64, 36.0f64, 54.0f64, 90.0f64], [30.0f64, 38.0f64, 66.0f64, 126.0f64]], [[42.0f64, 50.0f64, 66.0f64, 90.0f64], [42.0f64, 52.0f64, 78.0f64, 126.0f64], [42.0f64, 54.0f64, 90.0f64, 162.0f64]]] }
entry captured (a: i64) (b: i64) (c: i64) =
  let xsss = tabulate_3d a b c (\i j k -> f64.i64 (i + j * k))
  in map (\xss -> let u = map (map (+ 1)) xss
                  let k = f64.sum (flatten u)
                  let u = map (map (* 2)) u
                  in scale_rows (map f64.i64 (iota c)) u k) xsss

-- Arguments the same for every element (a size) are bound once, not
-- mapped, so `tabulate n` keeps a constant size; tabulate's function
-- captures the element and stays inside it (no array of functions).
def spread (n: i64) (x: i64) : [n]i64 = tabulate n (\i -> x * i)

-- ==
-- entry: invariant_args
-- input { [1i64, 2i64, 3i64] } output { [7i64, 14i64, 21i64] }
entry invariant_args (xs: []i64) = map (\x -> let ys = spread 4 x in i64.sum ys + ys[1]) xs

-- An if with a SOAC in a branch: the elements split by the condition,
-- each branch one map over its own elements, the rows put back in order.
-- ==
-- entry: branches
-- input { [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64], [7i64, 8i64, 9i64]] [0i64, 1i64, 2i64] }
-- output { [[1i64, 3i64, 6i64], [6i64, 5i64, 4i64], [7i64, 15i64, 24i64]] }
-- input { [[1i64, 2i64], [3i64, 4i64]] [1i64, 3i64] }
-- output { [[2i64, 1i64], [12i64, 9i64]] }
entry branches (xss: [][]i64) (ks: []i64) =
  map2 (\xs k -> if k % 2 == 0 then scan (+) 0 xs else map (* k) (reverse xs)) xss ks

-- A loop starting from a variable bound by an earlier let (`loop arr`):
-- the step of the loop is passed arr (Futhark's issue1424).
-- ==
-- entry: loop_shorthand
-- input { 2 [1, 2, 3] [42] } output { [[42], [42], [42]] }
entry loop_shorthand n (xs: []i32) (unit: [1]i32) =
  map (\x -> let arr = replicate 1 x in (loop arr for i < n do unit)) xs

-- A tuple of sizes the same for every element (LocVolCalib's `value
-- (numX, numY, ...)`): bound once, so `iota n` inside keeps a constant size.
def ramp ((n, k): (i64, i64)) (x: i64) : i64 =
  let ys = map (\i -> i * k + x) (iota n)
  in i64.sum ys

-- ==
-- entry: invariant_tuple
-- input { [1i64, 2i64] 3i64 } output { [10i64, 14i64] }
entry invariant_tuple (xs: []i64) (n: i64) = map (\x -> ramp (n + 1, 1) x) xs

-- A tuple written out for a tuple parameter, some parts the same for
-- every element and some not: taken part by part.
-- ==
-- entry: tuple_parts
-- input { [1i64, 2i64] 3i64 } output { [10i64, 14i64] }
entry tuple_parts (xs: []i64) (n: i64) = map (\x -> ramp (n + 1, x - x + 1) x) xs
