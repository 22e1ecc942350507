-- An `if` whose branches have sizes that cannot be one size (a parameter's
-- `[]` against `2 ** (d + 1)`, d bound inside the function) gives its result
-- a fresh size, as Futhark's unifyMostCommon does; it does not bind the
-- parameter's size to the branch's (which rejected every call).
-- ==
-- input { [3, 1, 2] }
-- output { [1, 2, 3] 2i64 4i64 }
-- input { [4, 3, 2, 1] }
-- output { [1, 2, 3, 4] 2i64 4i64 }

def pad_to k x xs = sized k (xs ++ replicate (k - length xs) x)

def ilog2 (n: i64) : i64 = i64.i32 (63 - i64.clz n)

def padpow2 lte xs =
  let d = ilog2 (length xs)
  in if d < 0 || length xs == 2 ** d then (xs, d)
     else (pad_to (2 ** (d + 1)) (reduce (\x y -> if x `lte` y then y else x) xs[0] xs) xs, d + 1)

def sort_small [n] (xs: [n]i32) : [n]i32 =
  let (ys, _) = padpow2 (<=) xs
  let ys = loop ys for i < length ys do
             map (\j -> if j % 2 == i % 2 && j + 1 < length ys
                        then i32.min ys[j] ys[j + 1]
                        else if j % 2 != i % 2 && j > 0 then i32.max ys[j - 1] ys[j] else ys[j])
                 (indices ys)
  in take n ys

def main [n] (xs: [n]i32) =
  let (ys, d) = padpow2 (<=) xs
  in (sort_small xs, d, length ys)
