-- A value of an abstract type returned by a function may be a pair of
-- arrays that are the same array, so it cannot be returned as unique.
-- ==
-- error: internal aliases

module M : { type arr [n] val mk : (n: i64) -> arr [n] } = {
  type arr [n] = ([n]i32, [n]i32)
  def mk n : arr [n] = let xs = replicate n 0 in (xs, xs)
}

entry main n : *M.arr [] = M.mk n
