-- Entry points whose size parameters the arguments give.
-- ==
-- input { [1f32, 2f32] [[1,2],[3,4]] } output { 2i64 2i64 }

entry main [k] [m] (_: [k]f32) (_: [m][k]i32) = (k, m)
