-- Recursive functions, as in Futhark (higher-order-functions/recursion*.fut).
-- ==
-- entry: factorial
-- input { 5i64 } output { 120i64 }
-- input { 0i64 } output { 1i64 }

-- ==
-- entry: repeat_inc
-- input { 4i64 2i64 } output { 6i64 }

-- ==
-- entry: nested
-- input { 10i64 } output { 65i64 }

-- ==
-- entry: local_fib
-- input { 10i32 } output { 55i32 }

-- ==
-- entry: sum_list
-- input { [1, 2, 3, 4] } output { 10 }

def fact (n: i64) : i64 = if n == 0 then 1 else n * fact (n - 1)

def repeat (n: i64) (f: i64 -> i64) (x: i64) : i64 =
  if n == 0 then x else repeat (n - 1) f (f x)

def f (g: i64 -> i64) (n: i64) : i64 =
  let h (x: i64) = g x + f g (n - 1)
  in if n == 0 then 0 else h n

-- No declared return type: the recursive use fixes it.
def go (xs: []i32) (i: i64) = if i == length xs then 0 else xs[i] + go xs (i + 1)

entry factorial (n: i64) = fact n
entry repeat_inc (n: i64) (x: i64) = repeat n (\y -> y + 1) x
entry nested (n: i64) = f (\x -> x + 1) n
entry local_fib (n: i32) =
  let fib (k: i32) : i32 = if k < 2 then k else fib (k - 1) + fib (k - 2)
  in fib n
entry sum_list (xs: []i32) = go xs 0
