-- `xs :> [k]t` inside an element, xs's length computed there and k known
-- when the nest starts: the rows have length k (checked at run time), so
-- the map is regular. It ran on the reference ("map producing arrays whose
-- length depends on the element").

-- ==
-- input { 3i64 [3i64, 3] } output { [[0i64, 2, 4], [0, 2, 4]] }
-- input { 3i64 [3i64, 4] } error: Value of shape \[4\] cannot match shape of type "\[3\]i64"
entry main (k: i64) (xs: []i64) = map (\x -> map (\i -> i * 2) (iota x) :> [k]i64) xs

-- A filter's result fixed by a coercion.
-- ==
-- entry: filtered
-- input { [1i64, 2, 3] } output { [[2i64, 3], [3, 4], [4, 5]] }
entry filtered (xs: []i64) = map (\x -> filter (> x) [x, x + 1, x + 2] :> [2]i64) xs
