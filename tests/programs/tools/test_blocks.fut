-- The test-block features of `thorn test` itself: entries, names, values
-- guided by parameter types, tolerances, expected errors, files, random
-- input with auto output, and tuple results compared value by value.
-- ==
-- entry: add
-- input { 1 2 } output { 3 }
-- "wraps around" input { 2147483647 1 } output { -2147483648 }
-- compiled input { -1i32 1i32 } output { 0i32 }

entry add (x: i32) (y: i32): i32 = x + y

-- ==
-- entry: sum
-- input { [1.0, 2.0, 3.0] } output { 6.0 }
-- input { empty([0]f64) } output { 0.0 }
-- input { [0.1, 0.2] } output { 0.3001 }
-- random input { [100]f64 } auto output
-- input @ data/sum.in output @ data/sum.out
-- input @ data/sum_binary.in.gz output { 10.0 }

entry sum (xs: []f64): f64 = reduce (+) 0 xs

-- ==
-- entry: index
-- input { [1, 2, 3] 1i64 } output { 2 }
-- input { [1, 2, 3] 5i64 } error: .

entry index (xs: []i32) (i: i64): i32 = xs[i]

-- ==
-- entry: countdown
-- input { 3i64 } output { 3i64 [2i64, 1i64, 0i64] }
-- nobench input { 0i64 } output { 0i64 empty([0]i64) }

entry countdown (n: i64): (i64, []i64) = (n, reverse (iota n))

-- ==
-- entry: table
-- input { 2i64 3i64 } output { [[0, 1, 2], [1, 2, 3]] }

entry table (n: i64) (m: i64): [n][m]i32 =
  tabulate_2d n m (\i j -> i32.i64 (i + j))
