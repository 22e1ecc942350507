-- unzip of a map whose elements read private arrays that are then updated
-- in place before every part is read (CFAL-bench's flash-alg1 softmax:
-- `let (mis', lis') = unzip (map ...)`, `let mis[:n-1] = mis'`, then
-- lis'). Each part must see the arrays as they were when the map was made.

def step [n] (mis: *[n]f32) (lis: *[n]f32) (maxs: [n]f32) : (*[n]f32, *[n]f32) =
  let (mis', lis') = unzip (map (\tid -> let (mo, lo, mx) = (mis[tid], lis[tid], maxs[tid])
                                          let mn = if mo > mx then mo else mx
                                          in (mn, lo * f32.exp (mo - mn))) (iota (n-1)))
  let mis[:n-1] = mis'
  let lis[:n-1] = lis'
  in (mis, lis)
def f (x: f32) : f32 =
  let (mis, lis) = loop (mis, lis) = (replicate 5 0f32, replicate 5 1f32) for i < 3 do
    step mis lis (map (\j -> x * f32.i64 (i + j)) (iota 5))
  in f32.sum mis + f32.sum lis

-- ==
-- input { [1f32, 2f32, 3f32] }
-- output { [15.210176f32, 29.021175f32, 43.00261f32] }
entry main (xs: []f32) = map f xs
