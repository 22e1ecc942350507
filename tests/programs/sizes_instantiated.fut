-- Size parameters that no argument gives, instantiated by the checker where
-- the function is named and computed there at run time: from an expression
-- that is no polynomial (an application, `/`, `**`, a typed literal), from a
-- later use of a returned function, from a size parameter of a mapped
-- function used as a loop's trip count, and from a type abbreviation in a
-- `let [n]` pattern.

-- ==
-- entry: eta_unflatten
-- input { 2 3 [1, 2, 3, 4, 5, 6] } output { [[1, 2, 3], [4, 5, 6]] }

-- ==
-- entry: coerce_app
-- input { [1i64, 2i64, 3i64, 4i64] } output { [[1i64, 2i64], [3i64, 4i64]] }

-- ==
-- entry: coerce_app
-- input { [1i64, 2i64, 3i64] } error: cannot match shape.*\[1\]i64

-- ==
-- entry: pow_size
-- input { [1, 2, 3, 4, 5, 6, 7, 8] } output { 36 }

-- ==
-- entry: div_size
-- input { 9i64 } output { 3i64 }
-- input { 1i64 } output { 1i64 }

-- ==
-- entry: typed_literal
-- input { 3u32 } output { [[0u16, 1u16, 2u16, 3u16, 4u16, 5u16, 6u16, 7u16]] }

-- ==
-- entry: later_use
-- input { 4i64 } output { 18i32 }

-- ==
-- entry: size_trip_count
-- input { 2i64 3i64 } output { [9i64, 36i64] }

def unpack_2d 't n m : [i64.i32 n * i64.i32 m]t -> [][]t = unflatten
entry eta_unflatten (n: i32) (m: i32) (xs: []i32) : [][]i32 =
  unpack_2d n m (xs :> [i64.i32 n * i64.i32 m]i32)

def isqrt (x: i64) : i64 = i64.f64 (f64.sqrt (f64.i64 x))
entry coerce_app [n] (xs: [n]i64) : [][]i64 = unflatten (xs :> [isqrt n * isqrt n]i64)

def halve [k] (xs: [2 ** k]i32) : [2 ** (k - 1)]i32 = tabulate (2 ** (k - 1)) (\i -> xs[i * 2] + xs[i * 2 + 1])
def total [k] (xs: [2 ** k]i32) : i32 =
  head (loop xs for i in reverse (iota k) do halve (xs :> [2 ** (i + 1)]i32))
entry pow_size [n] (xs: [n]i32) : i32 =
  let k = i64.i32 (63 - i64.clz n)
  in total (xs :> [2 ** k]i32)

def words (n: i64) : [(n - 1) / 4 + 1]i64 = replicate ((n - 1) / 4 + 1) n
def count [n] (ws: [(n - 1) / 4 + 1]i64) : i64 = length ws + n - n
entry div_size (n: i64) : i64 = count (words n)

def bins (k: u32) : [i64.u32 (1u32 << k)]u16 = tabulate (i64.u32 (1u32 << k)) u16.i64
def rows [n] (xs: [n]u16) : [1][n]u16 = [xs]
entry typed_literal (k: u32) : [][]u16 =
  let r = rows (bins k)
  in unflatten (flatten r)

def summer [n] (x: i32) : ([n]i32 -> i32) = \(ys: [n]i32) -> x * i32.i64 n + i32.sum ys
entry later_use (m: i64) : i32 =
  let (g, _) = (summer 3, 0)
  in g (map i32.i64 (iota m))

def row_total [b] (k: i64) (row: [b]i64) : i64 =
  loop acc = k for i < b do acc + i64.sum (map (* i) row)
entry size_trip_count (n: i64) (m: i64) : [n]i64 =
  map2 row_total (replicate n 0) (unflatten (iota (n * m)))

-- ==
-- entry: abstract_size
-- input { true } output { 1i64 }

module type boxes = {
  type box [n]
  val mk : bool -> box []
}
module boxed : boxes = {
  type box [n] = [n]bool
  def mk b = [b]
}
entry abstract_size (b: bool) : i64 =
  let [n] (_: boxed.box [n]) = boxed.mk b
  in n
