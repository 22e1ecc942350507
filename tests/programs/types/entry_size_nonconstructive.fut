-- An entry point's size parameter used only in a size expression: the
-- arguments' shapes do not give it.
-- ==
-- error: \[k\] only used non-constructively

entry main [k] (xs: [k * 2]f32) = k
