-- A scatter into an element's own array whose values are computed from
-- that array where they are read (as diku-dk/sorts' blocked radix sort
-- does: `scatter xs is sorted`, sorted built from xs). Futhark's scatter
-- reads all of them before writing; the host wrote xs while later values
-- still read it (a wrong answer).

-- ==
-- input { [[1, 2, 3, 4], [10, 20, 30, 40]] }
-- output { [[3, 4, 5, 6], [12, 22, 32, 42]] }
entry main [n] (arrs: [][n]i32) =
  map (\arr -> loop xs = copy arr for _i < 2 do
                 let rotated = sized n (xs[2:] ++ xs[:2])
                 in scatter xs (iota n) (map (+ 1) rotated))
      arrs
