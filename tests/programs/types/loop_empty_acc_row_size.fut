-- A loop accumulator that starts as `[]` and grows by another parameter's
-- rows has those rows' size: the element type of `[]` is decided by the
-- body, and Futhark's unification of the parameters with the initial
-- values ("dim handling (4)") makes that size the other parameter's
-- initial one (`[d]`), not a loop-variant size. It used to be taken for a
-- size exchanged with another parameter, so the result was `[][]f64`.

def build [d] [n] (ps: [n][d]f64) : [][d]f64 =
  let (_, r) = loop (w, acc) = (ps, []) for _i < 2 do (w, acc ++ w)
  in r

-- ==
-- entry: main
-- input { [[1.0, 2.0]] }
-- output { [[1.0, 2.0], [1.0, 2.0]] }
entry main [d] [n] (ps: [n][d]f64) : [][d]f64 = build ps

-- The accumulator first, and rows computed from the other parameter.
-- ==
-- entry: swapped
-- input { [[1.0, 2.0]] }
-- output { [[2.0, 3.0], [2.0, 3.0]] }
entry swapped [d] [n] (ps: [n][d]f64) : [][d]f64 =
  let (r, _) = loop (acc, w) = ([], ps) for _i < 2 do (acc ++ map (map (+ 1)) w, w)
  in r
