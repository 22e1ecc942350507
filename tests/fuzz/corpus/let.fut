def f [n] 't (xs: [n]t) : [n]t =
  let ys = xs
  let zs[0] = ys[1]
  let [m] (ws: [m]t) = filter p zs
  let g x y = x + y
  in map2 g ys zs
