-- A function that consumes its argument does not have a type whose
-- parameter is only observed.
-- ==
-- error: does not have expected type

def f (xs: *[]f32) : f32 = xs[0]

entry g : []f32 -> f32 = f
