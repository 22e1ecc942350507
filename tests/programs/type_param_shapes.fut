-- Arguments for parameters of one type parameter have one type, sizes
-- included (Futhark's shapes/polymorphic1): arrays of different shapes are
-- an error.
-- ==
-- entry: same
-- input { [1] [2] } output { [1] [2] }
-- input { [1] [2, 3] } error: differ in shape

def pair 't (x: t) (y: t) = (x, y)
entry same (xs: []i32) (ys: []i32) = pair xs ys
