-- Programs the static size check must accept: coercions, size-dependent
-- return types, branches of different sizes, local functions used at
-- several sizes, let-bound sizes, and sealed types used abstractly.
-- ==
-- input { [1, 2, 3] [4, 5] }
-- output { 6i64 22 }

module M : { type t val mk : i32 -> t val get : t -> i32 } = {
  type t = i32
  def mk (x: i32) = x * 2
  def get (x: t) = x
}

def pairs [n][m] (xs: [n]i32) (ys: [m]i32) : [n](i32, i32) =
  zip xs (ys ++ replicate n 0 |> take n :> [n]i32)

def main [n][m] (xs: [n]i32) (ys: [m]i32) =
  let g zs = map (+ 1) zs
  let a = g xs
  let b = g ys
  let [k] (c: [k]i32) = if n > m then a else b ++ [0]
  let r = pairs a (c :> [k]i32)
  let idx : [n]i64 = iota n
  in (length r + length idx, M.get (M.mk (i32.sum b)))
