-- A type made abstract whose size parameter is used only as the argument
-- of another abstract type (diku-dk/linalg's dpsolve: `type mat [n] =
-- ols_jac.mat [n]`) is accepted, as Futhark accepts it.
-- ==
-- input { 3i64 } output { 9i64 }

module type square = {
  type mat [n]
  val make [n] : [n]i64 -> mat [n]
  val total [n] : mat [n] -> i64
}

module dense : square = {
  type mat [n] = [n][n]i64
  def make [n] (xs: [n]i64) : [n][n]i64 = map (\x -> map (\_ -> x) xs) xs
  def total [n] (m: [n][n]i64) = i64.sum (map i64.sum m)
}

module wrap (M: square) : square = {
  type mat [n] = M.mat [n]
  def make = M.make
  def total = M.total
}

module W = wrap dense

def main (n: i64) = W.total (W.make (map (const 1) (iota n)))
