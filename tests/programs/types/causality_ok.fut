-- What the causality check must keep accepting: arguments are evaluated
-- before the function (last to first), a let-bound size is known in the
-- body, loops whose body computes a new size, and prelude functions whose
-- result size Futhark knows (`drop`: [n - i]).
-- ==
-- input { [1i32, -2i32, 3i32, 4i32] }
-- output { 4i64 4i64 8i64 3i64 3i64 2i64 13i64 }

def g [n] (_: [n]i32 -> i32) (_: [n]i32) : i64 = n + 1

def concatmap [n] 'a 'b (h: a -> []b) (as: [n]a) : []b =
  loop acc = [] for a in as do acc ++ h a

def pos (xs: []i32) : []i32 = filter (> 0) xs

def pick (b: bool) (xs: []i32) : []i32 =
  if b then filter (> 0) xs else xs

def main (xs: []i32) =
  let ys = filter (> 0) xs
  let a = g (\_ -> 0) <| ys
  let b = g (\_ -> 0) (filter (> 0) xs)
  let c = length (concatmap (\x -> iota (i64.i32 x)) (filter (> 0) xs))
  let d = length (map (+ 1) <| drop 1 xs)
  let e = length (pick true xs)
  let t = length (ys |> filter (> 1))
  let l = length (loop zs = xs for _i < 2 do pos zs ++ zs)
  in (a, b, c, d, e, t, l)
