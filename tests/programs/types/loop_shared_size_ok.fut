-- Parameters the body makes one size may stay that size together.
-- ==
-- input { [1,2] [3,4] }
-- output { [4,6] [3,4] }

def main [n] (xs: [n]i32) (ys: [n]i32) =
  loop (xs, ys) for i < 1 do (map2 (+) xs ys, ys)
