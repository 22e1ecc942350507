-- `script input` in test blocks (Futhark's tests/script): a FutharkScript
-- expression whose value is the entry point's argument, or, when it is a
-- tuple with one component per parameter, its arguments; $loaddata reads a
-- data file relative to the program, $loadbytes a file's bytes.
-- ==
-- entry: total
-- script input { make 4i64 } output { 10.0f32 }
-- script input { let k = 2i64 in make (k + 1) } output { 5.0f32 }
-- script input { (2f32, $loaddata "data/script_input.in") } output { 8.0f32 }

-- ==
-- entry: pair_sum
-- script input { make_pair 3i64 } output { 6i64 }

-- ==
-- entry: count_bytes
-- script input { $loadbytes "data/script_input.in" } output { 25i64 }

entry make (n: i64) : (f32, []f32) = (f32.i64 n - 4, map (f32.i64 <-< (+ 1)) (iota n))
entry total (x: f32) (xs: []f32) : f32 = x + f32.sum xs
type~ pair = (i64, []i64)
entry make_pair (n: i64) : pair = (n, iota n)
entry pair_sum ((n, xs): pair) : i64 = n + i64.sum xs
entry count_bytes (bs: []u8) : i64 = length bs
