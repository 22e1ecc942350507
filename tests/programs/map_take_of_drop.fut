-- take k of an array whose length is known only inside the element
-- (`take 2 (drop (i * 2) data)`, diku-dk/sorts' merge sort as vendored by
-- DuckDB-Futhark): the same length k in every element, checked against
-- the element's length at run time. It was treated as a length that
-- depends on the element, and the map ran on the reference.

-- ==
-- input { [5i64, 3, 8, 1, 9, 2, 7, 4] }
-- output { [[3i64, 5], [1, 8], [2, 9], [4, 7]] }
entry main [n] (data: [n]i64) =
  tabulate (n / 2) (\i ->
    let piece = take 2 (drop (i * 2) data)
    in loop p = copy piece for _j < 1 do if p[0] > p[1] then [p[1], p[0]] else p)

-- Out of bounds in one element: the same error as the reference.
-- ==
-- entry: too_far
-- input { [1i64, 2, 3] }
-- error: out of bounds
entry too_far [n] (data: [n]i64) =
  tabulate n (\i -> i64.sum (take 2 (drop i data)))
