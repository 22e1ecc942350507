-- Operators that read arrays (`\i j -> if xs[i] < xs[j] then i else j`,
-- an argmin by index as pbbs-style code writes it): the arrays become
-- free arrays of the step's element function, which the operator shares
-- on the host. Reductions, scans and histograms with such operators ran
-- on the reference ("the operator reads arrays").

-- ==
-- entry: argmin
-- input { [5, 3, 8, 1, 9, 1, 7] }
-- output { 3i64 }
entry argmin [n] (xs: [n]i32) =
  reduce (\i j -> if xs[i] < xs[j] || (xs[i] == xs[j] && i < j) then i else j) 0 (iota n)

-- ==
-- entry: running_argmax
-- input { 2000i64 }
-- output { 2000i64 1805i64 }
entry running_argmax (n: i64) =
  let xs = tabulate n (\i -> (i * 7919) % 1993)
  let ms = scan (\i j -> if xs[i] > xs[j] || (xs[i] == xs[j] && i > j) then i else j) 0 (iota n)
  in (i64.sum (map (\m -> i64.bool (xs[m] == i64.maximum xs[:m + 1])) ms), ms[n - 1])

-- Per bin, the index of the largest weight.
-- ==
-- entry: heaviest
-- input { 1000i64 }
-- output { [995i64, 996i64, 997i64, 998i64, 999i64] }
entry heaviest (n: i64) =
  let ws = tabulate n (\i -> f32.i64 i * 0.5)
  in reduce_by_index (replicate 5 0) (\i j -> if ws[i] >= ws[j] then i else j) 0 (map (% 5) (iota n)) (iota n)
