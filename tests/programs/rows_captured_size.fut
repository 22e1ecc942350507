-- A map over rows whose result is a tuple with an array component of a
-- captured size (`replicate k x`): the plan cache lifts k into a parameter,
-- so the row-wise plan cannot know the component's size and is lowered
-- again with k as a constant (Futhark's flattening/maposcanomap/complex.fut
-- failed with "negative buffer size"). The loop calls it with a different
-- k each time.
-- ==
-- input { 3i64 [[1i64, 2i64, 3i64], [4i64, 5i64, 6i64]] }
-- output { [[12i64, 24i64, 36i64], [48i64, 60i64, 72i64]] 504i64 }

def f [n] [m] (k: i64) (xss: [n][m]i64) =
  map (\xs ->
         let (as, bs) = unzip (map (\x -> (x * 2, map (+ x) (replicate k x))) xs)
         in map2 (\a b -> reduce (+) 0 (map (+ a) b)) as bs)
      xss

entry main [n] [m] (k: i64) (xss: [n][m]i64) =
  (f k xss, loop acc = 0 for j < 3 do acc + i64.sum (flatten (f (j + 1) xss)))
