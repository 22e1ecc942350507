-- Slices have the sizes Futhark gives them: `xs[s:e]` is [e - s], `xs[:e]`
-- [e], `xs[s:]` [n - s], `xs[e:s:-1]` [e - s]. A size that only the context
-- gives (`rep`, diku-dk/list-ranking's `scatter set is (rep true)` over a
-- slice) is then known when the program runs.

-- ==
-- entry: between
-- input { [1i64, 2i64, 3i64, 4i64, 5i64, 6i64] 1i64 4i64 }
-- output { [2i64, 3i64, 4i64] [true, true, true] }
entry between (xs: []i64) (s: i64) (e: i64) =
  let js = xs[s:e]
  in unzip (zip js (rep true))

-- ==
-- entry: ends
-- input { [1i64, 2i64, 3i64, 4i64, 5i64, 6i64] 2i64 }
-- output { [7i64, 7i64] [0i64, 0i64, 0i64, 0i64] [6i64, 5i64, 4i64] }
entry ends [n] (xs: [n]i64) (k: i64) =
  (xs[:k] |> map (\_ -> 7i64),
   xs[k:] |> map (\_ -> 0i64),
   xs[n - 1:k:-1] |> zip (rep 0i64) |> map (.1))

-- ==
-- entry: scatter_spans
-- input { [1i64, 2i64, 3i64, 4i64, 5i64, 6i64] }
-- output { [false, false, false, true, true, false, false, false, false, false] }
entry scatter_spans (xs: []i64) =
  loop set = replicate 10 false for (start, end) in [(1i64, 4i64), (0, 2)] do
    let js = xs[start:end]
    let flags = map (\j -> j > 2) js
    in scatter set (map2 (\f j -> if f then j else -1) flags js) (rep true)
