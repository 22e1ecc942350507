-- A loop parameter whose body keeps its size keeps the initial value's size
-- expression (Futhark's checkLoop unifies the parameter with the initial
-- value, "dim handling (4)"): a call in the body to a function whose size
-- parameters appear only inside an expression (`[n*m+r]`) has them solved
-- from it, as without the loop. diku-dk/sorts' blocked_radix_sort loops
-- over a `[nb*bs+rest]` array this way; the sizes used to be lost
-- ("The size `n` cannot be determined at run time").

def step [n] [m] [r] (xs: [n*m+r]i32) : [n*m+r]i32 =
  map (+ i32.i64 (n + m)) xs

-- ==
-- entry: implicit_init
-- input { [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [9i32, 10i32, 11i32, 12i32, 13i32] }
entry implicit_init [k] (xs: [k]i32) : [k]i32 =
  let ys = sized ((k / 2) * 2 + k % 2) xs
  in sized k (loop ys for _i < 2 do step ys)

def blocks [n] [m] [r] (xs: *[n*m+r]i32) : *[n*m+r]i32 =
  let (bs, rest) = split xs
  let bs = unflatten bs |> map (map (+1))
  in flatten bs ++ map (+2) rest

-- ==
-- entry: blocked
-- input { [1i32, 2i32, 3i32, 4i32, 5i32] }
-- output { [3i32, 4i32, 5i32, 6i32, 9i32] }
-- input { [1i32, 2i32, 3i32, 4i32] }
-- output { [3i32, 4i32, 5i32, 6i32] }
entry blocked [k] (xs: [k]i32) : [k]i32 =
  let nb = k / 2
  let rest = k % 2
  let ys = sized (nb * 2 + rest) xs
  in sized k (loop ys = copy ys for _i < 2 do blocks ys)

-- The parameter's size is the initial one after the loop as well.
-- ==
-- entry: after
-- input { [1i32, 2i32, 3i32] }
-- output { [10i32, 11i32, 12i32] }
entry after [k] (xs: [k]i32) : [k]i32 =
  let ys = sized ((k / 2) * 2 + k % 2) xs
  let zs = loop ys for _i < 2 do step ys
  in sized k (step zs)
