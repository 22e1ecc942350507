-- A map whose rows have a captured size (`replicate n x`): the plan cache
-- must not reuse the rows of one call's n for another's.
-- ==
-- input { [1i32, 2i32, 3i32] }
-- output { [[11i32, 11i32, 11i32], [22i32, 22i32, 22i32], [33i32, 33i32, 33i32]] }
-- input { [1i32, 2i32] }
-- output { [[11i32, 11i32], [22i32, 22i32]] }
def main [n] (xs: [n]i32) : [n][n]i32 =
  map (\x -> loop res = replicate n x for j < 10 do map (+ x) res) xs
