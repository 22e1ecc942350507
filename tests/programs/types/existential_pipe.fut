-- A pipeline through a function with a named size parameter: `iota`'s
-- result size is bound inside its argument's type, then produced by the
-- application, so passing the array on is fine (futhark-benchmarks'
-- micro/reduce.fut: `i64.i32 n |> iota |> map i8.i64 |> i8.sum`).
-- ==
-- input { 10 } output { 45i8 45i64 }
def main (n: i32) =
  (i64.i32 n |> iota |> map i8.i64 |> i8.sum, i64.i32 n |> iota |> i64.sum)
