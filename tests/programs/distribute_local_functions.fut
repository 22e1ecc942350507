-- Narrow maps whose bodies define local functions among their lets (as
-- diku-dk/sorts' radix_sort_step does): distributed, one map per let, each
-- local function bound once when it names nothing of the element and
-- defined again in each step that reads it otherwise; lets that name
-- nothing of the element are computed once.

def step [n] (xs: [n]i32) (k: i32) : [n]i32 =
  let scale x = x * k
  let ys = map scale xs
  let total = i32.sum ys
  let shift x = x + total
  let zs = scan (+) 0 (map shift ys)
  let both x = shift (scale x)
  in map2 (+) zs (map both xs)

def rounds [n] (xs: [n]i32) : [n]i32 =
  let count = if n == 0 then 0 else 3
  let bump x = x + 1
  in loop xs = map bump xs for i < count do step xs (i32.i64 i + 1)

-- ==
-- entry: once
-- input { [[3, 1, 2], [9, 7, 8]] 2 }
-- output { [[36, 46, 64], [132, 190, 256]] }
entry once (xss: [][]i32) (k: i32) = map (\xs -> step xs k) xss

-- ==
-- entry: looped
-- input { [[3, 1, 2], [9, 7, 8]] }
-- output { [[18672, 29844, 42138], [55536, 88884, 125514]] }
entry looped (xss: [][]i32) = map rounds xss

-- A local function that names the element's size: bound once, it must see
-- that size (it ran into "the size `n` cannot be determined").
def sized_step [n] (xs: [n]i32) : [n]i32 =
  let ys = map (+ 1) xs
  let g x = x + i32.i64 n
  let s = i32.sum ys
  in map (\y -> g y + s) ys

-- ==
-- entry: sized
-- input { [[1, 2], [3, 4]] }
-- output { [[9, 10], [15, 16]] }
entry sized (xss: [][]i32) = map sized_step xss
