-- Sizes that only a size expression determines, solved structurally as
-- Futhark's unifySizes does: `unflatten` of a flattened or replicated
-- array, a size parameter given by the argument's type alone, and size
-- expressions inside a function's declared types.
-- ==
-- input { [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]] 2i64 }
-- output { [[1i32, 2i32, 1i32, 2i32], [3i32, 4i32, 3i32, 4i32], [5i32, 6i32, 5i32, 6i32],
--           [1i32, 2i32, 1i32, 2i32], [3i32, 4i32, 3i32, 4i32], [5i32, 6i32, 5i32, 6i32]]
--          [[0i64, 0i64, 0i64], [0i64, 0i64, 0i64], [0i64, 0i64, 0i64]]
--          3i64 2i64 6i64
--          [[1i32, 2i32], [3i32, 4i32], [5i32, 6i32]] }

-- Only n * m is in the parameter's type: n comes from the call.
def rows [n] [m] (_: [n * m]i32) : i64 = n

def tile [n] [m] (k: i64) (xs: [k * n * (k * m)]i32) : [k * n][k * m]i32 = unflatten xs

def main [n] [m] (base: [n][m]i32) (k: i64) =
  -- misc/life's pattern: [k][n][k*m] flattened twice is [k*n*(k*m)]
  let pattern = unflatten (flatten_3d (replicate k (map (\row -> flatten (replicate k row)) base)))
  let b = m + 1
  let square = replicate (b * b) 0i64 |> unflatten
  let tiled = tile k (flatten_3d (replicate k (map (\row -> flatten (replicate k row)) base)))
  in (pattern, square, rows (flatten base), length tiled[0] / 2, length (flatten tiled) / 4,
      unflatten (flatten base) : [n][m]i32)
