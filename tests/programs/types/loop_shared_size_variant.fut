-- The body makes xs and ys one size, keeps xs's and gives ys a new one.
-- ==
-- error: Loop body does not have expected type

def main [n] (xs: [n]i32) (ys: [n]i32) =
  loop (xs, ys) for i < 10 do
    let zs = filter (> 0) (map2 (+) xs ys)
    in (xs, zs)
