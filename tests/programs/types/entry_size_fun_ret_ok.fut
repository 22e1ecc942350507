-- An entry point whose sizes are given by the parameters of its
-- function-typed result.
-- ==
-- input { [1f32, 2f32] } output { 2i64 }

def len [n] (xs: [n]f32) : i64 = length xs
entry main [n] : [n]f32 -> i64 = len
