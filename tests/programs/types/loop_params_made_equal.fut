-- A loop body that makes two parameter sizes one size cannot start from
-- initial sizes that differ.
-- ==
-- error: Initial loop values do not have expected type

def main [n] [m] (x: [n][m]f32) =
  loop x for i < 2 do
    map (\r -> map2 (*) r (transpose x)[0]) x
