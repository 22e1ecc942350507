-- A map whose function returns a histogram: one batched histogram step
-- (SegHist over [n] segments) when every row's histogram starts from the
-- same constant; each row's histogram built sequentially otherwise.
-- ==
-- entry: counts
-- input { [[0i64, 1i64, 9i64, 3i64], [2i64, 2i64, -1i64, 4i64]] }
-- output { [[1, 1, 0, 1, 1], [0, 0, 2, 0, 2]] }
-- random input { [300][97]i64 } auto output

-- ==
-- entry: maxes
-- input { [[0i64, 1i64, 9i64, 3i64], [2i64, 2i64, -1i64, 4i64]] [[1f32, 2f32, 3f32, 4f32], [5f32, -6f32, 7f32, 8f32]] }
-- output { [[1f32, 2f32, -f32.inf, 4f32], [-f32.inf, -f32.inf, 5f32, -f32.inf]] }

-- ==
-- entry: argmin
-- input { [[0i64, 1i64, 9i64, 1i64], [2i64, 2i64, -1i64, 4i64]] [[1f32, 2f32, 3f32, 2f32], [5f32, -6f32, 7f32, 8f32]] }
-- output { [[1f32, 2f32, f32.inf], [f32.inf, f32.inf, -6f32]] [[0i64, 1i64, -1i64], [-1i64, -1i64, 1i64]] }

-- ==
-- entry: from_rows
-- input { [[1, 2, 3], [4, 5, 6]] [[0i64, 0i64], [2i64, 1i64]] }
-- output { [[3, 2, 3], [4, 6, 7]] }

entry counts [n][m] (xss: [n][m]i64) : [n][5]i32 =
  map (\xs -> hist (+) 0 5 (map (% 5) xs) (replicate m 1i32)) xss

entry maxes [n][m] (xss: [n][m]i64) (vss: [n][m]f32) : [n][4]f32 =
  map2 (\xs vs -> hist f32.max f32.lowest 4 xs vs) xss vss

-- Ties go to the smaller index: the operator is commutative.
entry argmin [n][m] (xss: [n][m]i64) (vss: [n][m]f32) =
  map2 (\xs vs -> hist (\(a, i) (b, j) -> if a < b || (a == b && i < j) then (a, i) else (b, j))
                       (f32.inf, -1) 3 xs (zip vs (iota m)))
       xss vss
  |> map unzip |> unzip

-- Each row's own destination (not a constant): built row by row.
entry from_rows [n][k] (dests: [n][k]i32) (iss: [n][2]i64) : [n][k]i32 =
  map2 (\d is -> reduce_by_index (copy d) (+) 0 is (replicate 2 1)) dests iss
