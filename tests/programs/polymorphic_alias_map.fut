-- A polymorphic constant that only names a function (`def stdreplicate =
-- replicate`, as the athas/vector library writes it) used inside a mapped
-- function: the flattener follows the alias instead of falling back to the
-- reference backend (the plan log says so under --log plan).
-- ==
-- input { 5i64 } output { [0i64, 3i64, 6i64, 9i64, 12i64] [0.0f32, 2.0f32, 4.0f32, 6.0f32, 8.0f32] }
def stdreplicate = replicate
def rep_again = stdreplicate
def main (n: i64) =
  ( map (\i -> i64.sum (stdreplicate 3 i)) (iota n)
  , map (\i -> f32.sum (rep_again 2 (f32.i64 i))) (iota n))
