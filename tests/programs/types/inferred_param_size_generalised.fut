-- The sizes of a function's inferred parameter types become implicit size
-- parameters, as in Futhark's letGeneralise: exscan : [d]a -> *[d]a, so
-- the result of exscan has its argument's size and unflatten's sizes can
-- be solved from it (diku-dk/sorts' blocked_radix_sort). Each use gets
-- its own size.
-- ==
-- input { [1i64, 2i64] } output { 0i64 [0i64, 1i64, 3i64] 7i64 }

def exscan op ne xs =
  map2 (\i x -> if i == 0 then ne else x) (indices xs) (rotate (-1) (scan op ne xs))

def d = 1i64

def addd xs = map (+ d) xs

entry main [k] (xs: [k]i64) =
  let hs = replicate k (replicate 4 0i64) ++ [replicate 4 1]
  let o = hs |> transpose |> flatten |> exscan (+) 0 |> unflatten
  let ys = exscan (+) 0 xs ++ [3]
  let zs = exscan (+) 0 (iota 5)
  in (o[0][0], ys, (addd zs)[4])
