-- The functional prelude: pipes, composition, flip, curry, sections,
-- partial application, iterate.
-- ==
-- entry: main
-- input { 5 } output { 12 11 -10 2 8 40 5 1 -2 160 }

def add (x: i32) (y: i32) = x + y

entry main (x: i32) =
  (x |> add 1 |> (* 2), (add 1 >-> (* 2)) x + 1 - 2, (flip (-)) 5 0 - x, curry (\(a, b) -> a - b) 5 3,
   uncurry (+) (3, 5), (<-<) (* 8) (+ 0) x, const x true, id 1, (2 -) 0 |> (\y -> -y),
   iterate 5 (* 2) x)
