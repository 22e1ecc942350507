-- Scatters of rows with no elements ([n][0] payloads, as DuckDB-Futhark's
-- joins carry): nothing to write, the destination as it is. They ran on
-- the reference ("empty input").

-- ==
-- input { 0i64 }
-- output { empty([5][0]i32) }
-- input { 2i64 }
-- output { [[2, 2], [2, 2], [2, 2], [1, 1], [1, 1]] }
entry main (n: i64) = scatter (replicate 5 (replicate n 1i32)) (iota 3) (replicate 3 (replicate n 2))
