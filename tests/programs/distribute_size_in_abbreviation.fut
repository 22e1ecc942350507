-- A narrow map distributed through a function whose size parameter is
-- given only through a type abbreviation (`x: bs [b]`; DuckDB-Futhark's
-- hash join). The distributed path bound the sizes from the written type
-- alone, and `b` was reported as undeterminable.

type bs [k] = [k]u8

def g [b] (x: bs [b]) : [b]u8 = let k = u8.i64 b in map (+ k) x

-- ==
-- input { [[0u8, 1u8], [4u8, 3u8]] }
-- output { [[2u8, 3u8], [6u8, 5u8]] }
-- input { [[0u8, 1u8, 2u8]] }
-- output { [[3u8, 4u8, 5u8]] }
entry main [n] [b] (xs: [n][b]u8) = map g xs
