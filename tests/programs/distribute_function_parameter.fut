-- Narrow maps that reach their inner parallelism through a function
-- parameter called in a pipeline stage (diku-dk/sorts' by_key_wrapper), a
-- function that only forwards to another (radix_sort_float) and a body
-- that is a loop (radix_sort): each call inlined and distributed in turn.

def step [n] 't (bit: i32 -> t -> i32) (xs: [n]t) (d: i32) : [n]t =
  let bins = map (bit d) xs
  let ones = scan (+) 0 (map i64.i32 bins)
  let zeros = scan (+) 0 (map (\b -> i64.i32 (1 - b)) bins)
  let nz = zeros[n - 1]
  let is = map3 (\b o z -> if b == 1 then nz + o - 1 else z - 1) bins ones zeros
  in scatter (copy xs) is xs

def sort [n] 't (bits: i32) (bit: i32 -> t -> i32) (xs: [n]t) : [n]t =
  loop xs for i < bits do step bit xs i

def sort_desc [n] 't (bits: i32) (bit: i32 -> t -> i32) (xs: [n]t) : [n]t =
  let bit' i x = 1 - bit i x
  in sort bits bit' xs

def by_key [n] 't sorter (key: t -> i32) (xs: [n]t) : [n]t =
  map key xs
  |> zip (iota n)
  |> sorter 8 (\i (_, k) -> i32.get_bit i k)
  |> map (\(i: i64, _) -> xs[i])

-- ==
-- entry: ascending
-- input { [[3, 1, 2, 7, 0], [5, 9, 0, 4, 4]] }
-- output { [[0, 1, 2, 3, 7], [0, 4, 4, 5, 9]] }
entry ascending (xss: [][]i32) = map (by_key sort id) xss

-- ==
-- entry: descending_by_key
-- input { [[3f32, 1, 2, 7, 0], [5f32, 9, 0, 4, 4]] [[10, 11, 10, 13, 14], [2, 1, 2, 0, 9]] }
-- output { [[0f32, 7, 1, 3, 2], [4f32, 5, 0, 9, 4]] }
entry descending_by_key (xss: [][]f32) (keys: [][]i32) =
  map2 (\xs ks -> map (.0) (by_key sort_desc (.1) (zip xs ks))) xss keys
