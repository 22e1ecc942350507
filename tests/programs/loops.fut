-- Loops: for, for-in, while, patterns, sizes of loop variables, and
-- in-place updates inside loops.
-- ==
-- entry: fact
-- input { 10 } output { 3628800 }
-- input { 0 } output { 1 }

-- ==
-- entry: fib
-- input { 30 } output { 832040i64 }

-- ==
-- entry: collatz
-- input { 27 } output { 111 }
-- input { 1 } output { 0 }

-- ==
-- entry: sum_pairs
-- input { [1, 2, 3] [4, 5, 6] } output { 32 }

-- ==
-- entry: fill
-- input { 5i64 } output { [0i64, 1i64, 4i64, 9i64, 16i64] }

-- ==
-- entry: bubble
-- input { [5, 1, 4, 2, 3] } output { [1, 2, 3, 4, 5] }
-- input { empty([0]i32) } output { empty([0]i32) }

-- ==
-- entry: nested
-- input { 3 4 } output { 12 }

entry fact (n: i32) = loop acc = 1 for i < n do acc * (i + 1)
entry fib (n: i32) = (loop (a, b) = (0i64, 1i64) for _i < n do (b, a + b)).0
entry collatz (n: i32) =
  (loop (x, k) = (n, 0) while x != 1 do (if x % 2 == 0 then x / 2 else 3 * x + 1, k + 1)).1
entry sum_pairs (xs: []i32) (ys: []i32) = loop acc = 0 for (x, y) in zip xs ys do acc + x * y
entry fill (n: i64) = loop xs = replicate n 0 for i < n do xs with [i] = i * i
entry bubble [n] (xs: *[n]i32): [n]i32 =
  loop xs for i < n do
    loop xs for j < n - i - 1 do
      if xs[j] > xs[j + 1] then
        let a = xs[j]
        let b = xs[j + 1]
        in xs with [j] = b with [j + 1] = a
      else xs
entry nested (a: i32) (b: i32) = loop s = 0 for i < a do loop s for j < b do s + 1
