-- Parameters that the body makes one size, returned unchanged and as a
-- value of the initial size, stay that size (accelerate/kmeans).
-- ==
-- input { [1,2] }
-- output { [1,2] [2,3] }

def main [k] (xs: [k]i32) =
  let step (ys: [k]i32) : [k]i32 = map (+ 1) ys
  in loop (a, b) = (xs, xs) for _i < 1 do
       let c = map2 (+) a b
       in (a, step (map2 (-) c b))
