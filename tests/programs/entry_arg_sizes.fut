-- An argument whose shape the entry point's parameter sizes reject is an
-- error at the entry point, worded as a compiled Futhark program words it.
-- ==
-- input { 1i64 [1, 2] }
-- output { 1i64 }
-- input { 1i64 [1, 2, 3] }
-- error: entry point arguments have invalid sizes

entry main (x: i64) (_: [x + 1]i32) = x
