-- A product with fewer rows than the host has threads times 8: the map of
-- maps is distributed, and B, which every row's inner map reads alike, is
-- read in place through a cyclic view instead of copied once per row
-- (Futhark's reg-tiling/mmm-tr ran out of memory when it was copied).
-- With many rows the inner map stays in each row (the tiled schedule).
-- ==
-- input { 3i64 700i64 16i64 }
-- output { 489988.0f32 }
-- input { 64i64 50i64 24i64 }
-- output { 1150464.0f32 }

def dot [k] (a: [k]f32) (b: [k]f32) = f32.sum (map2 (*) a b)

entry main (n: i64) (m: i64) (k: i64) : f32 =
  let A = tabulate_2d n k (\i j -> f32.i64 ((i * 3 + j) % 7))
  let B = tabulate_2d m k (\i j -> f32.i64 ((i + j * 5) % 11))
  let C = map (\a -> map (\b -> dot a b) B) A
  in f32.sum (flatten C)
