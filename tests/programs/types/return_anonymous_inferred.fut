-- `[]` in a top-level function's declared return type is a size inferred
-- from the body (Futhark's checkBinding: checkTypeExpNonrigid): `[][]f64`
-- of a body [n][3]f64 is [n][3]f64, so callers may pass it where [][3]f64
-- is expected. n is bound inside the body, so each call's is existential.
-- ==
-- input { [7.0, 8.0, 9.0, 1.0, 2.0, 3.0] 2i64 }
-- output { [7.0, 1.0, 0.0, 0.0, 0.0] 5i64 [2i64, 3i64] }

def rows (theta: []f64) (k: i64) : [][]f64 =
  let n = 3 + k
  in tabulate n (\i ->
                   match i
                   case 0 -> take 3 theta
                   case 1 -> [1, 1, 1]
                   case _ -> [0, 0, 0])

def firsts (x: [][3]f64) = map (\r -> r[0]) x

-- A size the body takes from a parameter is that parameter.
def half [m] (xs: [m]i64) : []i64 = xs[m / 2:]

def main (theta: []f64) (k: i64) =
  let a = rows theta k
  let b = rows theta 0
  in (firsts a, length a + length b - 3, half (iota 4 |> map (+ 0)))
